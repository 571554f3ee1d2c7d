import { PublishFailure } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'
import { retryAfterMs } from '../youtube/errors.js'

/**
 * Google's answers on the Business Profile APIs mapped onto Herald's failure kinds. Their error body is
 * the newer Google envelope, `{error: {code, message, status, details: [{"@type", reason, metadata}]}}`;
 * classification reads `status`, the details' `reason` and `quota_limit_value`, and the HTTP status, never
 * the message text.
 *
 * | answer                                                    | kind            | why                          |
 * |-----------------------------------------------------------|-----------------|------------------------------|
 * | 429 RESOURCE_EXHAUSTED with `quota_limit_value` "0"       | invalid_content | no API access granted yet    |
 * | 429 RESOURCE_EXHAUSTED (any other)                        | rate_limited    | 300 a minute per API         |
 * | 403 SERVICE_DISABLED                                      | invalid_content | an API is off in the project |
 * | 401 UNAUTHENTICATED, 403 PERMISSION_DENIED                | auth_expired    | token or access lost         |
 * | 404 NOT_FOUND                                             | invalid_content | location or post gone        |
 * | 400 INVALID_ARGUMENT, other 4xx                           | invalid_content | Google's own words           |
 * | 5xx, 408, no answer                                       | transient, or unknown_outcome on a call that publishes |
 *
 * A project Google has not granted access to has a quota of 0 requests a minute on every Business
 * Profile API, so every call is refused with a 429 that looks like a rate limit; waiting never helps, so it
 * fails at once, saying what to do.
 */

export const NO_API_ACCESS_MESSAGE =
  "Google has not granted this Herald's Google Cloud project access to the Business Profile APIs yet: until Google approves the project's application for Basic API Access, it refuses every call with a quota of 0 requests a minute. The network apps page says how to apply"

/** How long Google's per-minute quotas take to refill; it sends no rate-limit headers to say. */
const QUOTA_WINDOW_MS = 60_000

/** A field a BadRequest (`fieldViolations`) or a v4 ValidationError (`errorDetails`) detail names. */
interface Violation {
  field?: unknown
  description?: unknown
  message?: unknown
}

interface Detail {
  '@type'?: unknown
  reason?: unknown
  metadata?: Record<string, unknown>
  fieldViolations?: Violation[]
  errorDetails?: Violation[]
}

export interface GoogleApiError {
  status: number
  /** `INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, ... */
  code: string | undefined
  message: string | undefined
  /** The ErrorInfo reasons (`RATE_LIMIT_EXCEEDED`, `SERVICE_DISABLED`). */
  reasons: string[]
  /** True when a quota the answer names is 0: the project has no access at all. */
  quotaZero: boolean
  /** What a BadRequest or ValidationError detail says of each field. */
  fields: string[]
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Reads Google's error envelope; tolerant of bodies that are not JSON or not in that shape. */
export function parseGoogleApiError(status: number, body: unknown): GoogleApiError {
  const error = isRecord(body) && isRecord(body.error) ? body.error : {}
  const details = (Array.isArray(error.details) ? error.details : []).filter(isRecord) as Detail[]
  const reasons = details.flatMap((d) => (typeof d.reason === 'string' ? [d.reason] : []))
  const quotaZero = details.some((d) => d.metadata?.quota_limit_value === '0')
  return {
    status,
    code: typeof error.status === 'string' ? error.status : undefined,
    message: typeof error.message === 'string' ? error.message.replace(/\s+/g, ' ').trim() : undefined,
    reasons,
    quotaZero,
    fields: fieldProblems(details),
  }
}

function fieldProblems(details: Detail[]): string[] {
  const problems: string[] = []
  for (const detail of details)
    for (const violation of [...(detail.fieldViolations ?? []), ...(detail.errorDetails ?? [])]) {
      const text = violation.description ?? violation.message
      if (typeof text === 'string')
        problems.push(typeof violation.field === 'string' ? `${violation.field}: ${text}` : text)
    }
  return problems
}

/** One refusal of a Business Profile API as a {@link PublishFailure} (table above). */
export function classifyGoogleApiError(
  status: number,
  body: unknown,
  options: { now: number; retryAfter?: string | null; what: string; publishing: boolean },
): PublishFailure {
  const error = parseGoogleApiError(status, body)
  const code = error.reasons[0] ?? error.code ?? String(status)
  const said = error.message ? `: ${error.message.replace(/\.$/, '')}` : ''
  const base = { code, status }
  if ((status === 429 || error.code === 'RESOURCE_EXHAUSTED') && error.quotaZero)
    return new PublishFailure('invalid_content', NO_API_ACCESS_MESSAGE, {
      ...base,
      code: 'apiAccessNotGranted',
    })
  if (status === 429 || error.code === 'RESOURCE_EXHAUSTED')
    return new PublishFailure('rate_limited', `Google is rate limiting ${options.what}${said}`, {
      ...base,
      resetAt: retryAfterMs(options.retryAfter, options.now) ?? options.now + QUOTA_WINDOW_MS,
    })
  if (error.reasons.includes('SERVICE_DISABLED'))
    return new PublishFailure(
      'invalid_content',
      `A Business Profile API Herald needs for ${options.what} is not enabled in this Herald's Google Cloud project; enable it in the project's API library${said}`,
      base,
    )
  if (
    status === 401 ||
    error.code === 'UNAUTHENTICATED' ||
    status === 403 ||
    error.code === 'PERMISSION_DENIED'
  )
    return new PublishFailure(
      'auth_expired',
      `Google refused ${options.what}: this Google account can no longer manage the location, or its sign-in was revoked; reconnect it${said}`,
      base,
    )
  if (status === 404 || error.code === 'NOT_FOUND')
    return new PublishFailure(
      'invalid_content',
      `Google found nothing for ${options.what}: the location was removed from this Google account, or deleted${said}`,
      base,
    )
  if (status >= 500 || status === 408) {
    const message = `Google answered ${status} to ${options.what}${said}`
    return options.publishing
      ? new PublishFailure('unknown_outcome', `${message}; the post may or may not have been published`, base)
      : new PublishFailure('transient', message, base)
  }
  const fields = error.fields.length > 0 ? ` (${error.fields.join('; ')})` : ''
  return new PublishFailure(
    'invalid_content',
    `Google refused ${options.what}${said || ` (${status})`}${fields}`,
    base,
  )
}

/** A request that got no answer: never sent (safe to retry), or lost on the way back (perhaps done). */
export function failureWithoutAnswer(
  error: unknown,
  options: { what: string; publishing: boolean },
): PublishFailure {
  const code = thrownErrorCode(error)
  if (code && NOT_SENT_CODES.has(code))
    return new PublishFailure('transient', `Could not reach Google for ${options.what} (${code})`, { code })
  const name = error instanceof Error ? error.name : undefined
  const timedOut = name === 'TimeoutError' || name === 'AbortError'
  const silence = `Google did not answer ${options.what} (${timedOut ? 'timed out' : (code ?? 'connection lost')})`
  const details = code ? { code } : {}
  return options.publishing
    ? new PublishFailure(
        'unknown_outcome',
        `${silence}; the post may or may not have been published`,
        details,
      )
    : new PublishFailure('transient', silence, details)
}
