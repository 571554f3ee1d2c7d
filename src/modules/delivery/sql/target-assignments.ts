import type { Outcome, TargetChanges } from '../../../core/target-lifecycle.js'

/** What the one-statement settles (Postgres, a post's only target) take of the settle's input. */
export interface OnlyTargetSettle {
  targetId: string
  workerId: string
  now: number
  outcome: Outcome
  /** Added to the target's send attempts (see `SettleInput`). */
  attemptsDelta?: number
}

/** The SET list of a target's settle as numbered parameters ($1…$n), for the raw Postgres statements. */
export function targetAssignments(input: OnlyTargetSettle, changes: TargetChanges) {
  const columns = Object.keys(changes)
  const values: unknown[] = Object.values(changes)
  const delta = Math.trunc(input.attemptsDelta ?? 0)
  const assignments = [
    ...columns.map((column, i) => `${column} = $${i + 1}`),
    ...(delta !== 0 ? [`attempts = attempts + (${delta})`] : []),
  ].join(', ')
  return { columns, values, delta, assignments }
}
