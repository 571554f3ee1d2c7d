import type { Credentials, NetworkAdapter } from '../networks/adapter.js'
import { PublishFailure } from '../networks/adapter.js'
import { type ConnectionRow, markNeedsReconnect } from '../store/connections.js'
import type { Db } from '../store/db.js'
import type { Vault } from './vault.js'

/** Access tokens this close to expiry are refreshed before use. */
export const REFRESH_MARGIN_MS = 5 * 60_000

export interface CredentialDeps {
  db: Db
  vault: Vault
  now(): number
}

export function openCredentials(vault: Vault, connection: ConnectionRow): Credentials {
  return vault.openJson<Credentials>(connection.credentials)
}

export async function saveCredentials(deps: CredentialDeps, connectionId: string, credentials: Credentials) {
  await deps.db
    .updateTable('connections')
    .set({
      credentials: deps.vault.sealJson(credentials),
      token_expires_at: credentials.expiresAt ?? null,
      updated_at: deps.now(),
    })
    .where('id', '=', connectionId)
    .execute()
}

/** One refresh per connection at a time in this process: X rotates refresh tokens, so a second concurrent
 * refresh with the same token would be refused and wrongly mark the connection for reconnecting. */
const refreshing = new Map<string, Promise<Credentials>>()

/**
 * The connection's credentials, refreshed first when they expire within {@link REFRESH_MARGIN_MS} (or when
 * `force` says the network just refused them). A refused refresh marks the connection `needs_reconnect`
 * with the reason and rethrows, so the caller fails the target with an auth error.
 */
export async function usableCredentials(
  deps: CredentialDeps,
  adapter: NetworkAdapter,
  connection: ConnectionRow,
  options: { force?: boolean } = {},
): Promise<Credentials> {
  const credentials = openCredentials(deps.vault, connection)
  const expiring =
    credentials.expiresAt !== undefined && credentials.expiresAt - deps.now() < REFRESH_MARGIN_MS
  if (!options.force && !expiring) return credentials
  if (!credentials.refreshToken) {
    if (options.force || (credentials.expiresAt ?? Number.POSITIVE_INFINITY) <= deps.now()) {
      const reason = `The ${connection.platform} token expired and there is no refresh token; reconnect the profile`
      await markNeedsReconnect(deps.db, connection.id, reason, deps.now())
      throw new PublishFailure('auth_expired', reason)
    }
    return credentials
  }
  const running = refreshing.get(connection.id)
  if (running) return running
  const refresh = refreshOnce(deps, adapter, connection, credentials).finally(() =>
    refreshing.delete(connection.id),
  )
  refreshing.set(connection.id, refresh)
  return refresh
}

async function refreshOnce(
  deps: CredentialDeps,
  adapter: NetworkAdapter,
  connection: ConnectionRow,
  seen: Credentials,
) {
  // Another process may have refreshed since this row was read: use its tokens instead of spending ours.
  const latest = await deps.db
    .selectFrom('connections')
    .select('credentials')
    .where('id', '=', connection.id)
    .executeTakeFirst()
  if (latest && latest.credentials !== connection.credentials) {
    const current = deps.vault.openJson<Credentials>(latest.credentials)
    if (
      current.refreshToken !== seen.refreshToken &&
      (current.expiresAt ?? Number.POSITIVE_INFINITY) - deps.now() >= REFRESH_MARGIN_MS
    ) {
      return current
    }
  }
  try {
    const refreshed = await adapter.refresh(seen)
    await saveCredentials(deps, connection.id, refreshed)
    return refreshed
  } catch (error) {
    if (error instanceof PublishFailure && error.kind === 'auth_expired') {
      await markNeedsReconnect(
        deps.db,
        connection.id,
        `Refreshing the ${connection.platform} token was refused: ${error.message}`,
        deps.now(),
      )
    }
    throw error
  }
}
