import type { HistoryEntry } from '../../../core/target-history.js'
import type { TargetChanges } from '../../../core/target-lifecycle.js'
import type { EventType } from '../../../core/webhook-events.js'
import type { Store } from '../../../platform/db/db.js'
import { announceEvents, outboxWriteCtes } from '../../../platform/db/statements/events.js'
import { newId } from '../../../platform/ids.js'
import { historyCte } from './history-cte.js'
import { type OnlyTargetSettle, targetAssignments } from './target-assignments.js'

/** The events a settle of a post's only target writes: the target's own, and the post's when it settled. */
export interface OnlyTargetEvents {
  type: EventType
  stuckReason: string | undefined
  postEvent: EventType | undefined
}

/**
 * Postgres, a post's only target whose outcome reports events (published, failed, stuck): one statement
 * changes the target and its post and, when the workspace has an enabled endpoint, writes the events and
 * their deliveries, one round trip where a transaction took eight. The events hold a snapshot of the rows
 * as the statement left them (`events.snapshot`): their bodies need JavaScript (the tools' shapes), so the
 * delivery renders them from it (src/modules/outbox/settle-events.ts); the post's event refers to its target
 * event's snapshot rather than storing a second copy. Endpoints are read `FOR KEY SHARE`, so none
 * can be deleted before its deliveries are inserted. Returns false when nothing changed (the lease was lost).
 */
export async function settleOnlyTargetWithEvents(
  store: Store,
  input: OnlyTargetSettle,
  changes: TargetChanges,
  lastError: string | undefined,
  { type, stuckReason, postEvent }: OnlyTargetEvents,
  entries: readonly HistoryEntry[],
): Promise<boolean> {
  const { columns, values, delta, assignments } = targetAssignments(input, changes)
  const events = postEvent ? 2 : 1
  const n = columns.length
  const p = (i: number) => `$${n + i}`
  // The history's parameters follow the events' (the post event's two are last when there is one).
  const history = historyCte(entries, input.now, n + (events === 2 ? 10 : 8))
  const text = `
    WITH settled AS (
      UPDATE targets SET ${assignments}
       WHERE id = ${p(1)} AND lease_owner = ${p(2)}
      RETURNING *)${history.text},
    post AS (
      UPDATE posts SET
        status = CASE WHEN settled.status = 'pending' THEN posts.status ELSE settled.status END,
        published_at = settled.published_at,
        last_error = coalesce(${p(3)}::text, posts.last_error),
        updated_at = ${p(4)}
        FROM settled WHERE posts.id = settled.post_id
      RETURNING posts.*),
${outboxWriteCtes({
  workspaceId: '(SELECT workspace_id FROM settled)',
  events: `
        SELECT ev.id, settled.workspace_id, ev.type, settled.post_id AS order_key,
               CASE WHEN ev.n = 1 THEN json_build_object('target', row_to_json(settled), 'post', row_to_json(post),
                 'targetEvent', ${p(5)}::text, 'stuckReason', ${p(7)}::text)::text
               ELSE '@' || ${p(6)}::text END AS snapshot,
               ev.n
          FROM settled JOIN post ON post.id = settled.post_id
          CROSS JOIN (VALUES (${p(6)}::text, ${p(5)}::text, 1)${
            events === 2 ? `, (${p(9)}::text, ${p(8)}::text, 2)` : ''
          }) AS ev(id, type, n)`,
  now: p(4),
})}
    SELECT (SELECT count(*) FROM delivered) AS deliveries
      FROM settled JOIN post ON post.id = settled.post_id`
  const pool = store.pgPool as NonNullable<Store['pgPool']>
  const { rows } = await pool.query<{ deliveries: number }>({
    name: `herald_settle_events_${input.outcome.kind}_${columns.length}_${delta}_${events}_${entries.length}`,
    text,
    values: [
      ...values,
      input.targetId,
      input.workerId,
      lastError ?? null,
      input.now,
      type,
      newId(input.now),
      stuckReason ?? null,
      ...(postEvent ? [postEvent, newId(input.now)] : []),
      ...history.values,
    ],
  })
  const row = rows[0]
  if (!row) return false
  if (Number(row.deliveries) > 0) announceEvents()
  return true
}
