import { sql } from 'kysely'
import type { Store } from './db.js'
import { writeTransaction } from './write-transaction.js'

/** The smallest id made in the second that starts at `ms` (ids begin with their second, src/lib/ids.ts). */
const firstIdOf = (ms: number) =>
  `${Math.floor(ms / 1000)
    .toString(16)
    .padStart(8, '0')}${'0'.repeat(16)}`

export interface PrunedHistory {
  deliveries: number
  events: number
}

/**
 * Deletes the webhook history older than `before`, `batch` rows per transaction so no sweep holds the
 * write lock for long: deliveries that are over (delivered, given up) and whose last attempt came before
 * it, with their attempts; then the events left with no delivery at all. Nothing still to be delivered
 * goes: a pending delivery and its event stay, as does the event whose snapshot a kept event's body is
 * rendered from (`@id`, src/worker/settle-events.ts). Ids are time-ordered, so each batch reads the oldest
 * rows through the primary key instead of the whole table.
 */
export async function pruneWebhookHistory(
  store: Store,
  input: { before: number; batch?: number },
): Promise<PrunedHistory> {
  const cutoff = Math.floor(input.before / 1000) * 1000
  const bound = firstIdOf(cutoff)
  const batch = input.batch ?? 1_000
  const pruned: PrunedHistory = { deliveries: 0, events: 0 }

  for (;;) {
    const deleted = await writeTransaction(store, async (tx) => {
      const result = await tx
        .deleteFrom('webhook_deliveries')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('id', '<', bound)
            .where('status', '<>', 'pending')
            // A settled delivery's next_attempt_at is the time of its last attempt.
            .where('next_attempt_at', '<', cutoff)
            .orderBy('id')
            .limit(batch),
        )
        // Again on the rows themselves: on Postgres a redelivery that re-armed one after the list was read
        // is checked here against the row it committed, and stays.
        .where('status', '<>', 'pending')
        .where('next_attempt_at', '<', cutoff)
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
    pruned.deliveries += deleted
    if (deleted < batch) break
  }

  for (;;) {
    const deleted = await writeTransaction(store, async (tx) => {
      const result = await sql`
        DELETE FROM events WHERE seq IN (
          SELECT e.seq FROM events e
           WHERE e.id < ${bound} AND e.created_at < ${cutoff} AND e.fanned_out = 1
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
             AND e.id NOT IN (
               SELECT substr(r.snapshot, 2) FROM webhook_deliveries d JOIN events r ON r.id = d.event_id
                WHERE d.event_id < ${bound} AND r.snapshot LIKE '@%')
           ORDER BY e.seq
           LIMIT ${batch})`.execute(tx)
      return Number(result.numAffectedRows ?? 0)
    })
    pruned.events += deleted
    if (deleted < batch) break
  }
  return pruned
}
