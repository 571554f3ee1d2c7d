import type { Kysely } from 'kysely'

/**
 * The developer apps saved on the network apps page, one row per network (`id` is the network: twitter,
 * youtube, facebook, instagram, threads, linkedin). The client id is not a secret (it travels in every
 * authorize URL); the secret is a vault ciphertext bound to this row and column, as every stored secret is.
 * `options` holds what else the app was registered with (JSON; LinkedIn's Community Management product).
 */
export function createNetworkAppsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('network_apps')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('client_secret', 'text')
        .addColumn('options', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('updated_by', 'varchar(24)')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute()
    },
  }
}
