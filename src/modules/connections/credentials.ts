import type { Credentials, NetworkAdapter } from '../../adapters/adapter.js'
import { PublishFailure } from '../../adapters/adapter.js'
import { connectionCredentials, type Vault, VaultError } from '../../platform/crypto/vault.js'
import type { Db } from '../../platform/db/db.js'
import { type ConnectionRow, markNeedsReconnect } from '../../platform/db/statements/connections.js'

/** Access tokens this close to expiry are refreshed before use. */
export const REFRESH_MARGIN_MS = 5 * 60_000

export interface CredentialDeps {
  db: Db
  vault: Vault
  now(): number
  /**
   * The network's adapter as it is now, asked for just before a refresh: the network's app may have changed
   * (on the network apps page, in another process) since the caller took its adapter, and a refresh with a
   * replaced secret would be refused and mark a healthy profile for reconnecting. Absent: the caller's adapter.
   */
  currentAdapter?(network: string): Promise<NetworkAdapter | undefined>
}

/**
 * The connection's credentials as stored. A value the vault refuses for this row (sealed for another
 * connection or column, altered, or in the unbound pre-017 format) marks the connection `needs_reconnect`
 * and fails with `auth_expired`, as a refused refresh does. A missing key (an operator's configuration,
 * see HERALD_OLD_SECRET_KEYS) or a value that is no ciphertext at all is thrown as it is: publishing
 * retries, nothing is sent.
 */
export async function openCredentials(
  deps: CredentialDeps,
  connection: Pick<ConnectionRow, 'id' | 'platform' | 'credentials'>,
): Promise<Credentials> {
  try {
    return deps.vault.openJson<Credentials>(connectionCredentials(connection.id), connection.credentials)
  } catch (error) {
    if (!(error instanceof VaultError) || (error.reason !== 'misplaced' && error.reason !== 'unbound'))
      throw error
    const reason = `The stored ${connection.platform} tokens do not belong to this connection (${error.reason === 'unbound' ? 'an unbound value from before migration 017' : 'sealed for another row or column, or altered'}); reconnect the profile`
    await markNeedsReconnect(deps.db, connection.id, reason, deps.now())
    throw new PublishFailure('auth_expired', reason)
  }
}

export async function saveCredentials(deps: CredentialDeps, connectionId: string, credentials: Credentials) {
  await deps.db
    .updateTable('connections')
    .set({
      credentials: deps.vault.sealJson(connectionCredentials(connectionId), credentials),
      token_expires_at: credentials.expiresAt ?? null,
      updated_at: deps.now(),
    })
    .where('id', '=', connectionId)
    .execute()
}

/** One refresh per connection at a time in this process: X rotates refresh tokens, so a second concurrent
 * refresh with the same token would be refused and wrongly mark the connection for reconnecting. */
const refreshingBy = new WeakMap<Db, Map<string, Promise<Credentials>>>()

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
  const credentials = await openCredentials(deps, connection)
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
  // Refreshes in flight are shared per database handle (one process's API and worker); another handle
  // (another worker, as the fault simulation runs them side by side) goes through the refresh lease.
  const refreshing = refreshingBy.get(deps.db) ?? new Map<string, Promise<Credentials>>()
  refreshingBy.set(deps.db, refreshing)
  const running = refreshing.get(connection.id)
  if (running) return running
  const refresh = refreshOnce(deps, adapter, connection, credentials).finally(() =>
    refreshing.delete(connection.id),
  )
  refreshing.set(connection.id, refresh)
  return refresh
}

/** How long one process may hold a connection's refresh before another may take it over. */
const REFRESH_LEASE_MS = 30_000
const WAIT_STEP_MS = 100

/**
 * Refreshes across processes one at a time. A process takes the connection's refresh lease with a
 * conditional UPDATE (`refreshing_until`); the others wait for the new tokens to appear in the row instead
 * of spending the same rotating refresh token (X refuses the second use with `invalid_grant`, which would
 * mark a healthy profile for reconnecting). Exported for tests that play two processes.
 */
export async function refreshOnce(
  deps: CredentialDeps,
  adapter: NetworkAdapter,
  connection: ConnectionRow,
  seen: Credentials,
): Promise<Credentials> {
  // Real time, not the injected clock: this bounds how long this process waits for another one.
  const deadline = Date.now() + REFRESH_LEASE_MS + 5_000
  for (;;) {
    const newer = await refreshedElsewhere(deps, connection, seen)
    if (newer) return newer
    const now = deps.now()
    const taken = await deps.db
      .updateTable('connections')
      .set({ refreshing_until: now + REFRESH_LEASE_MS })
      .where('id', '=', connection.id)
      .where((eb) => eb.or([eb('refreshing_until', 'is', null), eb('refreshing_until', '<', now)]))
      .executeTakeFirst()
    if (Number(taken.numUpdatedRows) === 1) break
    if (Date.now() > deadline)
      throw new PublishFailure(
        'transient',
        `Another Herald process is still refreshing this ${connection.platform} token`,
      )
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS))
  }
  try {
    // The tokens may have changed between the last look and taking the lease.
    const newer = await refreshedElsewhere(deps, connection, seen)
    if (newer) return newer
    const refresher = (await deps.currentAdapter?.(connection.platform)) ?? adapter
    const refreshed = await refresher.refresh(seen)
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
  } finally {
    await deps.db
      .updateTable('connections')
      .set({ refreshing_until: null })
      .where('id', '=', connection.id)
      .execute()
  }
}

/** The row's credentials when another process has already refreshed them (a new refresh token, fresh). */
async function refreshedElsewhere(
  deps: CredentialDeps,
  connection: ConnectionRow,
  seen: Credentials,
): Promise<Credentials | undefined> {
  const latest = await deps.db
    .selectFrom('connections')
    .select(['credentials', 'status', 'last_error'])
    .where('id', '=', connection.id)
    .executeTakeFirst()
  if (!latest) return undefined
  if (latest.status === 'needs_reconnect')
    throw new PublishFailure(
      'auth_expired',
      latest.last_error ?? `The ${connection.platform} profile needs reconnecting`,
    )
  const current = await openCredentials(deps, { ...connection, credentials: latest.credentials })
  if (
    (current.refreshToken !== seen.refreshToken || current.accessToken !== seen.accessToken) &&
    (current.expiresAt ?? Number.POSITIVE_INFINITY) - deps.now() >= REFRESH_MARGIN_MS
  )
    return current
  return undefined
}
