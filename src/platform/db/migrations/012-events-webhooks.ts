import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Events and signed webhooks: the outbox of events (written in the transaction of the change it
 * reports), the endpoints an owner subscribes, one delivery row per (event, endpoint) that the worker
 * claims with a lease, and the log of every attempt. One file for the whole feature (migration number 012).
 */
export function createEventsWebhooksMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      // `seq` orders events as they committed for one post (its writers hold the post's lock), so the
      // deliveries of one post reach an endpoint in causal order.
      // credits.low: the balance under which the owner is told (null: never).
      await db.schema.alterTable('workspaces').addColumn('credits_low_threshold', 'bigint').execute()

      let events = db.schema.createTable('events')
      events =
        dialect === 'postgres'
          ? events.addColumn('seq', 'bigserial', (c) => c.primaryKey())
          : events.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
      await events
        .addColumn('id', 'varchar(24)', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('type', 'varchar(64)', (c) => c.notNull())
        .addColumn('order_key', 'varchar(64)')
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('fanned_out', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('events_fan_out').on('events').columns(['fanned_out', 'seq']).execute()
      await db.schema.createIndex('events_workspace').on('events').columns(['workspace_id', 'seq']).execute()

      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) =>
          c.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('event_types', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', 'bigint')
        .addColumn('failing_since', 'bigint')
        .addColumn('disabled_reason', 'text')
        .addColumn('disabled_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('webhook_endpoints_workspace')
        .on('webhook_endpoints')
        .column('workspace_id')
        .execute()

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('event_seq', 'bigint', (c) => c.notNull())
        .addColumn('event_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('endpoint_id', 'varchar(24)', (c) =>
          c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
        )
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('order_key', 'varchar(64)')
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_owner', 'varchar(128)')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('delivered_at', 'bigint')
        .addUniqueConstraint('webhook_deliveries_event_endpoint', ['event_id', 'endpoint_id'])
        .execute()
      // The claim: pending deliveries due now, and the "no earlier pending event of this post" check.
      // The claim walks pending deliveries in event order and stops at its limit.
      await db.schema
        .createIndex('webhook_deliveries_claim')
        .on('webhook_deliveries')
        .columns(['status', 'event_seq'])
        .execute()
      await db.schema
        .createIndex('webhook_deliveries_order')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'order_key', 'status', 'event_seq'])
        .execute()

      await db.schema
        .createTable('webhook_attempts')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('delivery_id', 'varchar(24)', (c) =>
          c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
        )
        .addColumn('endpoint_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('event_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('event_type', 'varchar(64)', (c) => c.notNull())
        .addColumn('attempted_at', 'bigint', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
        .addColumn('response_excerpt', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('webhook_attempts_endpoint')
        .on('webhook_attempts')
        .columns(['endpoint_id', 'attempted_at'])
        .execute()
    },
  }
}
