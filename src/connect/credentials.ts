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
  try {
    const refreshed = await adapter.refresh(credentials)
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
