import { nextPacificMidnight } from '../../core/youtube-quota-day.js'
import { PublishFailure } from '../adapter.js'

/**
 * Google's error answers mapped onto spec §7's youtube rows. Classification reads the structured `reason`
 * of `{error: {code, message, errors: [{reason, domain, message}]}}` and the HTTP status, never the
 * message text (Postiz's `body.includes(...)` is the thing to avoid).
 *
 * | reason (or status)                         | kind            | message / code                                          |
 * |--------------------------------------------|-----------------|---------------------------------------------------------|
 * | quotaExceeded                              | rate_limited    | §7 quotaExceeded; resetAt next Pacific midnight         |
 * | uploadLimitExceeded                        | rate_limited    | §7 uploadLimitExceeded; resetAt max(+24 h, midnight PT) |
 * | rateLimitExceeded, userRateLimitExceeded   | rate_limited    | Retry-After, else next Pacific midnight for a daily cap |
 * | invalidTitle                               | invalid_content | §7 "Video title rejected"                               |
 * | forbidden, insufficientPermissions, 401    | auth_expired    | §7 "The request is not properly authorized" (forbidden) |
 * | other 4xx                                  | invalid_content | Google's own message, tags stripped; code = reason      |
 * | 5xx, 408                                   | transient       | Google's message; code = reason or status               |
 *
 * uploadLimitExceeded is rate_limited rather than invalid_content because the same video is fine and
 * will be accepted once the channel's ceiling lifts. Google does not document when that is; uploaders
 * report "about 24 hours", so the reset is a full day from now and never before the next Pacific midnight.
 */

export const QUOTA_EXCEEDED_MESSAGE = 'The request cannot be completed because you have exceeded your quota'
export const UPLOAD_LIMIT_MESSAGE = 'The user has exceeded the number of videos they may upload'
export const INVALID_TITLE_MESSAGE = 'Video title rejected'
export const NOT_AUTHORIZED_MESSAGE = 'The request is not properly authorized'

const DAY_MS = 24 * 60 * 60 * 1000

export interface GoogleError {
  status: number
  /** The first `errors[].reason`, or the top-level `status` (`UNAUTHENTICATED`, ...) when there is none. */
  reason: string | undefined
  reasons: string[]
  message: string | undefined
}

/** Reads Google's JSON error envelope; tolerant of bodies that are not JSON or not in that shape. */
export function parseGoogleError(status: number, body: unknown): GoogleError {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined
  const reasons: string[] = []
  if (error && Array.isArray(error.errors)) {
    for (const item of error.errors) {
      if (isRecord(item) && typeof item.reason === 'string') reasons.push(item.reason)
    }
  }
  const topStatus = error && typeof error.status === 'string' ? error.status : undefined
  const message = error && typeof error.message === 'string' ? cleanMessage(error.message) : undefined
  return { status, reason: reasons[0] ?? topStatus, reasons, message }
}

/** The quotaExceeded failure; also what the worker records when Herald's own quota ledger is full. */
export function quotaExceeded(now: number, status?: number): PublishFailure {
  return new PublishFailure('rate_limited', QUOTA_EXCEEDED_MESSAGE, {
    code: 'quotaExceeded',
    resetAt: nextPacificMidnight(now),
    ...(status === undefined ? {} : { status }),
  })
}

export function notAuthorized(status?: number): PublishFailure {
  return new PublishFailure('auth_expired', NOT_AUTHORIZED_MESSAGE, {
    code: 'forbidden',
    ...(status === undefined ? {} : { status }),
  })
}

/** Maps one Google API error answer onto a {@link PublishFailure} (table above). */
export function classifyGoogleError(
  status: number,
  body: unknown,
  options: { now: number; retryAfter?: string | null },
): PublishFailure {
  const error = parseGoogleError(status, body)
  const has = (reason: string) => error.reasons.includes(reason)
  if (has('quotaExceeded')) return quotaExceeded(options.now, status)
  if (has('uploadLimitExceeded'))
    return new PublishFailure('rate_limited', UPLOAD_LIMIT_MESSAGE, {
      code: 'uploadLimitExceeded',
      status,
      resetAt: Math.max(options.now + DAY_MS, nextPacificMidnight(options.now)),
    })
  if (has('invalidTitle'))
    return new PublishFailure('invalid_content', INVALID_TITLE_MESSAGE, { code: 'invalidTitle', status })
  if (
    status === 401 ||
    has('forbidden') ||
    has('insufficientPermissions') ||
    has('authError') ||
    error.reason === 'PERMISSION_DENIED'
  )
    return notAuthorized(status)
  if (status === 429 || has('rateLimitExceeded') || has('userRateLimitExceeded')) {
    const daily = /per day/i.test(error.message ?? '')
    return new PublishFailure('rate_limited', error.message ?? 'YouTube is rate limiting uploads', {
      code: error.reason ?? String(status),
      status,
      resetAt: daily
        ? nextPacificMidnight(options.now)
        : (retryAfterMs(options.retryAfter, options.now) ?? options.now + 60_000),
    })
  }
  if (status >= 500 || status === 408)
    return new PublishFailure('transient', error.message ?? `YouTube answered ${status}`, {
      code: error.reason ?? String(status),
      status,
    })
  return new PublishFailure('invalid_content', error.message ?? `YouTube refused the request (${status})`, {
    code: error.reason ?? String(status),
    status,
  })
}

/**
 * Maps an OAuth token endpoint refusal: `invalid_grant` (refresh token revoked or expired, code used) means
 * the connection must be made again; `invalid_client` / `unauthorized_client` mean Herald's own Google app
 * credentials are wrong, which reconnecting cannot fix; 5xx is transient.
 */
export function classifyTokenError(status: number, body: unknown): PublishFailure {
  if (status >= 500)
    return new PublishFailure('transient', `Google's token endpoint answered ${status}`, { status })
  const code = isRecord(body) && typeof body.error === 'string' ? body.error : undefined
  if (code === 'invalid_client' || code === 'unauthorized_client')
    return new PublishFailure(
      'invalid_content',
      `Google refused Herald's OAuth client credentials (${code})`,
      {
        code,
        status,
      },
    )
  if (code === 'invalid_grant' || status === 401) return notAuthorized(status)
  return new PublishFailure('invalid_content', `Google refused the token request (${code ?? status})`, {
    code: code ?? String(status),
    status,
  })
}

/** `Retry-After` as an epoch ms: seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (!header) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return now + seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : date
}

/** Google puts HTML links in some messages (the quota one); a target's error is plain text. */
function cleanMessage(message: string): string {
  return message
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\.$/, '')
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
