import { type Credentials, type Profile, PublishFailure } from '../adapter.js'
import type { MastodonClient } from './client.js'

/**
 * A Mastodon profile and what acting as it needs: the instance (kept with the token), the account's id
 * there (its profile id is `<account id>@<instance>`, since an account id is only unique on its server),
 * and how long the instance remembers an idempotency key.
 */

export interface AccountSession {
  host: string
  token: string
  accountId: string
  idempotencyWindowMs: number
}

export const profileIdOf = (accountId: string, host: string) => `${accountId}@${host}`

/** The instance and account of a connection; `auth_expired` when the connection lacks them. */
export function sessionOf(credentials: Credentials, profile: Pick<Profile, 'profileId'>): AccountSession {
  const host = credentials.extra?.instance
  const at = profile.profileId.lastIndexOf('@')
  const accountId = at > 0 ? profile.profileId.slice(0, at) : ''
  if (!host || !credentials.accessToken || !accountId || profile.profileId.slice(at + 1) !== host)
    throw new PublishFailure(
      'auth_expired',
      'The Mastodon connection lacks its instance or account; reconnect it',
      {
        code: 'MissingSession',
      },
    )
  const window = Number(credentials.extra?.idempotencyWindowMs)
  return {
    host,
    token: credentials.accessToken,
    accountId,
    idempotencyWindowMs: Number.isFinite(window) && window > 0 ? window : 0,
  }
}

export interface CredentialAccount {
  id?: unknown
  username?: unknown
  acct?: unknown
  display_name?: unknown
  avatar?: unknown
  url?: unknown
  followers_count?: unknown
  following_count?: unknown
  statuses_count?: unknown
}

export function readAccount(client: MastodonClient, host: string, token: string, signal?: AbortSignal) {
  return client.call<CredentialAccount>({
    host,
    method: 'GET',
    path: '/api/v1/accounts/verify_credentials',
    token,
    signal,
    what: 'naming the signed-in account',
  })
}

/** The profile a token acts as: `@user@instance`, named by its display name, with its avatar. */
export async function resolveProfile(client: MastodonClient, credentials: Credentials): Promise<Profile> {
  const host = credentials.extra?.instance
  if (!host)
    throw new PublishFailure('auth_expired', 'The Mastodon connection lacks its instance; reconnect it')
  const { body } = await readAccount(client, host, credentials.accessToken)
  if (
    typeof body?.id !== 'string' ||
    !/^[A-Za-z0-9_-]{1,64}$/.test(body.id) ||
    typeof body.username !== 'string'
  )
    throw new PublishFailure('invalid_content', `${host} did not name the signed-in account`, {
      code: 'NoAccount',
    })
  const username = `${body.username.slice(0, 100)}@${host}`
  const display = typeof body.display_name === 'string' ? body.display_name.trim().slice(0, 100) : ''
  return {
    profileId: profileIdOf(body.id, host),
    username,
    name: display || username,
    isOrganization: false,
    ...(typeof body.avatar === 'string' && /^https?:\/\//.test(body.avatar)
      ? { avatarUrl: body.avatar }
      : {}),
  }
}
