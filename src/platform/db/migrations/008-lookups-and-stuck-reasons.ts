import { type Kysely, sql } from 'kysely'

/**
 * The worker's side of unknown outcomes: a target's lookups of an unknown outcome are counted on their own
 * (their own backoff and budget, apart from the send attempts), a stuck target says why it is stuck, and
 * claims find each workspace's earliest due target by an index.
 */
export function createLookupsAndStuckReasonsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      // Lookups made since the outcome became unknown (their backoff grows with it).
      await db.schema
        .alterTable('targets')
        .addColumn('lookups', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      // When the last lookup could not ask the network (null after one that answered).
      await db.schema.alterTable('targets').addColumn('lookup_failed_at', 'bigint').execute()
      // Why a target is stuck: one of the codes in src/core/post-status.ts (STUCK_REASONS).
      await db.schema.alterTable('targets').addColumn('stuck_reason', 'varchar(32)').execute()
      // Fair claims: each workspace's earliest claimable target in one seek (src/modules/delivery/sql/claim-parts.ts).
      await db.schema
        .createIndex('targets_claimable_by_workspace')
        .on('targets')
        .columns(['workspace_id', 'run_at'])
        .where(sql.ref('lease_owner'), 'is', null)
        .execute()
    },
  }
}
