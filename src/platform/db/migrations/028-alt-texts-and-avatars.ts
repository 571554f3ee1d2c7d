import type { Kysely } from 'kysely'

/**
 * Alt text per image (docs/adr/0049-alt-text-keyed-by-media-url.md): a post keeps the alt texts that apply
 * to its media as JSON keyed by media URL (`posts.media_alt_texts`), and each target the ones it sends
 * (`targets.media_alt_texts`), frozen with its media while its outcome is in doubt. Profile pictures
 * (docs/adr/0050-profile-pictures-kept-by-herald.md): a connection names the hosted copy of its picture
 * (`connections.avatar_media_id`). Null means none, which is what every older row has.
 */
export function createAltTextsAndAvatarsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('posts').addColumn('media_alt_texts', 'text').execute()
      await db.schema.alterTable('targets').addColumn('media_alt_texts', 'text').execute()
      await db.schema.alterTable('connections').addColumn('avatar_media_id', 'varchar(64)').execute()
    },
  }
}
