import { z } from 'zod'
import { type Credentials, type OAuthFlow, type Profile, PublishFailure } from '../adapter.js'
import { API_TIMEOUT_MS, expectOk, sendToTwitter, type TwitterContext } from './client.js'

/**
 * The five scopes spec §5 lists for `twitter`, exactly as X spells them: `tweet.read` (needed beside
 * write), `tweet.write` (posts), `users.read` (handle and id), `media.write` (uploads) and
 * `offline.access` (a refresh token).
 */
export const twitterScopes = [
  'tweet.read',
  'tweet.write',
  'users.read',
  'media.write',
  'offline.access',
] as const

const tokenResponse = z.object({
  token_type: z.string(),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.number().optional(),
  scope: z.string().optional(),
})

const usersMeResponse = z.object({
  data: z.object({
    id: z.string(),
    username: z.string(),
    name: z.string(),
    profile_image_url: z.string().optional(),
  }),
})

/** The authorize URL, built with `%20` between scopes as X's docs show (not `+`). */
export function buildAuthorizeUrl(
  ctx: TwitterContext,
  input: { state: string; codeChallenge: string; redirectUri: string },
): string {
  const params: [string, string][] = [
    ['response_type', 'code'],
    ['client_id', ctx.settings.clientId],
    ['redirect_uri', input.redirectUri],
    ['scope', twitterScopes.join(' ')],
    ['state', input.state],
    ['code_challenge', input.codeChallenge],
    ['code_challenge_method', 'S256'],
  ]
  const query = params.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')
  const base = ctx.settings.authorizeUrl
  return `${base}${base.includes('?') ? '&' : '?'}${query}`
}

/**
 * POST /2/oauth2/token, form-encoded. A confidential client (secret configured) authenticates with
 * HTTP Basic; `client_id` is sent in the form either way, which X accepts for both client types.
 */
async function requestToken(
  ctx: TwitterContext,
  fields: Record<string, string>,
  what: string,
  secrets: readonly string[],
): Promise<z.infer<typeof tokenResponse>> {
  const form = new URLSearchParams({ ...fields, client_id: ctx.settings.clientId })
  const { clientSecret } = ctx.settings
  const answer = await sendToTwitter(ctx, {
    method: 'POST',
    path: '/2/oauth2/token',
    form,
    basicAuth: clientSecret ? { user: ctx.settings.clientId, password: clientSecret } : undefined,
    timeoutMs: API_TIMEOUT_MS,
    what,
  })
  const body = expectOk(ctx, answer, 'token', [...secrets, clientSecret])
  const parsed = tokenResponse.safeParse(body)
  if (!parsed.success) {
    throw new PublishFailure('transient', `X answered ${what} without an access token`, {
      status: answer.status,
    })
  }
  return parsed.data
}

function toCredentials(ctx: TwitterContext, token: z.infer<typeof tokenResponse>, previous?: Credentials) {
  const credentials: Credentials = {
    accessToken: token.access_token,
    // X rotates refresh tokens: the new one replaces the old, which stops working. Keep the old one
    // only if X (unusually) sent none.
    refreshToken: token.refresh_token ?? previous?.refreshToken,
    expiresAt: token.expires_in !== undefined ? ctx.deps.now() + token.expires_in * 1000 : undefined,
  }
  if (previous?.extra) credentials.extra = previous.extra
  return credentials
}

export function createTwitterOAuth(ctx: TwitterContext): OAuthFlow {
  return {
    scopes: twitterScopes,
    authorizeUrl: (input) => buildAuthorizeUrl(ctx, input),
    async exchangeCode({ code, codeVerifier, redirectUri }) {
      const token = await requestToken(
        ctx,
        { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier },
        'the authorization code exchange',
        [code, codeVerifier],
      )
      return {
        credentials: toCredentials(ctx, token),
        grantedScopes: (token.scope ?? '').split(/\s+/).filter(Boolean),
      }
    },
  }
}

/** Exchanges the refresh token for a new pair; `auth_expired` when there is none or X refuses it. */
export async function refreshTwitterCredentials(
  ctx: TwitterContext,
  credentials: Credentials,
): Promise<Credentials> {
  if (!credentials.refreshToken) {
    throw new PublishFailure('auth_expired', 'Access token for twitter is missing or invalid', {
      code: 'no_refresh_token',
    })
  }
  const token = await requestToken(
    ctx,
    { grant_type: 'refresh_token', refresh_token: credentials.refreshToken },
    'the token refresh',
    [credentials.refreshToken, credentials.accessToken],
  )
  return toCredentials(ctx, token, credentials)
}

/** GET /2/users/me: the account these credentials act as. */
export async function resolveTwitterProfile(ctx: TwitterContext, credentials: Credentials): Promise<Profile> {
  const answer = await sendToTwitter(ctx, {
    method: 'GET',
    path: '/2/users/me',
    query: { 'user.fields': 'profile_image_url' },
    bearer: credentials.accessToken,
    timeoutMs: API_TIMEOUT_MS,
    what: 'the profile lookup',
  })
  const body = expectOk(ctx, answer, 'read', [credentials.accessToken, credentials.refreshToken])
  const parsed = usersMeResponse.safeParse(body)
  if (!parsed.success) {
    throw new PublishFailure('transient', 'X answered the profile lookup without a user', {
      status: answer.status,
    })
  }
  const user = parsed.data.data
  return {
    profileId: user.id,
    username: user.username,
    name: user.name,
    isOrganization: false,
    ...(user.profile_image_url ? { avatarUrl: user.profile_image_url } : {}),
  }
}

/**
 * POST /2/oauth2/revoke for each token Herald holds, the refresh token first (while it lives, a new access
 * token could be made from it), then the access token. The client authenticates as at the token endpoint.
 */
export async function revokeTwitterAccess(
  ctx: TwitterContext,
  credentials: Credentials,
  signal: AbortSignal,
): Promise<void> {
  const { clientSecret } = ctx.settings
  const tokens = [credentials.refreshToken, credentials.accessToken].filter((token) => token !== undefined)
  for (const token of tokens) {
    const answer = await sendToTwitter(ctx, {
      method: 'POST',
      path: '/2/oauth2/revoke',
      form: new URLSearchParams({ token, client_id: ctx.settings.clientId }),
      basicAuth: clientSecret ? { user: ctx.settings.clientId, password: clientSecret } : undefined,
      signal,
      timeoutMs: API_TIMEOUT_MS,
      what: 'revoking access',
    })
    expectOk(ctx, answer, 'token', [...tokens, clientSecret])
  }
}
