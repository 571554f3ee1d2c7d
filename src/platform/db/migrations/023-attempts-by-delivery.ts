import type { Kysely } from 'kysely'

/**
 * The attempts of one delivery, found by index: deleting a delivery (the retention sweep, or an endpoint's
 * removal) cascades to its attempts, and without this index each deleted delivery read the whole attempt
 * log to find them.
 */
export function createAttemptsByDeliveryMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('webhook_attempts_delivery')
        .on('webhook_attempts')
        .column('delivery_id')
        .execute()
    },
  }
}
