import type { NetworkSettings } from '../../platform/config.js'
import { type AdapterDeps, type Credentials, PublishFailure } from '../adapter.js'
import { classifyTokenError } from './errors.js'

/** Google OAuth 2.0 web-server flow for YouTube (spec §5 youtube connect flow; reference B.1). */

export type YouTubeSettings = NetworkSettings['youtube'] & {
  /** Where people watch videos: `${webUrl}/shorts/<id>`. Default {@link YOUTUBE_WEB_URL}; no trailing slash. */
  webUrl?: string | undefined
}

/**
 * What Google's token endpoint needs of an app: shared with Google Business Profile, whose sign-in is the
 * same Google OAuth with its own app.
 */
export type GoogleTokenSettings = Pick<YouTubeSettings, 'clientId' | 'clientSecret' | 'tokenUrl'> &
  Partial<Pick<YouTubeSettings, 'revokeUrl'>>

/** www.youtube.com, whose watch pages the URLs of published videos name unless the settings say otherwise. */
export const YOUTUBE_WEB_URL = 'https://www.youtube.com'

export const UPLOAD_SCOPE = 'https://www.googleapis.com/auth/youtube.upload'
export const READONLY_SCOPE = 'https://www.googleapis.com/auth/youtube.readonly'
/** `commentThreads.insert` (a first comment) takes this scope and no other. */
export const COMMENT_SCOPE = 'https://www.googleapis.com/auth/youtube.force-ssl'
/**
 * Requested at connect: upload to publish, read-only for the channel's title, handle, avatar and stats,
 * and force-ssl for first comments. Only upload and read-only are required: a channel whose owner unticks
 * the comment permission still connects, and a first comment on it asks for a reconnect.
 */
export const YOUTUBE_SCOPES = [UPLOAD_SCOPE, READONLY_SCOPE, COMMENT_SCOPE] as const

/**
 * Broader scopes that also authorise the call (the discovery document's `scopes` of videos.insert and
 * channels.list). With `include_granted_scopes=true` Google may report one of these from an earlier grant.
 */
const UPLOAD_CAPABLE = new Set([
  UPLOAD_SCOPE,
  'https://www.googleapis.com/auth/youtube',
  'https://www.googleapis.com/auth/youtube.force-ssl',
  'https://www.googleapis.com/auth/youtubepartner',
])
const READ_CAPABLE = new Set([
  READONLY_SCOPE,
  'https://www.googleapis.com/auth/youtube',
  'https://www.googleapis.com/auth/youtube.force-ssl',
  'https://www.googleapis.com/auth/youtubepartner',
])

export type YouTubeConnectReason = 'uploadScopeMissing' | 'readScopeMissing' | 'noRefreshToken' | 'noChannel'

export const NO_CHANNEL_MESSAGE = 'This Google account has no YouTube channel'

const connectMessages: Record<YouTubeConnectReason, string> = {
  uploadScopeMissing:
    'YouTube upload permission was not granted ("Manage your YouTube videos"); connect again and allow it',
  readScopeMissing:
    'YouTube read permission was not granted ("View your YouTube account"); connect again and allow it',
  noRefreshToken: 'Google returned no refresh token, so Herald could not upload later; connect again',
  noChannel: NO_CHANNEL_MESSAGE,
}

/**
 * Why the connect flow refuses a YouTube connection (spec §5 steps 2-3). A {@link PublishFailure} of kind
 * `invalid_content` whose `options.code` is the reason, so code that handles adapter failures generically
 * shows the message; the connect flow can test `instanceof YouTubeConnectRefused` and read `reason`.
 */
export class YouTubeConnectRefused extends PublishFailure {
  override name = 'YouTubeConnectRefused'
  constructor(readonly reason: YouTubeConnectReason) {
    super('invalid_content', connectMessages[reason], { code: reason })
  }
}

/**
 * The callback check of spec §5 step 2, pure so the connect flow calls it on the token response before it
 * stores anything: the upload scope must be among `grantedScopes` (Google's granular consent lets a user
 * untick it), the read-only scope too (without it the channel cannot be resolved), and a refresh token must
 * have come back (it is exchanged before every upload). Returns the refusal, or null when fine.
 */
export function youtubeGrantProblem(
  grantedScopes: readonly string[],
  credentials?: Pick<Credentials, 'refreshToken'>,
): YouTubeConnectRefused | null {
  if (!grantedScopes.some((scope) => UPLOAD_CAPABLE.has(scope)))
    return new YouTubeConnectRefused('uploadScopeMissing')
  if (!grantedScopes.some((scope) => READ_CAPABLE.has(scope)))
    return new YouTubeConnectRefused('readScopeMissing')
  if (credentials && !credentials.refreshToken) return new YouTubeConnectRefused('noRefreshToken')
  return null
}

