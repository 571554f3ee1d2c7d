import { PublishFailure } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'

/**
 * Spec §7's twitter table, word for word. A failure message starts with one of these; where the table's
 * cause leaves room (403, 400) X's own detail follows after a colon so a person can act on it.
 */
export const twitterMessages = {
  /** 401: refresh token revoked or connection removed. */
  unauthorized: 'Access token for twitter is missing or invalid',
  /** 403 (and other refusals of the post itself): write access missing, or duplicate content. */
  postingFailed: 'Twitter API v2 posting failed',
  /** 400 on a media step: the post still ships with the media URL appended (spec §1 rule 4). */
  mediaUploadFailed: 'Twitter Media Upload Initialization failed',
  /** 429: the per-app or per-user window is exhausted. */
  tooManyRequests: 'Too Many Requests',
} as const

/** What the adapter was doing when X answered; it picks the message for refusals that are not 401/429. */
export type TwitterAction = 'publish' | 'read' | 'token'

/** X's answer, body parsed as JSON when it was JSON (problem+json, legacy `errors`, or OAuth errors). */
export interface TwitterAnswer {
  status: number
  headers: Headers
  body: unknown
}

const MAX_DETAIL = 400

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * X's explanation of a refusal, read from the structured fields of the three body shapes it uses:
 * v2 problem JSON (`errors[].message` of an invalid-request problem, else `detail`, else `title`), the
 * legacy `{errors: [{code, message}]}`, and the OAuth `{error, error_description}`.
 */
export function twitterErrorDetail(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined
  const listed = Array.isArray(body.errors)
    ? body.errors
        .map((entry) =>
          isRecord(entry)
            ? typeof entry.message === 'string'
              ? entry.message
              : typeof entry.detail === 'string'
                ? entry.detail
                : undefined
            : undefined,
        )
        .filter((message): message is string => Boolean(message))
    : []
  if (listed.length > 0) return listed.join('; ')
  for (const key of ['detail', 'title', 'error_description', 'error'] as const) {
    const value = body[key]
    if (typeof value === 'string' && value.trim() !== '') return value
  }
  return undefined
}

/**
 * X's own name for a refusal: the problem `type`'s last segment when it is not `about:blank`, the
 * legacy numeric code, the OAuth `error`, or else the HTTP status.
 */
export function twitterErrorCode(status: number, body: unknown): string {
  if (isRecord(body)) {
    if (typeof body.type === 'string' && body.type !== 'about:blank') {
      return body.type.split('/').pop() || String(status)
    }
    const first = Array.isArray(body.errors) ? body.errors[0] : undefined
    if (isRecord(first) && typeof first.code === 'number') return String(first.code)
    if (typeof body.error === 'string') return body.error
  }
  return String(status)
}

/** Replaces every occurrence of a secret (token, code, verifier, client secret) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) {
    // Very short values could blank out ordinary words; real tokens are tens of characters.
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]')
  }
  return out
}

/** A detail fit for a failure message: structured, capped, and with secrets removed. */
export function safeDetail(body: unknown, secrets: readonly (string | undefined)[]): string | undefined {
  const detail = twitterErrorDetail(body)
  if (!detail) return undefined
  const capped = detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail
  return redactSecrets(capped, secrets)
}

/**
 * When a 429 lifts, in epoch ms. X sends `x-rate-limit-reset` (epoch seconds) on every answer, and on
 * POST /2/tweets also the 24-hour user and app windows; the window that is exhausted decides, the
 * 15-minute one when none says so. Falls back to `retry-after` (seconds).
 */
