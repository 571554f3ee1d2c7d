import { type Kysely, sql } from 'kysely'

/**
 * Every vault ciphertext is bound to its table, column and row (AES-GCM associated data, format `v2`), so a
 * value copied into another row or column no longer opens there. This migration re-seals each stored `v1`
 * value (bound to nothing) in place, bound to where it is; afterwards the vault refuses `v1`. It needs the
 * vault key, so the store is opened with the vault (`createAppContext`); opened without it, the migration
 * succeeds only when nothing needs re-sealing (a new database) and otherwise fails, unrecorded, to run again
 * when a process with the key starts. Each row is rewritten only if it still holds the value read, so two
 * processes migrating one SQLite file at once (SQLite has no migration lock) re-seal each value once. A value
 * no configured key opens stays as it is (it was unreadable already; `secrets rotate` lists it). Migration
 * number 017.
 */

/** What the migration needs of the vault (src/platform/crypto/vault.ts). */
export interface Binder {
  bind(at: { table: string; column: string; id: string }, unbound: string): string
}

/** The sealed columns as of this migration; each table's key is `id`. */
export const SEALED_COLUMNS_017 = [
  { table: 'connections', column: 'credentials' },
  { table: 'oauth_states', column: 'code_verifier' },
  { table: 'pending_grants', column: 'sealed' },
  { table: 'webhook_endpoints', column: 'secret' },
  { table: 'webhook_endpoints', column: 'previous_secret' },
] as const

const PAGE = 500

/** Unbound values exist and the store was opened without the vault: not a race, so not retried. */
export class VaultKeyNeeded extends Error {
  override name = 'VaultKeyNeeded'
}

export function createBoundSecretsMigration(binder: Binder | undefined) {
  return {
    async up(db: Kysely<unknown>) {
      for (const { table, column } of SEALED_COLUMNS_017) {
        let after = ''
        for (;;) {
          const { rows } = await sql<{ id: string; value: string }>`
            SELECT id, ${sql.ref(column)} AS value FROM ${sql.table(table)}
            WHERE ${sql.ref(column)} LIKE 'v1.%' AND id > ${after}
            ORDER BY id LIMIT ${PAGE}`.execute(db)
          if (rows.length === 0) break
          if (!binder)
            throw new VaultKeyNeeded(
              `Migration 017 re-seals the vault's stored values and needs the vault key (${table}.${column} holds unbound values); start Herald (herald api, herald worker) to run it`,
            )
          for (const row of rows) {
            let bound: string
            try {
              bound = binder.bind({ table, column, id: row.id }, row.value)
            } catch {
              // Sealed under a key that is not configured (or damaged): unreadable before and after; it
              // stays as it is, and the vault refuses it like any unbound value.
              continue
            }
            await sql`
              UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${bound}
              WHERE id = ${row.id} AND ${sql.ref(column)} = ${row.value}`.execute(db)
          }
          after = rows.at(-1)!.id
        }
      }
    },
  }
}
