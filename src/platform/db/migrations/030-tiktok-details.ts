import type { Kysely } from 'kysely'

/**
 * What a TikTok poster chose for a post (privacy level, interaction switches, commercial content
 * disclosure, draft or not), kept as JSON beside YouTube's details: `posts.tiktok` as given, and
 * `targets.tiktok` as the target sends it. Null for every other network and for every post made before.
 */
export function createTikTokDetailsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('posts').addColumn('tiktok', 'text').execute()
      await db.schema.alterTable('targets').addColumn('tiktok', 'text').execute()
    },
  }
}
