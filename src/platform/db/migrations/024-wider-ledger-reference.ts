import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Two columns Postgres held to a length their values can pass: a charge's reference lists every post a
 * create_post made (25 characters each, so a ninth profile overflowed 200 and the call failed), and a
 * worker id is the host name (up to 64 characters) with the process id and a suffix. SQLite does not
 * enforce a declared length, so there is nothing to change there.
 */
export function createWiderLedgerReferenceMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return
      await db.schema
        .alterTable('credit_ledger')
        .alterColumn('reference', (column) => column.setDataType('text'))
        .execute()
      await db.schema
        .alterTable('targets')
        .alterColumn('lease_owner', (column) => column.setDataType('varchar(200)'))
        .execute()
    },
  }
}
