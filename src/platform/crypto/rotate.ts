import { sql } from 'kysely'
import type { Db } from '../db/db.js'
import type { Vault } from './vault.js'

/**
 * `herald secrets rotate`: re-seals every vault ciphertext under the current key (HERALD_SECRET_KEY),
 * opening old ones with HERALD_OLD_SECRET_KEYS. Once it reports no failures, the old keys can be removed
 * from the configuration. Run it after the service restarted with the new key, so nothing seals under
 * the old key meanwhile. Each row is updated only if it still holds the ciphertext that was read, so a
 * token refreshed during the rotation is never overwritten with stale credentials.
 */

const PAGE = 500
const ATTEMPTS = 3

export interface RotationCounts {
  /** Rows holding a sealed value. */
  total: number
  /** Re-sealed under the current key now. */
  rotated: number
  /** Already under the current key. */
  current: number
  /** Could not be opened with any configured key (their ids are listed). */
  failed: number
  failedIds: string[]
}

export interface RotationReport {
  /** Id of the current key (first 8 hex of its SHA-256), as it appears in each ciphertext. */
  keyId: string
  connections: RotationCounts
  oauthStates: RotationCounts
  /** Connect grants waiting on the choose-profiles page. */
  pendingGrants: RotationCounts
  /** Webhook signing secrets (current and previous; an endpoint's id can be listed twice). */
  webhookSecrets: RotationCounts
  /** The secrets of the developer apps saved on the network apps page. */
  networkApps: RotationCounts
  /** The secrets of Herald's own app on each Mastodon instance. */
  mastodonApps: RotationCounts
}

/** One sealed column; each table's key is `id`. */
interface SealedColumn {
  table:
    | 'connections'
    | 'oauth_states'
    | 'pending_grants'
    | 'webhook_endpoints'
    | 'network_apps'
    | 'mastodon_instances'
  column: string
}

async function rotateColumn(db: Db, vault: Vault, column: SealedColumn, counts: RotationCounts) {
  const { table } = column
  const ref = sql.ref(column.column)
  const read = async (id: string) =>
    (
      await sql<{
        sealed: string | null
      }>`SELECT ${ref} AS sealed FROM ${sql.table(table)} WHERE id = ${id}`.execute(db)
    ).rows[0]?.sealed ?? undefined
  let after = ''
  for (;;) {
    const { rows } = await sql<{ id: string; sealed: string }>`
      SELECT id, ${ref} AS sealed FROM ${sql.table(table)}
      WHERE ${ref} IS NOT NULL AND id > ${after} ORDER BY id LIMIT ${PAGE}`.execute(db)
    if (rows.length === 0) return
    for (const row of rows) {
      counts.total++
      const at = { table, column: column.column, id: row.id }
      let sealed: string | undefined = row.sealed
      let outcome: 'rotated' | 'current' | 'failed' = 'failed'
      for (let attempt = 0; attempt < ATTEMPTS && sealed !== undefined; attempt++) {
        if (!vault.needsRotation(sealed)) {
          outcome = 'current'
          break
        }
        let plaintext: string
        try {
          // Bound to this row and column: a value copied here from elsewhere does not open, and is listed.
          plaintext = vault.open(at, sealed)
        } catch {
          outcome = 'failed'
          break
        }
        const swapped = await sql`
          UPDATE ${sql.table(table)} SET ${ref} = ${vault.seal(at, plaintext)}
          WHERE id = ${row.id} AND ${ref} = ${sealed}`.execute(db)
        if (Number(swapped.numAffectedRows) === 1) {
          outcome = 'rotated'
          break
        }
        // Changed under us (a token refresh): look again.
        sealed = await read(row.id)
        if (sealed === undefined) outcome = 'current'
      }
      if (outcome === 'failed') {
        counts.failed++
        counts.failedIds.push(row.id)
      } else counts[outcome]++
    }
    after = rows.at(-1)!.id
  }
}

const none = (): RotationCounts => ({ total: 0, rotated: 0, current: 0, failed: 0, failedIds: [] })

export async function rotateSecrets(db: Db, vault: Vault): Promise<RotationReport> {
  const report: RotationReport = {
    keyId: vault.currentKeyId,
    connections: none(),
    oauthStates: none(),
    pendingGrants: none(),
    webhookSecrets: none(),
    networkApps: none(),
    mastodonApps: none(),
  }
  await rotateColumn(db, vault, { table: 'connections', column: 'credentials' }, report.connections)
  await rotateColumn(db, vault, { table: 'oauth_states', column: 'code_verifier' }, report.oauthStates)
  await rotateColumn(db, vault, { table: 'pending_grants', column: 'sealed' }, report.pendingGrants)
  for (const column of ['secret', 'previous_secret'])
    await rotateColumn(db, vault, { table: 'webhook_endpoints', column }, report.webhookSecrets)
  await rotateColumn(db, vault, { table: 'network_apps', column: 'client_secret' }, report.networkApps)
  await rotateColumn(db, vault, { table: 'mastodon_instances', column: 'client_secret' }, report.mastodonApps)
  return report
}
