import type { Credentials, NetworkAdapter } from '../../adapters/adapter.js'
import { PublishFailure } from '../../adapters/adapter.js'
import {
  type ConnectionRow,
  findConnection,
  markNeedsReconnect,
} from '../../platform/db/statements/connections.js'
import { type CredentialDeps, usableCredentials } from './credentials.js'

/**
 * Runs one network call with a connection's credentials under the rules publishing follows: the token
 * is refreshed before it expires, and once more when the network answers `auth_expired`; when that
 * refresh is refused, or the call is refused again with fresh tokens, the connection is marked
 * `needs_reconnect` with the reason and the failure is rethrown. A connection already needing
 * reconnection is not called at all.
 */
export async function callWithCredentials<T>(
  deps: CredentialDeps,
  adapter: NetworkAdapter,
  connection: ConnectionRow,
  call: (credentials: Credentials) => Promise<T>,
): Promise<T> {
  if (connection.status !== 'active') {
    throw new PublishFailure(
      'auth_expired',
      connection.status === 'removed'
        ? `The ${connection.platform} profile @${connection.username} is no longer connected`
        : `The ${connection.platform} profile @${connection.username} needs to be reconnected: ${connection.last_error ?? 'authorisation lost'}`,
    )
  }
  let current = connection
  let refreshed = false
  for (;;) {
    const credentials = await usableCredentials(deps, adapter, current, { force: refreshed })
    try {
      return await call(credentials)
    } catch (error) {
      if (!(error instanceof PublishFailure) || error.kind !== 'auth_expired') throw error
      if (refreshed) {
        await markNeedsReconnect(deps.db, connection.id, error.message, deps.now())
        throw error
      }
      refreshed = true
      // Read the row again: a refresh before the call may have rotated the refresh token.
      current = (await findConnection(deps.db, connection.id)) ?? current
    }
  }
}
