import { type QueryResult, sql } from 'kysely'
import type { TargetChanges } from '../../../core/target-lifecycle.js'
import { compiledOnce } from '../../../platform/db/compiled.js'
import type { Db } from '../../../platform/db/db.js'
import type { TargetRow } from '../../../platform/db/statements/posts.js'

/** The target's update under its lease, compiled once per set of columns (a settle is the worker's hot path). */
const leasedTargetUpdates = new Map<string, (db: Db, ...args: unknown[]) => Promise<QueryResult<TargetRow>>>()

/**
 * Writes an attempt's `changes` to the target, only while `workerId` holds its lease, and adds
 * `attemptsDelta` to its send attempts. Returns the row as written, or undefined when the lease was lost.
 */
export async function updateLeasedTarget(
  tx: Db,
  targetId: string,
  workerId: string,
  changes: TargetChanges,
  attemptsDelta: number,
): Promise<TargetRow | undefined> {
  const columns = Object.keys(changes) as Array<keyof TargetChanges>
  const counted = attemptsDelta !== 0
  const shape = `${columns.join(',')}${counted ? '+attempts' : ''}`
  let update = leasedTargetUpdates.get(shape)
  if (!update) {
    const n = columns.length
    update = compiledOnce(n + 3, (db: Db, ...args: unknown[]) =>
      db
        .updateTable('targets')
        .set({
          ...Object.fromEntries(columns.map((column, i) => [column, args[i]])),
          ...(counted ? { attempts: sql`attempts + ${args[n]}` } : {}),
        })
        .where('id', '=', args[n + 1] as string)
        .where('lease_owner', '=', args[n + 2] as string)
        .returningAll(),
    )
    leasedTargetUpdates.set(shape, update)
  }
  const { rows } = await update(
    tx,
    ...columns.map((column) => changes[column]),
    attemptsDelta,
    targetId,
    workerId,
  )
  return rows[0]
}
