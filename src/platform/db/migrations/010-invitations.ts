import type { Kysely } from 'kysely'

/**
 * Invitations, so that joining a workspace is the person's own act: an owner no longer adds a person to a
 * workspace; they invite an e-mail, and the person with that e-mail joins only by accepting on their
 * dashboard. One open invitation per workspace and e-mail.
 */
export function createInvitationsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('invitations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('invited_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('invitations_workspace_email', ['workspace_id', 'email'])
        .execute()
      await db.schema.createIndex('invitations_by_email').on('invitations').column('email').execute()
    },
  }
}
