import { type Kysely, sql } from 'kysely'

/**
 * Hosted media with a lifetime: when each file was last used (the retention counts from there), and which
 * target used which hosted copy (a copy stays while such a target is pending). The sweep reads both.
 */
export function createMediaLifetimeMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('media')
        .addColumn('last_used_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute()
      await sql`UPDATE media SET last_used_at = created_at`.execute(db)
      await db.schema.createIndex('media_last_used_at').on('media').column('last_used_at').execute()
      await db.schema
        .createTable('media_uses')
        .addColumn('media_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('target_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('used_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('media_uses_pk', ['media_id', 'target_id'])
        .execute()
    },
  }
}
