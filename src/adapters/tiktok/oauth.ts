import {
  type AdapterDeps,
  type Credentials,
  type OAuthFlow,
  type Profile,
  PublishFailure,
} from '../adapter.js'
import { thrownErrorCode } from '../network-errors.js'
import { tiktokCall } from './api.js'
import type { TikTokContext, TikTokSettings } from './settings.js'

/**
 * Login Kit for the web (reference A.2): the consent page at www.tiktok.com/v2/auth/authorize/ with the
 * scopes comma-separated, the code exchanged at open.tiktokapis.com/v2/oauth/token/, and the refresh
 * token exchanged there for new tokens. TikTok's pages disagree on the lifetimes (24 hours and 365 days,
 * or 2 hours and 180 days), so Herald schedules from `expires_in` and `refresh_expires_in` as answered;
 * refresh tokens rotate (each refresh answers a new one, the old one stops working), and the credential
 * code saves the new pair under the connection's refresh lease, one refresh at a time.
 *
 * PKCE is for TikTok's desktop and mobile apps; a web app's exchange takes none, so the signed,
 * single-use `state` is what ties the answer to the person who started.
 */

export const TIKTOK_SCOPES = [
  'user.info.basic',
  'user.info.profile',
  'user.info.stats',
  'video.publish',
  'video.upload',
  'video.list',
] as const

const TOKEN_TIMEOUT_MS = 30_000

interface TokenAnswer {
  access_token?: unknown
  expires_in?: unknown
  refresh_token?: unknown
  refresh_expires_in?: unknown
  open_id?: unknown
  scope?: unknown
  error?: unknown
}

const seconds = (value: unknown) => {
  const n = typeof value === 'number' ? value : Number(value)
  return Number.isFinite(n) && n > 0 ? n : undefined
}

/** A token answer as credentials: when the access token ends, and the refresh token's own end for account health. */
export function tiktokCredentials(answer: TokenAnswer, now: number): Credentials {
  const access = typeof answer.access_token === 'string' ? answer.access_token : ''
  const refresh = typeof answer.refresh_token === 'string' ? answer.refresh_token : undefined
  const expiresIn = seconds(answer.expires_in)
  const refreshIn = seconds(answer.refresh_expires_in)
  const extra: Record<string, string> = {}
  if (typeof answer.open_id === 'string') extra.openId = answer.open_id
  if (refreshIn !== undefined) extra.refreshTokenExpiresAt = String(now + refreshIn * 1000)
  return {
    accessToken: access,
    ...(refresh ? { refreshToken: refresh } : {}),
    ...(expiresIn !== undefined ? { expiresAt: now + expiresIn * 1000 } : {}),
    extra,
  }
}

