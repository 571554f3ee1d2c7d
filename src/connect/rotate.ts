import type { Db } from '../store/db.js'
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
}

/** One sealed column: how to page through it and swap one value for another. */
interface SealedColumn {
  page(afterId: string): Promise<Array<{ id: string; sealed: string }>>
  read(id: string): Promise<string | undefined>
  /** Replaces `from` with `to`; false when the row no longer holds `from`. */
  swap(id: string, from: string, to: string): Promise<boolean>
}

async function rotateColumn(vault: Vault, column: SealedColumn): Promise<RotationCounts> {
  const counts: RotationCounts = { total: 0, rotated: 0, current: 0, failed: 0, failedIds: [] }
  let after = ''
  for (;;) {
    const rows = await column.page(after)
    if (rows.length === 0) return counts
    for (const row of rows) {
      counts.total++
      let sealed: string | undefined = row.sealed
      let outcome: 'rotated' | 'current' | 'failed' = 'failed'
      for (let attempt = 0; attempt < ATTEMPTS && sealed !== undefined; attempt++) {
        if (!vault.needsRotation(sealed)) {
          outcome = 'current'
          break
        }
        let plaintext: string
        try {
          plaintext = vault.open(sealed)
        } catch {
          outcome = 'failed'
          break
        }
        if (await column.swap(row.id, sealed, vault.seal(plaintext))) {
          outcome = 'rotated'
          break
        }
        // Changed under us (a token refresh): look again.
        sealed = await column.read(row.id)
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

export async function rotateSecrets(db: Db, vault: Vault): Promise<RotationReport> {
  const connections = await rotateColumn(vault, {
    page: async (afterId) =>
      (
        await db
          .selectFrom('connections')
          .select(['id', 'credentials'])
          .where('id', '>', afterId)
          .orderBy('id')
          .limit(PAGE)
          .execute()
      ).map((row) => ({ id: row.id, sealed: row.credentials })),
    read: async (id) =>
      (await db.selectFrom('connections').select('credentials').where('id', '=', id).executeTakeFirst())
        ?.credentials,
    swap: async (id, from, to) => {
      const result = await db
        .updateTable('connections')
        .set({ credentials: to })
        .where('id', '=', id)
        .where('credentials', '=', from)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
  })
  const oauthStates = await rotateColumn(vault, {
    page: async (afterId) =>
      (
        await db
          .selectFrom('oauth_states')
          .select(['id', 'code_verifier'])
          .where('id', '>', afterId)
          .orderBy('id')
          .limit(PAGE)
          .execute()
      ).map((row) => ({ id: row.id, sealed: row.code_verifier })),
    read: async (id) =>
      (await db.selectFrom('oauth_states').select('code_verifier').where('id', '=', id).executeTakeFirst())
        ?.code_verifier,
    swap: async (id, from, to) => {
      const result = await db
        .updateTable('oauth_states')
        .set({ code_verifier: to })
        .where('id', '=', id)
        .where('code_verifier', '=', from)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
  })
  return { keyId: vault.currentKeyId, connections, oauthStates }
}
