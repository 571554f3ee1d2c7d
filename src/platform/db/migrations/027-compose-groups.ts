import type { Kysely } from 'kysely'

/**
 * The posts one create_post made together (one per targeted profile) share `posts.compose_id`, so the
 * dashboard can show a compose as one row. Posts made before this migration keep null: each is read as its
 * own group (its compose is its own id). The index finds a compose's posts within a workspace.
 */
export function createComposeGroupsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('posts').addColumn('compose_id', 'varchar(24)').execute()
      await db.schema
        .createIndex('posts_workspace_compose')
        .on('posts')
        .columns(['workspace_id', 'compose_id'])
        .execute()
    },
  }
}
