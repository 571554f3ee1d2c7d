import type { Logger } from '../../platform/logger.js'
import { type AdapterDeps, PublishFailure } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'

/**
 * Plain-HTTP XRPC (`/xrpc/<nsid>`) and the one place where Bluesky answers become
 * {@link PublishFailure} kinds. Errors are read from the XRPC body `{error, message}` and the status,
 * never from free text.
 */

export interface XrpcCall {
  /** Base URL of the server: a PDS, an entryway or an AppView. */
  service: string
  nsid: string
  /** Query parameters; an array repeats the name (`uris=a&uris=b`). */
  params?: Record<string, string | readonly string[] | undefined>
  /** A JSON body; the call becomes a POST. */
  json?: unknown
  /** A raw body (a blob upload); the call becomes a POST. */
  raw?: { body: Uint8Array<ArrayBuffer>; contentType: string }
  /** A POST without a body (refreshSession); implied by `json` or `raw`. */
  post?: boolean
  /** Sent as `Authorization: Bearer`. */
  token?: string
  signal?: AbortSignal
  /**
   * The call creates something (createRecord): once it has been sent, a lost answer means the outcome
   * is unknown, and the failure is `unknown_outcome` rather than `transient`.
   */
  effectful?: boolean
  /** Overrides the client's default timeout (long uploads). */
  timeoutMs?: number
}

export type Xrpc = <T>(call: XrpcCall) => Promise<T>

/** GET of a JSON document that is not XRPC (a DID document), with the same failure mapping. */
export type GetJson = <T>(url: string, signal?: AbortSignal) => Promise<T>

/** XRPC error names that mean the credentials cannot be used as they are. */
const AUTH_ERRORS = new Set([
  'AuthenticationRequired',
  'ExpiredToken',
  'InvalidToken',
  'AccountTakedown',
  'AccountDeactivated',
  'AuthFactorTokenRequired',
])

const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000

interface XrpcErrorBody {
  error?: unknown
  message?: unknown
}

/** When a throttled request may be tried again (epoch ms), from `ratelimit-reset` or `retry-after`. */
export function rateLimitResetAt(headers: Headers, now: number): number {
  const reset = Number(headers.get('ratelimit-reset'))
  if (Number.isFinite(reset) && reset > 0) return reset * 1000
  const retryAfter = headers.get('retry-after')
  if (retryAfter) {
    const seconds = Number(retryAfter)
    if (Number.isFinite(seconds)) return now + seconds * 1000
    const date = Date.parse(retryAfter)
    if (Number.isFinite(date)) return date
  }
  return now + DEFAULT_RATE_LIMIT_WAIT_MS
}

/** Maps an XRPC error answer to a failure kind. `label` names the call in the message. */
export function failureFromResponse(input: {
  label: string
  status: number
  body: unknown
  headers: Headers
  now: number
  effectful: boolean
}): PublishFailure {
  const { label, status, headers, now, effectful } = input
  const body = (typeof input.body === 'object' && input.body !== null ? input.body : {}) as XrpcErrorBody
  const name = typeof body.error === 'string' ? body.error : undefined
  const detail = typeof body.message === 'string' ? body.message : undefined
  const message = `Bluesky ${label} answered ${status}${name ? ` ${name}` : ''}${detail ? `: ${detail}` : ''}`
  const options = { code: name ?? String(status), status }

  if (status === 429 || name === 'RateLimitExceeded') {
    return new PublishFailure('rate_limited', message, {
      ...options,
      resetAt: rateLimitResetAt(headers, now),
    })
  }
  if (status === 401 || status === 403 || (name !== undefined && AUTH_ERRORS.has(name))) {
    return new PublishFailure('auth_expired', message, options)
  }
  // 501: the server lacks the method altogether; asking again will not help.
  if (status === 501) return new PublishFailure('invalid_content', message, options)
  // A 5xx after a write was sent (a gateway that timed out, a PDS that failed after committing) may have
  // been applied: an unknown outcome. The record key derived from the target makes a later retry safe.
  if (status >= 500 && effectful) return new PublishFailure('unknown_outcome', message, options)
  if (status >= 500) return new PublishFailure('transient', message, options)
  return new PublishFailure('invalid_content', message, options)
}

