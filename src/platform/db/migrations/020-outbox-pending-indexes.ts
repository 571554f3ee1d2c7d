import { type Kysely, sql } from 'kysely'

/**
 * The outbox's indexes hold only what its readers look for: events not yet fanned out, and deliveries
 * still pending (the claim and its "no earlier pending event of this post" check). Before, every event and
 * every delivered delivery stayed in them for good, and each write added entries no query would read.
 * `events_workspace` goes: no query reads events by workspace.
 */
export function createOutboxPendingIndexesMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('events_fan_out').execute()
      await db.schema
        .createIndex('events_fan_out')
        .on('events')
        .column('seq')
        .where(sql<boolean>`fanned_out = 0`)
        .execute()
      await db.schema.dropIndex('events_workspace').execute()
      const pending = sql<boolean>`status = 'pending'`
      await db.schema.dropIndex('webhook_deliveries_claim').execute()
      await db.schema
        .createIndex('webhook_deliveries_claim')
        .on('webhook_deliveries')
        .column('event_seq')
        .where(pending)
        .execute()
      await db.schema.dropIndex('webhook_deliveries_order').execute()
      await db.schema
        .createIndex('webhook_deliveries_order')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'order_key', 'event_seq'])
        .where(pending)
        .execute()
    },
  }
}
