import type { HistoryEntry } from '../../../core/target-history.js'
import type { TargetChanges } from '../../../core/target-lifecycle.js'
import type { Store } from '../../../platform/db/db.js'
import { historyCte } from './history-cte.js'
import { type OnlyTargetSettle, targetAssignments } from './target-assignments.js'

/**
 * Postgres, a post with a single target (create_post makes one post per profile) and an outcome that keeps
 * it pending (retry, check: no event): no sibling can race, so the target and its post change in one
 * statement, one round trip instead of five, with its history rows. It runs as a named statement, which
 * Postgres parses and plans once per connection rather than on every settle. Returns false when the lease
 * was lost.
 */
export async function settleOnlyTarget(
  store: Store,
  input: OnlyTargetSettle,
  changes: TargetChanges,
  lastError: string | undefined,
  entries: readonly HistoryEntry[],
) {
  const { columns, values, delta, assignments } = targetAssignments(input, changes)
  const n = columns.length
  const history = historyCte(entries, input.now, n + 5)
  const text = `
    WITH settled AS (
      UPDATE targets SET ${assignments}
       WHERE id = $${n + 1} AND lease_owner = $${n + 2}
      RETURNING id, post_id, status, published_at)${history.text}
    UPDATE posts SET
      status = CASE WHEN settled.status = 'pending' THEN posts.status ELSE settled.status END,
      published_at = settled.published_at,
      last_error = coalesce($${n + 3}::text, posts.last_error),
      updated_at = $${n + 4}
      FROM settled WHERE posts.id = settled.post_id
    RETURNING posts.id`
  const pool = store.pgPool as NonNullable<Store['pgPool']>
  const result = await pool.query({
    name: `herald_settle_${input.outcome.kind}_${columns.length}_${delta}_${entries.length}`,
    text,
    values: [...values, input.targetId, input.workerId, lastError ?? null, input.now, ...history.values],
  })
  return (result.rowCount ?? 0) > 0
}
