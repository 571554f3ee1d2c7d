import type { Kysely } from 'kysely'

/**
 * A grant that reaches several profiles, waiting for its person to choose which to connect on the
 * choose-profiles page. The profiles and their tokens are sealed by the vault; the row is single-use and
 * short-lived.
 */
export function createPendingGrantsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('pending_grants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
    },
  }
}