/** Maps a request that got no answer (network error, timeout, abort) to a failure kind. */
export function failureFromThrown(input: {
  label: string
  error: unknown
  effectful: boolean
  timedOut: boolean
}): PublishFailure {
  const { label, error, effectful, timedOut } = input
  const code = thrownErrorCode(error)
  const reason = timedOut
    ? 'timed out'
    : code === 'HERALD_BLOCKED_ADDRESS'
      ? `was not sent: ${(error as Error).message}`
      : (error as Error)?.name === 'AbortError'
        ? 'was cancelled'
        : `failed (${code ?? 'network error'})`
  const sentBeforeFailing = !(code && NOT_SENT_CODES.has(code))
  if (effectful && sentBeforeFailing) {
    return new PublishFailure(
      'unknown_outcome',
      `Bluesky ${label} ${reason} after the request was sent: it may or may not have taken effect`,
      { code: code ?? (timedOut ? 'timeout' : 'aborted') },
    )
  }
  return new PublishFailure('transient', `Bluesky ${label} ${reason}`, { code: code ?? 'network' })
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'invalid-url'
  }
}

async function send<T>(
  deps: { http: typeof fetch; logger: Logger; now(): number },
  request: {
    url: string
    init: RequestInit
    label: string
    effectful: boolean
    timeoutMs: number
    signal?: AbortSignal
  },
): Promise<T> {
  const { url, init, label, effectful, timeoutMs, signal } = request
  if (signal?.aborted) {
    // Nothing was sent: cancelling before the call is always safe to retry.
    throw new PublishFailure('transient', `Bluesky ${label} was cancelled before it was sent`, {
      code: 'aborted',
    })
  }
  const timeout = AbortSignal.timeout(timeoutMs)
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout
  const started = deps.now()
  const thrown = (error: unknown) =>
    failureFromThrown({ label, error, effectful, timedOut: timeout.aborted && !signal?.aborted })

  let response: Response
  let text: string
  try {
    // Redirects are never followed: a PDS or DID host could point Herald anywhere, including inside.
    response = await deps.http(url, { ...init, redirect: 'manual', signal: combined })
    text = await response.text()
  } catch (error) {
    const failure = thrown(error)
    deps.logger.debug({ call: label, host: hostOf(url), kind: failure.kind }, 'bluesky call got no answer')
    throw failure
  }
  deps.logger.debug(
    { call: label, host: hostOf(url), status: response.status, ms: deps.now() - started },
    'bluesky call',
  )

  let body: unknown
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    body = undefined
    if (response.ok) {
      throw new PublishFailure(
        effectful ? 'unknown_outcome' : 'transient',
        `Bluesky ${label} answered ${response.status} with a body that is not JSON`,
        { status: response.status },
      )
    }
  }
  if (!response.ok) {
    throw failureFromResponse({
      label,
      status: response.status,
      body,
      headers: response.headers,
      now: deps.now(),
      effectful,
    })
  }
  return body as T
}

export function createXrpc(
  deps: Pick<AdapterDeps, 'http' | 'logger' | 'now'>,
  defaults: { timeoutMs: number },
): { xrpc: Xrpc; getJson: GetJson } {
  const xrpc: Xrpc = (call) => {
    const url = new URL(`${call.service.replace(/\/+$/, '')}/xrpc/${call.nsid}`)
    for (const [key, value] of Object.entries(call.params ?? {})) {
      if (value === undefined) continue
      for (const item of typeof value === 'string' ? [value] : value) url.searchParams.append(key, item)
    }
    const headers: Record<string, string> = { accept: 'application/json' }
    if (call.token) headers.authorization = `Bearer ${call.token}`
    let body: RequestInit['body']
    if (call.raw) {
      headers['content-type'] = call.raw.contentType
      body = call.raw.body
    } else if (call.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(call.json)
    }
    return send(deps, {
      url: url.toString(),
      init: { method: body === undefined && !call.post ? 'GET' : 'POST', headers, body },
      label: call.nsid,
      effectful: call.effectful ?? false,
      timeoutMs: call.timeoutMs ?? defaults.timeoutMs,
      signal: call.signal,
    })
  }
  const getJson: GetJson = (url, signal) =>
    send(deps, {
      url,
      init: { method: 'GET', headers: { accept: 'application/json, application/did+ld+json' } },
      label: `GET ${hostOf(url)}`,
      effectful: false,
      timeoutMs: defaults.timeoutMs,
      signal,
    })
  return { xrpc, getJson }
}