/** The Google authorize URL (reference B.1): offline access, forced consent, incremental auth, PKCE S256. */
export function buildAuthorizeUrl(
  settings: YouTubeSettings,
  input: { state: string; codeChallenge: string; redirectUri: string },
): string {
  const url = new URL(settings.authorizeUrl)
  const params = {
    client_id: settings.clientId ?? '',
    redirect_uri: input.redirectUri,
    response_type: 'code',
    scope: YOUTUBE_SCOPES.join(' '),
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: 'true',
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  }
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return url.toString()
}

interface TokenResponse {
  access_token?: unknown
  refresh_token?: unknown
  expires_in?: unknown
  scope?: unknown
}

/** The scopes of a token response's `scope` field (space-separated); none when absent, so checks fail closed. */
export function parseScopes(scope: unknown): string[] {
  return typeof scope === 'string' ? scope.split(/\s+/).filter(Boolean) : []
}

async function tokenRequest(
  settings: GoogleTokenSettings,
  deps: AdapterDeps,
  form: Record<string, string>,
  signal?: AbortSignal,
): Promise<TokenResponse> {
  const body = new URLSearchParams(form)
  if (settings.clientId) body.set('client_id', settings.clientId)
  if (settings.clientSecret) body.set('client_secret', settings.clientSecret)
  let response: Response
  try {
    response = await deps.http(settings.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
      signal: withTimeout(signal, 30_000),
    })
  } catch (error) {
    throw new PublishFailure(
      'transient',
      `Could not reach Google's token endpoint: ${(error as Error).message}`,
    )
  }
  const json = (await response.json().catch(() => undefined)) as TokenResponse | undefined
  if (!response.ok) throw classifyTokenError(response.status, json)
  if (!json || typeof json.access_token !== 'string')
    throw new PublishFailure('transient', "Google's token endpoint answered without an access token")
  return json
}

function toCredentials(json: TokenResponse, now: number, previous?: Credentials): Credentials {
  const refreshToken = typeof json.refresh_token === 'string' ? json.refresh_token : previous?.refreshToken
  const expiresIn = typeof json.expires_in === 'number' ? json.expires_in : Number(json.expires_in)
  return {
    accessToken: json.access_token as string,
    ...(refreshToken ? { refreshToken } : {}),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: now + expiresIn * 1000 } : {}),
    ...(previous?.extra ? { extra: previous.extra } : {}),
  }
}

/** Exchanges the callback code (with the PKCE verifier); `grantedScopes` from the token response's `scope`. */
export async function exchangeCode(
  settings: GoogleTokenSettings,
  deps: AdapterDeps,
  input: { code: string; codeVerifier: string; redirectUri: string },
): Promise<{ credentials: Credentials; grantedScopes: string[] }> {
  const json = await tokenRequest(settings, deps, {
    grant_type: 'authorization_code',
    code: input.code,
    code_verifier: input.codeVerifier,
    redirect_uri: input.redirectUri,
  })
  return { credentials: toCredentials(json, deps.now()), grantedScopes: parseScopes(json.scope) }
}

/**
 * A fresh access token from the refresh token. Google normally answers without a refresh token, which
 * means the old one stays valid; a new one, when returned, replaces it.
 */
export async function refreshCredentials(
  settings: GoogleTokenSettings,
  deps: AdapterDeps,
  credentials: Credentials,
  signal?: AbortSignal,
): Promise<Credentials> {
  if (!credentials.refreshToken)
    throw new PublishFailure('auth_expired', 'No refresh token is stored; reconnect')
  const json = await tokenRequest(
    settings,
    deps,
    { grant_type: 'refresh_token', refresh_token: credentials.refreshToken },
    signal,
  )
  return toCredentials(json, deps.now(), credentials)
}

/** A signal that aborts with `signal` or after `ms`, whichever comes first. */
export function withTimeout(signal: AbortSignal | undefined, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(ms)
  return signal ? AbortSignal.any([signal, timeout]) : timeout
}

/**
 * Google's token revocation (`POST https://oauth2.googleapis.com/revoke`, form `token`): revoking the refresh
 * token ends the whole grant, its access tokens with it, and the app leaves the account's third-party access
 * list. Shared with Google Business Profile. 200 on success; `400 invalid_token` for a token Google no
 * longer holds.
 */
export async function revokeGoogleAccess(
  settings: GoogleTokenSettings,
  deps: AdapterDeps,
  credentials: Credentials,
  signal: AbortSignal,
): Promise<void> {
  if (!settings.revokeUrl)
    throw new PublishFailure('transient', "Google's revocation endpoint is not configured")
  let response: Response
  try {
    response = await deps.http(settings.revokeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ token: credentials.refreshToken ?? credentials.accessToken }).toString(),
      signal: withTimeout(signal, 30_000),
    })
  } catch {
    throw new PublishFailure('transient', "Could not reach Google's revocation endpoint")
  }
  if (response.ok) return
  const json = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined
  const code = typeof json?.error === 'string' ? json.error : String(response.status)
  throw new PublishFailure(
    response.status >= 500 ? 'transient' : 'auth_expired',
    `Google refused to revoke access (${code})`,
    { status: response.status, code },
  )
}
