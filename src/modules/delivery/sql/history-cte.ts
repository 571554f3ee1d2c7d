import type { HistoryEntry } from '../../../core/target-history.js'
import { historyRow } from '../../../platform/db/statements/target-history.js'

/**
 * The history rows of a settle written by the settle's own statement (Postgres, a post's only target): a
 * `history` CTE inserting one row per entry for the target the `settled` CTE updated, so the rows exist only
 * if the lease held and the update happened, and commit with it. Its parameters are numbered from `first`.
 */
export function historyCte(entries: readonly HistoryEntry[], at: number, first: number) {
  if (entries.length === 0) return { text: '', values: [] }
  const values: unknown[] = []
  const tuples = entries.map((entry) => {
    const row = historyRow('', at, entry)
    const n = first + values.length
    values.push(row.id, row.kind, row.result, row.sent, row.detail)
    return `($${n}::text, $${n + 1}::text, $${n + 2}::text, $${n + 3}::int, $${n + 4}::text)`
  })
  const text = `,
    history AS (
      INSERT INTO target_history (id, target_id, at, kind, result, sent, detail)
      SELECT h.id, settled.id, $${first + values.length}::bigint, h.kind, h.result, h.sent, h.detail
        FROM settled CROSS JOIN (VALUES ${tuples.join(', ')}) AS h(id, kind, result, sent, detail))`
  values.push(at)
  return { text, values }
}
