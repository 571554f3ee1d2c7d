import type { AdapterDeps, Credentials, OAuthFlow, Profile } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import { redactSecrets } from '../meta/errors.js'
import { callGraph } from '../meta/graph.js'
import {
  exchangeForLongLived,
  type LongLivedTokens,
  longLivedExpiry,
  refreshLongLived,
} from '../meta/long-lived-token.js'
import { instagramGraph, instagramGraphRoot, type MetaSettings } from '../meta/settings.js'

/**
 * Instagram Login (reference C.1) for professional accounts without a Page: the consent page at
 * www.instagram.com, the code exchanged at api.instagram.com for a short-lived token, that exchanged on
 * graph.instagram.com (`ig_exchange_token`) for a 60-day token, refreshed with `ig_refresh_token`.
 *
 * `expiresAt` is set {@link REFRESH_AHEAD_MS} before the token's real end (kept in `extra.tokenExpiresAt`),
 * so Herald's usual "refresh when it is about to expire" rule refreshes it ten days early, well inside the
 * window in which Instagram still accepts a refresh.
 */

export const INSTAGRAM_LOGIN_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_insights',
  // First comments on the account's posts.
  'instagram_business_manage_comments',
] as const

export const REFRESH_AHEAD_MS = 10 * 24 * 60 * 60 * 1000

const TOKENS: LongLivedTokens = { label: 'Instagram', call: callGraph, grantPrefix: 'ig', noun: 'account' }

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export function credentialsFrom(
  token: string,
  expiresIn: unknown,
  igUserId: string,
  now: number,
): Credentials {
  const { realEnd, expiresAt } = longLivedExpiry(expiresIn, now, {
    aheadMs: REFRESH_AHEAD_MS,
    minAgeMs: 60_000,
  })
  return {
    accessToken: token,
    // Instagram refreshes with the current access token itself; naming it the refresh token tells
    // Herald's credential code that this token can be refreshed rather than only reconnected.
    refreshToken: token,
    expiresAt,
    extra: { host: 'instagram', igUserId, tokenExpiresAt: String(realEnd) },
  }
}

export function createInstagramLogin(settings: MetaSettings, deps: AdapterDeps): OAuthFlow {
  const root = instagramGraphRoot(settings, deps)
  return {
    scopes: INSTAGRAM_LOGIN_SCOPES,
    authorizeUrl({ state, redirectUri }) {
      const url = new URL(settings.instagramAuthorizeUrl)
      url.searchParams.set('client_id', settings.instagramAppId)
      url.searchParams.set('redirect_uri', redirectUri)
      url.searchParams.set('response_type', 'code')
      url.searchParams.set('scope', INSTAGRAM_LOGIN_SCOPES.join(','))
      url.searchParams.set('state', state)
      return url.toString()
    },
    async exchangeCode({ code, redirectUri }) {
      const clean = code.replace(/#_$/, '')
      const secrets = [clean, settings.instagramAppSecret]
      let response: Response
      try {
        response = await deps.http(settings.instagramTokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({
            client_id: settings.instagramAppId,
            client_secret: settings.instagramAppSecret ?? '',
            grant_type: 'authorization_code',
            redirect_uri: redirectUri,
            code: clean,
          }),
          signal: AbortSignal.timeout(30_000),
        })
      } catch {
        throw new PublishFailure('transient', 'Could not reach Instagram for the code exchange')
      }
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
      // Instagram answers flat in practice; its docs show the same inside `data[]`.
      const row = (Array.isArray(body.data) ? body.data[0] : body) as Record<string, unknown> | undefined
      const shortToken = str(row?.access_token)
      if (!response.ok || !shortToken) {
        const message =
          str(body.error_message) ?? str((body.error as { message?: unknown } | undefined)?.message)
        throw new PublishFailure(
          'auth_expired',
          redactSecrets(`Instagram refused the code${message ? `: ${message}` : ''}`, secrets),
          { status: response.status },
        )
      }
      const long = await exchangeForLongLived(TOKENS, root, {
        shortToken,
        clientSecret: settings.instagramAppSecret,
        secrets,
      })
      const permissions = row?.permissions
      const grantedScopes = Array.isArray(permissions)
        ? permissions.map(String)
        : typeof permissions === 'string'
          ? permissions.split(',').map((s) => s.trim())
          : []
      // `user_id` comes as a JSON number of 17 digits, beyond what a double holds exactly: the id is read
      // as a string from /me instead.
      const draft = credentialsFrom(long.token, long.expiresIn, '', deps.now())
      const me = await resolveInstagramLoginProfile(settings, deps, draft)
      return {
        credentials: { ...draft, extra: { ...draft.extra, igUserId: me.profileId } },
        grantedScopes,
      }
    },
  }
}

/** `ig_refresh_token`: a new 60-day token. */
export async function refreshInstagramToken(
  settings: MetaSettings,
  deps: AdapterDeps,
  credentials: Credentials,
): Promise<Credentials> {
  const { token, expiresIn } = await refreshLongLived(
    TOKENS,
    instagramGraphRoot(settings, deps),
    credentials.accessToken,
  )
  return credentialsFrom(token, expiresIn, credentials.extra?.igUserId ?? '', deps.now())
}

/** The Instagram Login account behind a token. */
export async function resolveInstagramLoginProfile(
  settings: MetaSettings,
  deps: AdapterDeps,
  credentials: Credentials,
): Promise<Profile> {
  const me = await callGraph(instagramGraph(settings, deps), {
    method: 'GET',
    path: '/me',
    params: { fields: 'user_id,username,name,profile_picture_url' },
    token: credentials.accessToken,
    what: 'the account',
  })
  const id = str(me.id) ?? String(me.user_id ?? '')
  const username = str(me.username) ?? id
  return {
    profileId: id,
    username,
    name: str(me.name) ?? username,
    isOrganization: false,
    ...(str(me.profile_picture_url) ? { avatarUrl: me.profile_picture_url as string } : {}),
  }
}
