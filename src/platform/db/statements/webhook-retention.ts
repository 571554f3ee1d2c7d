import { sql } from 'kysely'
import type { Store } from '../db.js'
import { writeTransaction } from '../write-transaction.js'

/** The smallest id made in the second that starts at `ms` (ids begin with their second, src/platform/ids.ts). */
const firstIdOf = (ms: number) =>
  `${Math.floor(ms / 1000)
    .toString(16)
    .padStart(8, '0')}${'0'.repeat(16)}`

export interface PrunedHistory {
  deliveries: number
  events: number
}

/**
 * Deletes the webhook history older than `before`: deliveries that are over (delivered, given up) and
 * whose last attempt came before it, with their attempts; then the events left with no delivery at all.
 * Nothing still to be delivered goes: a pending delivery and its event stay, as does the event whose
 * snapshot a kept event's body is rendered from (`@id`, src/modules/outbox/settle-events.ts). Ids are time-ordered: each transaction reads the next `batch` rows
 * before the cutoff through the primary key, after the last one it read, so a sweep reads each old row
 * once, kept ones included, and no transaction holds the write lock for long.
 */
export async function pruneWebhookHistory(
  store: Store,
  input: { before: number; batch?: number },
): Promise<PrunedHistory> {
  const cutoff = Math.floor(input.before / 1000) * 1000
  const bound = firstIdOf(cutoff)
  const batch = input.batch ?? 1_000
  const pruned: PrunedHistory = { deliveries: 0, events: 0 }

  let after = ''
  for (;;) {
    const page = await writeTransaction(store, async (tx) => {
      const rows = await tx
        .selectFrom('webhook_deliveries')
        .select(['id', 'status', 'next_attempt_at'])
        .where('id', '>', after)
        .where('id', '<', bound)
        .orderBy('id')
        .limit(batch)
        .execute()
      // A settled delivery's next_attempt_at is the time of its last attempt.
      const over = rows.filter((r) => r.status !== 'pending' && Number(r.next_attempt_at) < cutoff)
      if (over.length === 0) return { read: rows, deleted: 0 }
      const result = await tx
        .deleteFrom('webhook_deliveries')
        .where(
          'id',
          'in',
          over.map((r) => r.id),
        )
        // Again on the rows themselves: on Postgres a redelivery that re-armed one after it was read is
        // checked here against the row it committed, and stays.
        .where('status', '<>', 'pending')
        .where('next_attempt_at', '<', cutoff)
        .executeTakeFirst()
      return { read: rows, deleted: Number(result.numDeletedRows) }
    })
    pruned.deliveries += page.deleted
    if (page.read.length < batch) break
    after = page.read[page.read.length - 1]!.id
  }

  // Old events that stay (a delivery is left, or not fanned out yet) and render from another event's
  // snapshot: that one stays too. Read once: no old event gains a delivery or a reference during the sweep
  // (a redelivery needs a delivery still there, and both events of a settle are written together).
  const { rows: references } = await sql<{ source: string }>`
    SELECT substr(r.snapshot, 2) AS source FROM events r
     WHERE r.id < ${bound} AND r.snapshot LIKE '@%'
       AND (r.fanned_out = 0 OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = r.id))`.execute(
    store.db,
  )
  const referenced = new Set(references.map((r) => r.source))

  after = ''
  for (;;) {
    const page = await writeTransaction(store, async (tx) => {
      const rows = await tx
        .selectFrom('events')
        .select(['id', 'fanned_out'])
        .where('id', '>', after)
        .where('id', '<', bound)
        .orderBy('id')
        .limit(batch)
        .execute()
      if (rows.length === 0) return { read: rows, deleted: 0 }
      const delivered = await tx
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .where(
          'event_id',
          'in',
          rows.map((r) => r.id),
        )
        .execute()
      const kept = new Set(delivered.map((d) => d.event_id))
      const gone = rows
        .filter((r) => Number(r.fanned_out) === 1 && !kept.has(r.id) && !referenced.has(r.id))
        .map((r) => r.id)
      if (gone.length === 0) return { read: rows, deleted: 0 }
      // Again on the rows themselves: an event that gained a delivery since the read stays.
      const result = await tx
        .deleteFrom('events')
        .where('id', 'in', gone)
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'events.id'),
            ),
          ),
        )
        .executeTakeFirst()
      return { read: rows, deleted: Number(result.numDeletedRows) }
    })
    pruned.events += page.deleted
    if (page.read.length < batch) break
    after = page.read[page.read.length - 1]!.id
  }
  return pruned
}
