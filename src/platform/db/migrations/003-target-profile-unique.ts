import type { Kysely } from 'kysely'

/**
 * A profile appears at most once in a post: the database itself refuses a second target for the same
 * connection, so no interleaving of update_post calls can make a profile receive a post twice.
 */
export function createTargetProfileUniqueMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('targets_post_connection_unique')
        .on('targets')
        .columns(['post_id', 'connection_id'])
        .unique()
        .execute()
    },
  }
}
