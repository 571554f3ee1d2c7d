import type { Credentials } from '../../adapters/adapter.js'
import type { VaultRefusal } from '../../platform/crypto/vault.js'

/**
 * Account health (spec §2 Account health entry, §4 get_account_health): which connections need the
 * owner. The rule, stated once:
 *
 * - `needsReconnect`: the connection is marked `needs_reconnect` (a refresh was refused, the network
 *   refused fresh tokens, or the tokens cannot be decrypted with the configured keys).
 * - A connection lives as long as its refresh token when it has one (Herald refreshes access tokens
 *   before they expire, so X's 2-hour access tokens are fine), and as long as its access token when it
 *   has none. A refresh token's own expiry is known when it is a JWT with `exp` (Bluesky's refreshJwt);
 *   an opaque refresh token (X, Google) is treated as lasting until revoked.
 * - `expired`: that lifetime has ended. Expiring: it ends within {@link EXPIRY_WARNING_DAYS} days.
 * - `daysLeft`: whole days until the lifetime ends (rounded down), 0 once expired or when the
 *   connection needs reconnecting.
 *
 * A connection that is none of these is fine and not listed.
 */

export const EXPIRY_WARNING_DAYS = 7
const DAY_MS = 86_400_000

export interface HealthEntry {
  platform: string
  profileId: string
  username: string
  needsReconnect: boolean
  expired: boolean
  daysLeft: number
  reason: string
}

export interface HealthInput {
  platform: string
  profileId: string
  username: string
  status: 'active' | 'needs_reconnect' | 'removed'
  lastError: string | null
  /** `connections.token_expires_at`: when the access token expires (epoch ms), null when unknown or never. */
  tokenExpiresAt: number | null
  /** The opened credentials; undefined when the vault could not open them. */
  credentials: Credentials | undefined
  /** Why the vault refused them (src/platform/crypto/vault.ts), when it did. */
  refusal?: VaultRefusal
}

/** Epoch ms of a JWT's `exp`, or undefined for an opaque token (the signature is not checked here). */
export function jwtExpiresAt(token: string | undefined): number | undefined {
  const parts = token?.split('.')
  if (parts?.length !== 3) return undefined
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown }
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : undefined
  } catch {
    return undefined
  }
}

/**
 * A refresh token's end as the network stated it at the grant (`extra.refreshTokenExpiresAt`, epoch ms;
 * LinkedIn's `refresh_token_expires_in`, not extended by refreshing), or undefined.
 */
function statedRefreshExpiry(credentials: Credentials): number | undefined {
  const stated = Number(credentials.extra?.refreshTokenExpiresAt)
  return Number.isFinite(stated) && stated > 0 ? stated : undefined
}

/**
 * When the connection stops working unless it is reconnected (epoch ms), by the rule above: the refresh
 * token's end when there is a refresh token (undefined when it is opaque: lasts until revoked), else the
 * access token's end (undefined: never expires). Also what `account.expiring` warns about.
 */
export function connectionEndsAt(
  credentials: Credentials,
  tokenExpiresAt: number | null,
): number | undefined {
  if (credentials.refreshToken)
    return jwtExpiresAt(credentials.refreshToken) ?? statedRefreshExpiry(credentials)
  return tokenExpiresAt ?? credentials.expiresAt ?? undefined
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC'

/** The health entry of a connection that is not fine, or undefined when it is. */
export function assessConnection(input: HealthInput, now: number): HealthEntry | undefined {
  const base = { platform: input.platform, profileId: input.profileId, username: input.username }
  const accessExpiry = input.tokenExpiresAt ?? input.credentials?.expiresAt ?? undefined
  if (!input.credentials) {
    return {
      ...base,
      needsReconnect: true,
      expired: false,
      daysLeft: 0,
      reason:
        input.refusal === 'misplaced' || input.refusal === 'unbound'
          ? 'The stored tokens do not belong to this connection (sealed for another row or column, altered, or unbound from before migration 017); reconnect the profile'
          : 'The stored tokens cannot be decrypted with the configured keys (HERALD_SECRET_KEY, HERALD_OLD_SECRET_KEYS); restore the old key or reconnect the profile',
    }
  }
  if (input.status === 'needs_reconnect') {
    return {
      ...base,
      needsReconnect: true,
      expired: accessExpiry !== undefined && accessExpiry <= now,
      daysLeft: 0,
      reason: input.lastError
        ? `Reconnect the profile: ${input.lastError}`
        : 'The authorisation was lost; reconnect the profile',
    }
  }
  const refreshable = Boolean(input.credentials.refreshToken)
  const end = connectionEndsAt(input.credentials, input.tokenExpiresAt)
  if (end === undefined) return undefined
  const left = end - now
  if (left > EXPIRY_WARNING_DAYS * DAY_MS) return undefined
  const expired = left <= 0
  const daysLeft = expired ? 0 : Math.floor(left / DAY_MS)
  const what = refreshable ? 'The refresh token' : 'The access token'
  const why = refreshable ? '' : ' and there is no refresh token to renew it'
  const reason = expired
    ? `${what} expired on ${day(end)}${why}; reconnect the profile`
    : `${what} expires on ${day(end)} (${daysLeft === 0 ? 'within a day' : `in ${daysLeft} day${daysLeft === 1 ? '' : 's'}`})${why}; reconnect the profile before then`
  return { ...base, needsReconnect: false, expired, daysLeft, reason }
}

/** The sentence get_account_health answers with. */
export function healthMessage(total: number, entries: HealthEntry[]): string {
  if (total === 0) return 'No profiles are connected in this workspace.'
  if (entries.length === 0)
    return total === 1 ? 'The connection is healthy.' : `All ${total} connections are healthy.`
  const reconnect = entries.filter((e) => e.needsReconnect).length
  const expired = entries.filter((e) => !e.needsReconnect && e.expired).length
  const expiring = entries.length - reconnect - expired
  const parts = [
    reconnect ? `${reconnect} need${reconnect === 1 ? 's' : ''} reconnecting` : '',
    expired ? `${expired} expired` : '',
    expiring ? `${expiring} expire${expiring === 1 ? 's' : ''} within ${EXPIRY_WARNING_DAYS} days` : '',
  ].filter(Boolean)
  return `${entries.length} of ${total} connections need attention: ${parts.join(', ')}. Posts queued onto them fail at publish time.`
}
