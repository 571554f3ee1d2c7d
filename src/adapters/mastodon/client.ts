import { encodeMultipart } from '../../platform/egress/multipart.js'
import { type AdapterDeps, PublishFailure } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'
import type { InstanceGate } from './instance-gate.js'

/**
 * One request to a Mastodon instance, and the one place where its answers become {@link PublishFailure}
 * kinds. Mastodon's refusals are `{"error": "…"}` with the HTTP status that matters (entities/Error);
 * 429 carries `X-RateLimit-Reset`. The token travels in the `Authorization` header only, redirects are
 * never followed, an answer larger than {@link MAX_ANSWER_BYTES} is not read, and every request waits its
 * turn at the instance's gate, so an instance cannot hold Herald up or flood it.
 */

export interface MastodonCall {
  host: string
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** Path under the instance, e.g. `/api/v1/statuses`. */
  path: string
  query?: Record<string, string | undefined>
  json?: unknown
  /** A multipart body (a media upload). */
  form?: FormData
  /** A form body (the OAuth endpoints take either; Herald sends forms there). */
  urlencoded?: Record<string, string>
  token?: string
  idempotencyKey?: string
  signal?: AbortSignal
  /** The call can make something public: once sent, a lost answer is an unknown outcome. */
  effectful?: boolean
  timeoutMs?: number
  /** What the call does, for messages: `posting the status`. */
  what: string
}

export interface MastodonAnswer<T> {
  status: number
  headers: Headers
  body: T
}

export interface MastodonClient {
  /** The answer of a 2xx; a {@link PublishFailure} otherwise. */
  call<T>(request: MastodonCall): Promise<MastodonAnswer<T>>
  /** The base URL of an instance (for messages and the pages people open). */
  baseUrl(host: string): string
}

/** No JSON answer Herald reads is larger (a page of 40 statuses is a few hundred KB). */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024
const DEFAULT_RATE_LIMIT_WAIT_MS = 5 * 60_000
const MAX_QUOTED = 300

/** When a throttled request may be tried again: `X-RateLimit-Reset` (a timestamp), else Retry-After. */
export function rateLimitResetAt(headers: Headers, now: number): number {
  const reset = headers.get('x-ratelimit-reset')
  if (reset) {
    const at = /^\d+$/.test(reset) ? Number(reset) * 1000 : Date.parse(reset)
    if (Number.isFinite(at) && at > 0) return at
  }
  const retryAfter = headers.get('retry-after')
  if (retryAfter) {
    const seconds = Number(retryAfter)
    if (Number.isFinite(seconds)) return now + seconds * 1000
    const date = Date.parse(retryAfter)
    if (Number.isFinite(date)) return date
  }
  return now + DEFAULT_RATE_LIMIT_WAIT_MS
}

/** An instance's own words, short and on one line: it is a host some person chose, not Herald. */
export const quoted = (text: unknown): string | undefined =>
  typeof text === 'string' && text.trim() !== ''
    ? text
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
        .replace(/[\u0000-\u001f\u007f]+/g, ' ')
        .trim()
        .slice(0, MAX_QUOTED)
    : undefined

/** A refusal as its kind: the HTTP status decides (Mastodon's error texts are translated). */
export function failureFromAnswer(input: {
  host: string
  what: string
  status: number
  body: unknown
  headers: Headers
  now: number
  effectful: boolean
}): PublishFailure {
  const { host, what, status, effectful } = input
  const body = (typeof input.body === 'object' && input.body !== null ? input.body : {}) as {
    error?: unknown
    error_description?: unknown
  }
  const said = quoted(body.error_description) ?? quoted(body.error)
  const message = `${host} answered ${status} to ${what}${said ? `: ${said}` : ''}`
  // OAuth refusals name themselves (`invalid_client`, `invalid_grant`); API refusals are translated prose.
  const oauthCode =
    typeof body.error === 'string' && /^[a-z_]{3,40}$/.test(body.error) ? body.error : undefined
  const options = { code: oauthCode ?? String(status), status }
  if (status === 429)
    return new PublishFailure('rate_limited', message, {
      ...options,
      resetAt: rateLimitResetAt(input.headers, input.now),
    })
  // 401: the token is invalid or revoked; 403: the account may not act (disabled, pending approval, a scope
  // missing); 410: the account is gone. None gets better by itself: the profile needs its person.
  if (status === 401 || status === 403 || status === 410)
    return new PublishFailure('auth_expired', message, options)
  // A 5xx after a status was sent may have been applied (a proxy that timed out, a crash after the write).
  if (status >= 500 && effectful) return new PublishFailure('unknown_outcome', message, options)
  if (status >= 500) return new PublishFailure('transient', message, options)
  // A redirect is not Mastodon's answer to an API call; whatever sits there did not post anything.
  if (status >= 300 && status < 400)
    return new PublishFailure(effectful ? 'unknown_outcome' : 'transient', message, options)
  return new PublishFailure('invalid_content', message, options)
}

