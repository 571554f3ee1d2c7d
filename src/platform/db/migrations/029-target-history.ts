import type { Kysely } from 'kysely'

/**
 * What happened to each target, one row per change that moved it on (an attempt's end, a lookup and what it
 * found, an interrupted send, a reset, a retry), written in the transaction of that change: the post's page
 * tells its history from these rows. Before this, a lookup left no trace once the next attempt overwrote the
 * target's error. Rows go with their target (a post deleted, a profile taken off a post). The one index
 * serves both the page's read (a post's targets, in order) and the cascade.
 */
export function createTargetHistoryMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('target_history')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('target_id', 'varchar(24)', (c) =>
          c.notNull().references('targets.id').onDelete('cascade'),
        )
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('result', 'varchar(16)', (c) => c.notNull())
        .addColumn('sent', 'integer')
        .addColumn('detail', 'text')
        .execute()
      await db.schema
        .createIndex('target_history_target')
        .on('target_history')
        .columns(['target_id', 'id'])
        .execute()
    },
  }
}