export function rateLimitResetAt(headers: Headers, now: number): number | undefined {
  const windows = ['x-rate-limit', 'x-user-limit-24hour', 'x-app-limit-24hour']
  const exhausted = windows
    .filter((prefix) => headers.get(`${prefix}-remaining`) === '0')
    .map((prefix) => Number(headers.get(`${prefix}-reset`)))
    .filter((seconds) => Number.isFinite(seconds) && seconds > 0)
  if (exhausted.length > 0) return Math.max(...exhausted) * 1000
  const reset = Number(headers.get('x-rate-limit-reset'))
  if (Number.isFinite(reset) && reset > 0) return reset * 1000
  const retryAfter = Number(headers.get('retry-after'))
  if (Number.isFinite(retryAfter) && retryAfter > 0) return now + retryAfter * 1000
  return undefined
}

/**
 * Maps a non-2xx answer to the closed failure kinds by HTTP status and structured body fields only
 * (never by searching body text): 401 auth, 429 rate limit, 5xx transient (an unknown outcome for the
 * publish call itself, which may have taken effect), any other 4xx a refusal of
 * the request itself. The token endpoint's 400 (`invalid_request`/`invalid_grant`) is an auth failure.
 */
export function failureFromAnswer(
  answer: TwitterAnswer,
  options: { action: TwitterAction; now: number; secrets: readonly (string | undefined)[] },
): PublishFailure {
  const { status, headers, body } = answer
  const code = twitterErrorCode(status, body)
  const detail = safeDetail(body, options.secrets)
  const withDetail = (message: string) => (detail ? `${message}: ${detail}` : message)
  if (status === 401) {
    return new PublishFailure('auth_expired', twitterMessages.unauthorized, { code, status })
  }
  if (status === 429) {
    return new PublishFailure('rate_limited', twitterMessages.tooManyRequests, {
      code,
      status,
      resetAt: rateLimitResetAt(headers, options.now),
    })
  }
  if (status >= 500 && options.action === 'publish') {
    // X can create the post and still answer 5xx: resending could post twice (or hit the duplicate 403 and
    // mark a published target failed), so the outcome is unknown until someone looks.
    return new PublishFailure(
      'unknown_outcome',
      withDetail(`X answered ${status} after the post was sent; it may or may not have been created`),
      { code, status },
    )
  }
  if (status >= 500) {
    return new PublishFailure('transient', withDetail(`X answered ${status}`), { code, status })
  }
  if (options.action === 'token') {
    return new PublishFailure('auth_expired', withDetail(twitterMessages.unauthorized), { code, status })
  }
  if (options.action === 'publish') {
    return new PublishFailure('invalid_content', withDetail(twitterMessages.postingFailed), { code, status })
  }
  return new PublishFailure('invalid_content', withDetail(`X refused the request (${status})`), {
    code,
    status,
  })
}

const isErrorLike = (value: unknown): value is { code?: unknown; cause?: unknown; name?: unknown } =>
  typeof value === 'object' && value !== null

/**
 * Maps a fetch that threw. A connection that never opened is `transient` (nothing reached X). Anything
 * later (reset, timeout, abort) is `unknown_outcome` when the request could have taken effect
 * (`mayHaveTakenEffect`, i.e. POST /2/tweets), otherwise `transient`.
 */
export function failureFromNetworkError(
  error: unknown,
  options: { mayHaveTakenEffect: boolean; what: string },
): PublishFailure {
  const code = thrownErrorCode(error)
  const name = isErrorLike(error) && typeof error.name === 'string' ? error.name : undefined
  const timedOut = name === 'TimeoutError' || name === 'AbortError'
  if (code && NOT_SENT_CODES.has(code)) {
    return new PublishFailure('transient', `Could not reach X for ${options.what} (${code})`, { code })
  }
  const silence = `X did not answer ${options.what} (${timedOut ? 'timed out' : (code ?? 'connection lost')})`
  const details = code ? { code } : {}
  if (options.mayHaveTakenEffect) {
    // The request may have reached X: resending could post twice, so this is never retried automatically.
    return new PublishFailure(
      'unknown_outcome',
      `${silence}; the post may or may not have been published`,
      details,
    )
  }
  return new PublishFailure('transient', silence, details)
}
