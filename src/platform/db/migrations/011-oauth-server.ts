import type { Kysely } from 'kysely'

/**
 * Herald's own OAuth authorization server (docs/adr/0025-oauth-for-mcp-clients.md). `oauth_artifacts` is the
 * storage of the `oidc-provider` library (codes, tokens, grants, registered clients, interactions), keyed by
 * the SHA-256 of each artifact's id: an access or refresh token's id is the token itself, so the database
 * never holds one in clear. `oauth_grants` is Herald's side of a grant: the person, the workspace chosen on
 * the consent page, what the app is called, and when it was first and last used (the AI Integration page
 * lists these).
 */
export function createOAuthServerMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('oauth_artifacts')
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('id_hash', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text')
        .addColumn('uid', 'text')
        .addColumn('consumed_at', 'bigint')
        .addColumn('expires_at', 'bigint')
        .addPrimaryKeyConstraint('oauth_artifacts_pk', ['model', 'id_hash'])
        .execute()
      await db.schema.createIndex('oauth_artifacts_grant').on('oauth_artifacts').column('grant_id').execute()
      await db.schema
        .createIndex('oauth_artifacts_uid')
        .on('oauth_artifacts')
        .columns(['model', 'uid'])
        .execute()
      await db.schema
        .createIndex('oauth_artifacts_expiry')
        .on('oauth_artifacts')
        .column('expires_at')
        .execute()

      await db.schema
        .createTable('oauth_grants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('client_name', 'text', (c) => c.notNull())
        .addColumn('redirect_host', 'text', (c) => c.notNull())
        .addColumn('registered', 'integer', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('first_used_at', 'bigint')
        .addColumn('last_used_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .execute()
      await db.schema.createIndex('oauth_grants_user').on('oauth_grants').column('user_id').execute()
    },
  }
}
