import type { Kysely } from 'kysely'

/** Who may refresh a connection's tokens right now, across processes (see src/modules/connections/credentials.ts). */
export function createRefreshLeaseMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('connections').addColumn('refreshing_until', 'bigint').execute()
    },
  }
}
