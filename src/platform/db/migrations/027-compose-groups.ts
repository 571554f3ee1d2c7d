import { type Kysely, sql } from 'kysely'

/**
 * The posts one create_post made together (one per targeted profile) share `posts.compose_id`, so the
 * dashboard can show a compose as one row. A post made before this migration is its own compose: its
 * compose id is set to its own id here, so every row has one and the list walks the index
 * (workspace_id, compose_id) newest first without grouping the whole workspace. The column stays nullable
 * (adding a NOT NULL column to a filled table needs a default, and there is none); readers treat null as
 * the post's own id all the same.
 */
export function createComposeGroupsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('posts').addColumn('compose_id', 'varchar(24)').execute()
      await sql`UPDATE posts SET compose_id = id WHERE compose_id IS NULL`.execute(db)
      await db.schema
        .createIndex('posts_workspace_compose')
        .on('posts')
        .columns(['workspace_id', 'compose_id'])
        .execute()
    },
  }
}
