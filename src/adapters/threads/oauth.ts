import type { AdapterDeps, Credentials, OAuthFlow, Profile } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import {
  exchangeForLongLived,
  type LongLivedTokens,
  longLivedExpiry,
  refreshLongLived,
} from '../meta/long-lived-token.js'
import { callThreads } from './errors.js'
import { type ThreadsSettings, threadsGraph, threadsGraphRoot } from './settings.js'

/**
 * Threads login (reference D.1), with the Threads app's own id and secret: the consent page at
 * threads.net, the code exchanged at graph.threads.net for a short-lived (1 hour) token, that exchanged
 * (`th_exchange_token`) for a 60-day token, refreshed with `th_refresh_token`.
 *
 * Meta refreshes a token only once it is at least 24 hours old and before it expires. `expiresAt` (when
 * Herald refreshes) is therefore {@link REFRESH_AHEAD_MS} before the real end and never sooner than a day
 * and an hour after the token was issued; the real end is kept as `extra.refreshTokenExpiresAt`, which
 * account health reads ("Expires in N days" counts down the 60 days, and starts again after each refresh).
 */

export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_insights',
  // Thread items and first comments are replies (`reply_to_id`).
  'threads_manage_replies',
] as const

export const REFRESH_AHEAD_MS = 10 * 24 * 60 * 60 * 1000
/** A token younger than this cannot be refreshed (Meta's rule), plus an hour of margin. */
export const MIN_REFRESH_AGE_MS = 25 * 60 * 60 * 1000

const TOKENS: LongLivedTokens = { label: 'Threads', call: callThreads, grantPrefix: 'th', noun: 'profile' }

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export function threadsCredentials(
  token: string,
  expiresIn: unknown,
  userId: string,
  now: number,
): Credentials {
  const { realEnd, expiresAt } = longLivedExpiry(expiresIn, now, {
    aheadMs: REFRESH_AHEAD_MS,
    minAgeMs: MIN_REFRESH_AGE_MS,
  })
  return {
    accessToken: token,
    // Threads refreshes with the current token itself; naming it the refresh token tells Herald's
    // credential code that it can be refreshed rather than only reconnected.
    refreshToken: token,
    expiresAt,
    extra: { threadsUserId: userId, refreshTokenExpiresAt: String(realEnd), issuedAt: String(now) },
  }
}

export function createThreadsLogin(settings: ThreadsSettings, deps: AdapterDeps): OAuthFlow {
  const root = threadsGraphRoot(settings, deps)
  return {
    scopes: THREADS_SCOPES,
    authorizeUrl({ state, redirectUri }) {
      const url = new URL(settings.authorizeUrl)
      url.searchParams.set('client_id', settings.appId)
      url.searchParams.set('redirect_uri', redirectUri)
      url.searchParams.set('scope', THREADS_SCOPES.join(','))
      url.searchParams.set('response_type', 'code')
      url.searchParams.set('state', state)
      return url.toString()
    },
    async exchangeCode({ code, redirectUri }) {
      // Meta appends `#_` to the redirect; a pasted code may still carry it.
      const clean = code.replace(/#_$/, '')
      const secrets = [clean, settings.appSecret]
      const short = await callThreads(root, {
        method: 'POST',
        path: '/oauth/access_token',
        params: {
          client_id: settings.appId,
          client_secret: settings.appSecret,
          code: clean,
          grant_type: 'authorization_code',
          redirect_uri: redirectUri,
        },
        what: 'the code exchange',
        secrets,
      })
      const shortToken = str(short.access_token)
      if (!shortToken)
        throw new PublishFailure('auth_expired', 'Threads answered the code exchange without a token')
      const long = await exchangeForLongLived(TOKENS, root, {
        shortToken,
        clientSecret: settings.appSecret,
        secrets,
      })
      // `user_id` is a JSON number of 17 digits, beyond what a double holds exactly: read the id from /me.
      const draft = threadsCredentials(long.token, long.expiresIn, '', deps.now())
      const me = await resolveThreadsProfile(settings, deps, draft)
      return {
        credentials: { ...draft, extra: { ...draft.extra, threadsUserId: me.profileId } },
        // Threads reports no granted scopes at the exchange; a missing one shows as error 10 later.
        grantedScopes: [...THREADS_SCOPES],
      }
    },
  }
}

/** `th_refresh_token`: a new 60-day token (refused by Meta while the token is under 24 hours old). */
export async function refreshThreadsToken(
  settings: ThreadsSettings,
  deps: AdapterDeps,
  credentials: Credentials,
): Promise<Credentials> {
  const { token, expiresIn } = await refreshLongLived(
    TOKENS,
    threadsGraphRoot(settings, deps),
    credentials.accessToken,
  )
  return threadsCredentials(token, expiresIn, credentials.extra?.threadsUserId ?? '', deps.now())
}

/** The Threads profile behind a token (`/me`). */
export async function resolveThreadsProfile(
  settings: ThreadsSettings,
  deps: AdapterDeps,
  credentials: Credentials,
): Promise<Profile> {
  const me = await callThreads(threadsGraph(settings, deps), {
    method: 'GET',
    path: '/me',
    params: { fields: 'id,username,name,threads_profile_picture_url' },
    token: credentials.accessToken,
    what: 'the profile',
  })
  const id = str(me.id)
  if (!id) throw new PublishFailure('transient', 'Threads answered /me without a profile id')
  const username = str(me.username) ?? id
  return {
    profileId: id,
    username,
    name: str(me.name) ?? username,
    isOrganization: false,
    ...(str(me.threads_profile_picture_url) ? { avatarUrl: me.threads_profile_picture_url as string } : {}),
  }
}
