import type { Kysely } from 'kysely'

/**
 * What a Google Business Profile post is besides its copy and photo (an update, an event or an offer, and
 * its button), as JSON: on the post as the request gave it, and on a googlebusiness target as it goes out
 * (the type filled in). Null on every other network, as `youtube` is on every network but YouTube.
 */
export function createGoogleBusinessDetailsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('posts').addColumn('googlebusiness', 'text').execute()
      await db.schema.alterTable('targets').addColumn('googlebusiness', 'text').execute()
    },
  }
}
