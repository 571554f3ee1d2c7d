import { encodeMultipart } from '../../platform/egress/multipart.js'
import type { AdapterDeps } from '../adapter.js'
import {
  failureFromAnswer,
  failureFromNetworkError,
  type TwitterAction,
  type TwitterAnswer,
} from './errors.js'

/** What every part of the X adapter shares: where X is, the app credentials, and the injected deps. */
export interface TwitterContext {
  settings: TwitterSettings
  deps: AdapterDeps
  logger: AdapterDeps['logger']
}

/** App credentials and base URLs; from `config.networks.twitter` (or the sandbox in demo mode and tests). */
export interface TwitterSettings {
  clientId: string
  /** Set for a confidential client: the token endpoint is then called with HTTP Basic auth. */
  clientSecret?: string | undefined
  /** API origin, `https://api.x.com` by default; no trailing slash. */
  apiUrl: string
  /** Where users consent, `https://x.com/i/oauth2/authorize` by default. */
  authorizeUrl: string
  /** Where people read posts: a post's URL is `${webUrl}/<username>/status/<id>`. Default {@link X_WEB_URL}. */
  webUrl?: string | undefined
}

/** x.com, whose post pages the URLs of published posts name unless the settings say otherwise. */
export const X_WEB_URL = 'https://x.com'

/** A post's address on X's web site. */
export const tweetUrl = (ctx: TwitterContext, username: string, id: string) =>
  `${ctx.settings.webUrl ?? X_WEB_URL}/${username}/status/${id}`

export interface TwitterRequest {
  method: 'GET' | 'POST'
  /** Path under `apiUrl`, e.g. `/2/tweets`. */
  path: string
  query?: Record<string, string>
  /** User access token; never logged. */
  bearer?: string
  json?: unknown
  form?: URLSearchParams
  multipart?: FormData
  basicAuth?: { user: string; password: string }
  signal?: AbortSignal
  /** Per-request ceiling; the caller's signal still applies. */
  timeoutMs: number
  /** Named in failure messages: `the post`, `media append`, ... */
  what: string
  /** True only for POST /2/tweets: a lost answer then means the outcome is unknown. */
  mayHaveTakenEffect?: boolean
}

/** Default per-request ceiling for API calls. */
export const API_TIMEOUT_MS = 30_000

/**
 * Sends one request to X with the injected fetch and returns the answer, body parsed as JSON when it
 * is JSON. Network failures are thrown as {@link PublishFailure}s (see {@link failureFromNetworkError});
 * HTTP refusals are returned for the caller to classify (see {@link expectOk}).
 */
export async function sendToTwitter(ctx: TwitterContext, request: TwitterRequest): Promise<TwitterAnswer> {
  const url = new URL(`${ctx.settings.apiUrl}${request.path}`)
  for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value)
  const headers: Record<string, string> = { accept: 'application/json' }
  if (request.bearer) headers.authorization = `Bearer ${request.bearer}`
  if (request.basicAuth) {
    const pair = `${encodeURIComponent(request.basicAuth.user)}:${encodeURIComponent(request.basicAuth.password)}`
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`
  }
  let body: string | URLSearchParams | Uint8Array<ArrayBuffer> | undefined
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(request.json)
  } else if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = request.form
  } else if (request.multipart) {
    // Encoded to bytes here, never streamed by fetch from the FormData: see src/platform/egress/multipart.ts (an upload
    // cut short would otherwise end the worker process).
    const encoded = await encodeMultipart(request.multipart)
    headers['content-type'] = encoded.contentType
    body = encoded.body
  }
  const timeout = AbortSignal.timeout(request.timeoutMs)
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout
  const mayHaveTakenEffect = request.mayHaveTakenEffect ?? false
  try {
    const response = await ctx.deps.http(url, { method: request.method, headers, body, signal })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: parseBody(text) }
  } catch (error) {
    ctx.logger.warn(
      {
        path: request.path,
        method: request.method,
        code: (error as { cause?: { code?: string } }).cause?.code,
      },
      'request to X failed without an answer',
    )
    throw failureFromNetworkError(error, { mayHaveTakenEffect, what: request.what })
  }
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Returns the body of a 2xx answer; throws the classified {@link PublishFailure} otherwise. */
export function expectOk(
  ctx: TwitterContext,
  answer: TwitterAnswer,
  action: TwitterAction,
  secrets: readonly (string | undefined)[],
): unknown {
  if (answer.status >= 200 && answer.status < 300) return answer.body
  throw failureFromAnswer(answer, { action, now: ctx.deps.now(), secrets })
}
