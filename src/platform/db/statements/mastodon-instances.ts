import type { Db } from '../db.js'
import type { MastodonInstancesTable } from '../schema.js'

/** The Mastodon instances table (migration 032): the SQL only; sealing and opening the secret is the caller's. */

export type MastodonInstanceRow = MastodonInstancesTable

export function readInstanceRow(db: Db, host: string): Promise<MastodonInstanceRow | undefined> {
  return db.selectFrom('mastodon_instances').selectAll().where('id', '=', host).executeTakeFirst()
}

/** The rows of these instances (for the limits their profiles are held to). */
export async function readInstanceRows(db: Db, hosts: readonly string[]): Promise<MastodonInstanceRow[]> {
  if (hosts.length === 0) return []
  return db
    .selectFrom('mastodon_instances')
    .selectAll()
    .where('id', 'in', [...new Set(hosts)])
    .execute()
}

/** The instances Herald is registered on, by host (for the network apps page). */
export function listRegisteredInstances(
  db: Db,
): Promise<Array<{ id: string; registered_at: number | null }>> {
  return db
    .selectFrom('mastodon_instances')
    .select(['id', 'registered_at'])
    .where('client_id', 'is not', null)
    .orderBy('id')
    .execute()
}

/** Records what was read of an instance, keeping Herald's registration there as it is. */
export async function saveInstanceInfo(db: Db, host: string, info: string, now: number): Promise<void> {
  await db
    .insertInto('mastodon_instances')
    .values({ id: host, info, info_read_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ info, info_read_at: now }))
    .execute()
}

/** Records Herald's registration on an instance (its secret already sealed for this row). */
export async function saveInstanceApp(
  db: Db,
  host: string,
  app: { clientId: string; sealedSecret: string; redirectUri: string; scopes: string },
  now: number,
): Promise<void> {
  await db
    .updateTable('mastodon_instances')
    .set({
      client_id: app.clientId,
      client_secret: app.sealedSecret,
      redirect_uri: app.redirectUri,
      scopes: app.scopes,
      registered_at: now,
    })
    .where('id', '=', host)
    .execute()
}

/**
 * Forgets Herald's registration on an instance that no longer knows it, only while it is still the one
 * that failed (`clientId`): a registration another process made since is kept.
 */
export async function forgetInstanceApp(db: Db, host: string, clientId: string): Promise<void> {
  await db
    .updateTable('mastodon_instances')
    .set({ client_id: null, client_secret: null, redirect_uri: null, scopes: null, registered_at: null })
    .where('id', '=', host)
    .where('client_id', '=', clientId)
    .execute()
}
