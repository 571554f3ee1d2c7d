import { type Kysely, sql } from 'kysely'

/**
 * The delivery loop looks for pending deliveries that are due. Keyed by event order, the old index made
 * every look read every pending delivery, including those waiting hours for a retry: with a receiver down,
 * each poll grew with the backlog. Keyed by when they are due, a look reads only what is due now (the
 * claim then sorts those few by event order).
 */
export function createDeliveriesDueIndexMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('webhook_deliveries_claim').execute()
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .column('next_attempt_at')
        .where(sql<boolean>`status = 'pending'`)
        .execute()
    },
  }
}
