import type { Db, Store } from '../db.js'
import type { NetworkAppsTable } from '../schema.js'
import { writeTransaction } from '../write-transaction.js'

/** The network apps table (migration 025): the SQL only; sealing and opening the secret is the caller's. */

export type NetworkAppRow = NetworkAppsTable

export function listNetworkAppRows(db: Db): Promise<NetworkAppRow[]> {
  return db.selectFrom('network_apps').selectAll().orderBy('id').execute()
}

/** What a save does with the secret: a new sealed one, or the one already stored. */
export type SecretChange = { kind: 'new'; sealed: string } | { kind: 'keep' }

export interface NetworkAppWrite {
  id: string
  clientId: string
  secret: SecretChange
  /** Whether this network's apps always have a secret (every network's but X's). */
  secretRequired: boolean
  options: string
  updatedBy: string
  now: number
}

/**
 * Saves a network's app. `keep` keeps the stored secret only while the client id stays the same: a secret
 * belongs to its app, so another id with the old secret would be refused by the network at the first sign-in.
 * Decided on the row as it is locked: `secret_needed` (nothing written) when the secret would be missing
 * for a network whose apps always have one.
 */
export async function writeNetworkApp(
  store: Store,
  input: NetworkAppWrite,
): Promise<'saved' | 'secret_needed'> {
  return writeTransaction(store, async (tx) => {
    let query = tx.selectFrom('network_apps').selectAll().where('id', '=', input.id)
    if (store.dialect === 'postgres') query = query.forUpdate()
    const current = await query.executeTakeFirst()
    const secret =
      input.secret.kind === 'new'
        ? input.secret.sealed
        : input.secret.kind === 'keep' && current?.client_id === input.clientId
          ? current.client_secret
          : null
    if (secret === null && input.secretRequired) return 'secret_needed'
    const values = {
      client_id: input.clientId,
      client_secret: secret,
      options: input.options,
      updated_by: input.updatedBy,
      updated_at: input.now,
    }
    await tx
      .insertInto('network_apps')
      .values({ id: input.id, ...values })
      .onConflict((oc) => oc.column('id').doUpdateSet(values))
      .execute()
    return 'saved'
  })
}

/** Removes a network's app; false when there was none. */
export async function deleteNetworkApp(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('network_apps').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
