import type { Kysely } from 'kysely'

/**
 * A pin's title, link and video cover (the `pinterest` object of create_post and update_post): kept as
 * given on the post, and as resolved for its profile on the target (what the worker sends), as JSON, null
 * for every other network. The same shape as the `youtube` columns beside them.
 */
export function createPinterestDetailsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('posts').addColumn('pinterest', 'text').execute()
      await db.schema.alterTable('targets').addColumn('pinterest', 'text').execute()
    },
  }
}
