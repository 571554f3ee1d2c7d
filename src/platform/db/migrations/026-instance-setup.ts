import { type Kysely, sql } from 'kysely'

/**
 * A fresh instance is set up in the browser: the first person becomes its administrator (`users.is_admin`;
 * on an existing instance, the longest-standing person is), the one-time setup codes printed at start are
 * kept as SHA-256 hashes (`setup_codes`, so any process serving the dashboard accepts a code another one
 * printed), and a workspace's onboarding checklist is closed once (`workspaces.onboarding_closed_at`;
 * workspaces that already hold a post are not new, so theirs starts closed).
 */
export function createInstanceSetupMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('users')
        .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      await sql`UPDATE users SET is_admin = 1 WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)`.execute(
        db,
      )
      await db.schema
        .createTable('setup_codes')
        .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.alterTable('workspaces').addColumn('onboarding_closed_at', 'bigint').execute()
      await sql`UPDATE workspaces SET onboarding_closed_at = created_at WHERE EXISTS (SELECT 1 FROM posts WHERE posts.workspace_id = workspaces.id)`.execute(
        db,
      )
    },
  }
}