/** `POST /v2/oauth/token/` with a form; TikTok's flat OAuth envelope on refusal. */
async function tokenRequest(
  settings: TikTokSettings,
  deps: AdapterDeps,
  form: Record<string, string>,
  what: string,
): Promise<TokenAnswer> {
  const body = new URLSearchParams({
    client_key: settings.clientKey,
    client_secret: settings.clientSecret ?? '',
    ...form,
  })
  let response: Response
  try {
    response = await deps.http(`${settings.apiUrl}/v2/oauth/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      redirect: 'error',
    })
  } catch (error) {
    // A token call creates nothing anyone sees: whatever became of it, asking again is safe.
    const code = thrownErrorCode(error)
    throw new PublishFailure('transient', `TikTok could not be reached for ${what}`, code ? { code } : {})
  }
  const answer = (await response.json().catch(() => undefined)) as TokenAnswer | undefined
  if (answer && typeof answer.access_token === 'string' && answer.access_token !== '') return answer
  const error = typeof answer?.error === 'string' ? answer.error : undefined
  if (response.status >= 500 || !error)
    throw new PublishFailure('transient', `TikTok answered ${response.status} to ${what}`, {
      status: response.status,
    })
  // invalid_grant (a used, expired or rotated-away token), invalid_client (the app changed): only a new
  // sign-in helps.
  throw new PublishFailure('auth_expired', `TikTok refused ${what} (${error})`, {
    status: response.status,
    code: error,
  })
}

export function createTikTokLogin(settings: TikTokSettings, deps: AdapterDeps): OAuthFlow {
  return {
    scopes: TIKTOK_SCOPES,
    authorizeUrl({ state, redirectUri }) {
      const url = new URL(settings.authorizeUrl)
      url.searchParams.set('client_key', settings.clientKey)
      url.searchParams.set('response_type', 'code')
      url.searchParams.set('scope', TIKTOK_SCOPES.join(','))
      url.searchParams.set('redirect_uri', redirectUri)
      url.searchParams.set('state', state)
      return url.toString()
    },
    async exchangeCode({ code, redirectUri }) {
      const answer = await tokenRequest(
        settings,
        deps,
        { code, grant_type: 'authorization_code', redirect_uri: redirectUri },
        'the code exchange',
      )
      return {
        credentials: tiktokCredentials(answer, deps.now()),
        grantedScopes: typeof answer.scope === 'string' ? answer.scope.split(/[\s,]+/).filter(Boolean) : [],
      }
    },
  }
}

/** New tokens from the refresh token; the answer's refresh token replaces the old one, which stops working. */
export async function refreshTikTokToken(
  settings: TikTokSettings,
  deps: AdapterDeps,
  credentials: Credentials,
): Promise<Credentials> {
  if (!credentials.refreshToken)
    throw new PublishFailure('auth_expired', 'No TikTok refresh token is stored; reconnect')
  const answer = await tokenRequest(
    settings,
    deps,
    { grant_type: 'refresh_token', refresh_token: credentials.refreshToken },
    'the token refresh',
  )
  const fresh = tiktokCredentials(answer, deps.now())
  return {
    ...fresh,
    // TikTok always answers a refresh token; the old one is kept only if it ever did not.
    refreshToken: fresh.refreshToken ?? credentials.refreshToken,
    extra: { ...credentials.extra, ...fresh.extra },
  }
}

const USER_FIELDS = 'open_id,union_id,avatar_url,display_name,username'

/** The creator behind a token (`GET /v2/user/info/`): the open id, display name, handle and avatar. */
export async function resolveTikTokProfile(ctx: TikTokContext, credentials: Credentials): Promise<Profile> {
  const { data } = await tiktokCall(ctx, {
    method: 'GET',
    path: '/v2/user/info/',
    query: { fields: USER_FIELDS },
    token: credentials.accessToken,
    what: 'the profile',
  })
  const user = (data.user ?? {}) as Record<string, unknown>
  const openId = typeof user.open_id === 'string' && user.open_id ? user.open_id : undefined
  if (!openId) throw new PublishFailure('transient', 'TikTok answered the profile without an open id')
  const username = typeof user.username === 'string' && user.username ? user.username : openId
  return {
    profileId: openId,
    username,
    name: typeof user.display_name === 'string' && user.display_name ? user.display_name : username,
    isOrganization: false,
    ...(typeof user.avatar_url === 'string' && user.avatar_url ? { avatarUrl: user.avatar_url } : {}),
  }
}

/**
 * `POST /v2/oauth/revoke/` with the app's key and secret and the access token (reference A.2): TikTok ends
 * the grant, refresh token included, and the app leaves the creator's connected apps. 200 `{}` on success;
 * a refusal comes in the flat OAuth envelope.
 */
export async function revokeTikTokAccess(
  settings: TikTokSettings,
  deps: AdapterDeps,
  credentials: Credentials,
  signal: AbortSignal,
): Promise<void> {
  const body = new URLSearchParams({
    client_key: settings.clientKey,
    client_secret: settings.clientSecret ?? '',
    token: credentials.accessToken,
  })
  let response: Response
  try {
    response = await deps.http(`${settings.apiUrl}/v2/oauth/revoke/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
      signal: AbortSignal.any([signal, AbortSignal.timeout(TOKEN_TIMEOUT_MS)]),
      redirect: 'error',
    })
  } catch (error) {
    const code = thrownErrorCode(error)
    throw new PublishFailure(
      'transient',
      'TikTok could not be reached to revoke access',
      code ? { code } : {},
    )
  }
  const answer = (await response.json().catch(() => undefined)) as TokenAnswer | undefined
  const error = typeof answer?.error === 'string' ? answer.error : undefined
  if (response.ok && !error) return
  throw new PublishFailure(
    response.status >= 500 || !error ? 'transient' : 'auth_expired',
    `TikTok refused to revoke access (${error ?? response.status})`,
    { status: response.status, ...(error ? { code: error } : {}) },
  )
}
