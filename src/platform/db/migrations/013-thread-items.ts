import type { Kysely } from 'kysely'

/**
 * Threads of posts and first comments. `targets.items` holds, per target, the items delivered
 * after its post (JSON list: copy, media, status, remote id, URL, error, when the call was about to be
 * made), written only by the worker holding the target's lease, item by item. `posts.items` keeps the
 * thread and first comment as the request gave them for the post's profile, for profiles added later.
 */
export function createThreadItemsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('targets').addColumn('items', 'text').execute()
      await db.schema.alterTable('posts').addColumn('items', 'text').execute()
    },
  }
}
