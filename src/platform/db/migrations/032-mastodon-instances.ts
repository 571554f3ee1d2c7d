import type { Kysely } from 'kysely'

/**
 * Mastodon, any instance. `mastodon_instances` holds, per instance (`id` is its host), what Herald read of it
 * (`info`: its name, version, limits and OAuth endpoints, JSON, and when it was read) and Herald's own
 * registration there: the client id, the client secret as a vault ciphertext bound to this row and column,
 * the callback and scopes it was registered with. An OAuth state names the instance its flow runs against
 * (`oauth_states.instance`). A post and its Mastodon targets keep the `mastodon` object as given (JSON:
 * visibility, content warning, language), as they keep `youtube`.
 */
export function createMastodonInstancesMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('mastodon_instances')
        .addColumn('id', 'varchar(260)', (c) => c.primaryKey())
        .addColumn('info', 'text', (c) => c.notNull())
        .addColumn('info_read_at', 'bigint', (c) => c.notNull())
        .addColumn('client_id', 'text')
        .addColumn('client_secret', 'text')
        .addColumn('redirect_uri', 'text')
        .addColumn('scopes', 'text')
        .addColumn('registered_at', 'bigint')
        .execute()
      await db.schema.alterTable('oauth_states').addColumn('instance', 'varchar(260)').execute()
      await db.schema.alterTable('posts').addColumn('mastodon', 'text').execute()
      await db.schema.alterTable('targets').addColumn('mastodon', 'text').execute()
    },
  }
}