/** A request that got no answer (refused, reset, timed out): unknown once an effectful call left Herald. */
export function failureFromThrown(input: {
  host: string
  what: string
  error: unknown
  effectful: boolean
  timedOut: boolean
}): PublishFailure {
  const { host, what, error, effectful, timedOut } = input
  if (error instanceof PublishFailure) return error
  const code = thrownErrorCode(error)
  const reason = timedOut
    ? 'did not answer in time'
    : code === 'HERALD_BLOCKED_ADDRESS'
      ? `was not called: ${(error as Error).message}`
      : (error as Error)?.name === 'AbortError'
        ? 'was left: the send was cancelled'
        : `could not be reached (${code ?? 'network error'})`
  const sent = !(code && NOT_SENT_CODES.has(code))
  if (effectful && sent)
    return new PublishFailure(
      'unknown_outcome',
      `${host} ${reason} while ${what}, after the request was sent: it may or may not have taken effect`,
      { code: code ?? (timedOut ? 'timeout' : 'aborted') },
    )
  return new PublishFailure('transient', `${host} ${reason} while ${what}`, { code: code ?? 'network' })
}

/** The answer's text, read up to {@link MAX_ANSWER_BYTES}; undefined when it is longer. */
async function readCapped(response: Response): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel()
    return undefined
  }
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

async function requestOf(call: MastodonCall, baseUrl: string, signal: AbortSignal) {
  const url = new URL(`${baseUrl}${call.path}`)
  for (const [key, value] of Object.entries(call.query ?? {}))
    if (value !== undefined) url.searchParams.set(key, value)
  const headers: Record<string, string> = { accept: 'application/json' }
  if (call.token) headers.authorization = `Bearer ${call.token}`
  if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey
  let body: RequestInit['body']
  if (call.form) {
    // Encoded to bytes here, never streamed by fetch from the FormData (see src/platform/egress/multipart.ts).
    const encoded = await encodeMultipart(call.form)
    headers['content-type'] = encoded.contentType
    body = encoded.body
  } else if (call.urlencoded) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(call.urlencoded).toString()
  } else if (call.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(call.json)
  }
  return { url, init: { method: call.method, headers, body, redirect: 'manual', signal } as RequestInit }
}

export function createMastodonClient(
  deps: Pick<AdapterDeps, 'http' | 'logger' | 'now'>,
  options: { baseUrl(host: string): string; gate: InstanceGate; timeoutMs: number },
): MastodonClient {
  const send = async <T>(call: MastodonCall): Promise<MastodonAnswer<T>> => {
    const effectful = call.effectful ?? false
    if (call.signal?.aborted)
      throw new PublishFailure('transient', `The send was cancelled before ${call.what}`, { code: 'aborted' })
    const timeout = AbortSignal.timeout(call.timeoutMs ?? options.timeoutMs)
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout
    const { url, init } = await requestOf(call, options.baseUrl(call.host), signal)
    let response: Response
    let text: string | undefined
    try {
      response = await deps.http(url, init)
      text = await readCapped(response)
    } catch (error) {
      const timedOut = timeout.aborted && !call.signal?.aborted
      if (thrownErrorCode(error) !== 'HERALD_BLOCKED_ADDRESS') options.gate.silence(call.host)
      const failure = failureFromThrown({ host: call.host, what: call.what, error, effectful, timedOut })
      deps.logger.debug(
        { host: call.host, path: call.path, kind: failure.kind },
        'mastodon call got no answer',
      )
      throw failure
    }
    options.gate.spoke(call.host)
    deps.logger.debug({ host: call.host, path: call.path, status: response.status }, 'mastodon call')
    if (text === undefined)
      throw new PublishFailure(
        effectful && response.ok ? 'unknown_outcome' : 'transient',
        `${call.host} answered ${call.what} with more than ${MAX_ANSWER_BYTES} bytes`,
        { status: response.status },
      )
    let body: unknown
    try {
      body = text.trim() === '' ? undefined : JSON.parse(text)
    } catch {
      if (response.ok)
        throw new PublishFailure(
          effectful ? 'unknown_outcome' : 'transient',
          `${call.host} answered ${call.what} with something that is not JSON`,
          { status: response.status },
        )
    }
    if (response.status < 200 || response.status >= 300)
      throw failureFromAnswer({
        host: call.host,
        what: call.what,
        status: response.status,
        body,
        headers: response.headers,
        now: deps.now(),
        effectful,
      })
    return { status: response.status, headers: response.headers, body: body as T }
  }
  return {
    call: (request) => options.gate.run(request.host, request.signal, () => send(request)),
    baseUrl: options.baseUrl,
  }
}
