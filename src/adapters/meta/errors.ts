import { PublishFailure } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'

/**
 * Meta's Graph API error envelope (Facebook Pages, Instagram, Threads) mapped onto the closed failure
 * kinds. Classification reads the structured `error.code`, `error.error_subcode`, `error.is_transient`
 * and the HTTP status, never the message text.
 *
 * | code / subcode                                  | kind            |
 * |-------------------------------------------------|-----------------|
 * | 190 (any subcode), 102, 2207050 / 33 sessions   | auth_expired    |
 * | 10, 200-299                                     | auth_expired (a missing permission, said in words) |
 * | 4, 17, 32, 613, 341, 80001-80014, 9 / 2207042   | rate_limited (reset from X-Business-Use-Case-Usage / X-App-Usage) |
 * | 1, 2, `is_transient: true`, 5xx                 | transient       |
 * | 368, 506, 1366046, 2207xxx and any other 4xx    | invalid_content (Meta's user message) |
 */

export interface GraphError {
  /** HTTP status of the answer. */
  status: number
  code: number | undefined
  subcode: number | undefined
  type: string | undefined
  message: string | undefined
  /** `error_user_title` / `error_user_msg`: the text Meta writes for people. */
  userTitle: string | undefined
  userMessage: string | undefined
  isTransient: boolean
  fbtraceId: string | undefined
}

/** One answer from a Graph host, body parsed as JSON when it was JSON. */
export interface GraphAnswer {
  status: number
  headers: Headers
  body: unknown
}

const MAX_DETAIL = 400
const HOUR_MS = 60 * 60 * 1000
/** What to wait when a rate limit names no reset time: Meta's windows are rolling hours. */
const DEFAULT_RATE_LIMIT_WAIT_MS = HOUR_MS

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value)
    ? value
    : typeof value === 'string' && /^-?\d+$/.test(value)
      ? Number(value)
      : undefined
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined

/** Reads `{error: {...}}`; undefined when the body is not Meta's envelope. */
export function parseGraphError(status: number, body: unknown): GraphError | undefined {
  if (!isRecord(body) || !isRecord(body.error)) return undefined
  const e = body.error
  return {
    status,
    code: num(e.code),
    subcode: num(e.error_subcode),
    type: str(e.type),
    message: str(e.message),
    userTitle: str(e.error_user_title),
    userMessage: str(e.error_user_msg),
    isTransient: e.is_transient === true,
    fbtraceId: str(e.fbtrace_id),
  }
}

const RATE_LIMIT_CODES = new Set([4, 17, 32, 341, 613])
/** Instagram's "daily publishing limit reached" (code 9 with this subcode). */
export const PUBLISHING_LIMIT_SUBCODE = 2207042

export const isRateLimitCode = (code: number | undefined, subcode?: number): boolean =>
  code !== undefined &&
  (RATE_LIMIT_CODES.has(code) ||
    (code >= 80001 && code <= 80014) ||
    subcode === PUBLISHING_LIMIT_SUBCODE ||
    (code === 9 && subcode === undefined))

/** Codes that say the token no longer works (expired, revoked, password changed, app removed). */
export const isTokenCode = (code: number | undefined): boolean => code === 190 || code === 102

/** Codes that say a permission (scope or Page task) is missing. */
export const isPermissionCode = (code: number | undefined): boolean =>
  code === 10 || (code !== undefined && code >= 200 && code <= 299)

/** What Meta said, for people: the user message when there is one, else the developer message. */
export function graphErrorDetail(
  error: GraphError,
  secrets: readonly (string | undefined)[],
): string | undefined {
  const parts = [error.userTitle, error.userMessage ?? error.message].filter((p): p is string => Boolean(p))
  const detail = [...new Set(parts)].join(': ')
  if (!detail) return undefined
  const capped = detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail
  return redactSecrets(capped, secrets)
}

/** Replaces every occurrence of a secret (token, code, client secret) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]')
  }
  return out
}

function parseJsonHeader(value: string | null): unknown {
  if (!value) return undefined
  try {
    return JSON.parse(value)
  } catch {
    return undefined
  }
}

/** The highest usage percentage in an `X-App-Usage`-style object (`call_count`, `total_cputime`, `total_time`). */
function usagePercent(usage: unknown): number | undefined {
  if (!isRecord(usage)) return undefined
  const values = ['call_count', 'total_cputime', 'total_time']
    .map((key) => num(usage[key]))
    .filter((v): v is number => v !== undefined)
  return values.length > 0 ? Math.max(...values) : undefined
}

/**
 * When a Meta rate limit lifts, in epoch ms. `X-Business-Use-Case-Usage` (`{"<id>": [{..,
 * "estimated_time_to_regain_access": minutes}]}`) names it for Page and Instagram calls; otherwise a
 * usage of 100% in `X-App-Usage` (or the business header) means the rolling hour, so an hour from now.
 * Undefined when the headers say nothing.
 */
export function usageResetAt(headers: Headers, now: number): number | undefined {
  const business = parseJsonHeader(headers.get('x-business-use-case-usage'))
  let minutes: number | undefined
  let exhausted = false
  if (isRecord(business)) {
    for (const entries of Object.values(business)) {
      if (!Array.isArray(entries)) continue
      for (const entry of entries) {
        if (!isRecord(entry)) continue
        const wait = num(entry.estimated_time_to_regain_access)
        if (wait !== undefined && wait > 0) minutes = Math.max(minutes ?? 0, wait)
        if ((usagePercent(entry) ?? 0) >= 100) exhausted = true
      }
    }
  }
  if (minutes !== undefined) return now + minutes * 60_000
  for (const name of ['x-app-usage', 'x-ad-account-usage']) {
    if ((usagePercent(parseJsonHeader(headers.get(name))) ?? 0) >= 100) exhausted = true
  }
  return exhausted ? now + HOUR_MS : undefined
}

/** The highest usage percentage any of Meta's usage headers reports (for "nearly used" warnings and logs). */
export function highestUsage(headers: Headers): number | undefined {
  const values: number[] = []
  const app = usagePercent(parseJsonHeader(headers.get('x-app-usage')))
  if (app !== undefined) values.push(app)
  const business = parseJsonHeader(headers.get('x-business-use-case-usage'))
  if (isRecord(business)) {
    for (const entries of Object.values(business)) {
      if (!Array.isArray(entries)) continue
      for (const entry of entries) {
        const used = usagePercent(entry)
        if (used !== undefined) values.push(used)
      }
    }
  }
  return values.length > 0 ? Math.max(...values) : undefined
}

export interface ClassifyOptions {
  /** The network's name in messages: `Facebook`, `Instagram`, `Threads`. */
  label: string
  now: number
  secrets: readonly (string | undefined)[]
}

/**
 * Maps a non-2xx Graph answer (or a 200 carrying an `error`) to a {@link PublishFailure}. The failure's
 * `code` is `code` or `code/subcode`, so logs and stored errors keep Meta's numbers.
 */
export function failureFromGraph(answer: GraphAnswer, options: ClassifyOptions): PublishFailure {
  const { status, headers, body } = answer
  const { label } = options
  const error = parseGraphError(status, body)
  if (!error) {
    if (status === 401 || status === 403)
      return new PublishFailure(
        'auth_expired',
        `${label} refused the access token (${status}); reconnect the profile`,
        {
          code: String(status),
          status,
        },
      )
    if (status === 429)
      return new PublishFailure('rate_limited', `${label} rate limit reached`, {
        code: '429',
        status,
        resetAt: usageResetAt(headers, options.now) ?? options.now + DEFAULT_RATE_LIMIT_WAIT_MS,
      })
    if (status >= 500 || status === 408)
      return new PublishFailure('transient', `${label} answered ${status}`, { code: String(status), status })
    return new PublishFailure('invalid_content', `${label} refused the request (${status})`, {
      code: String(status),
      status,
    })
  }
  const code = error.subcode !== undefined ? `${error.code}/${error.subcode}` : String(error.code ?? status)
  const detail = graphErrorDetail(error, options.secrets)
  const said = (message: string) => (detail ? `${message}: ${detail}` : message)
  const details = { code, status }

  if (isTokenCode(error.code))
    return new PublishFailure(
      'auth_expired',
      said(`The ${label} access token is expired or was revoked; reconnect the profile`),
      details,
    )
  if (isPermissionCode(error.code))
    return new PublishFailure(
      'auth_expired',
      said(
        `${label} says a permission is missing (error ${error.code}); reconnect the profile and grant every permission Herald asks for`,
      ),
      details,
    )
  if (isRateLimitCode(error.code, error.subcode)) {
    const daily = error.subcode === PUBLISHING_LIMIT_SUBCODE || error.code === 9
    return new PublishFailure(
      'rate_limited',
      said(
        daily
          ? `${label} publishing limit reached for the last 24 hours`
          : `${label} rate limit reached (error ${error.code})`,
      ),
      {
        ...details,
        resetAt:
          usageResetAt(headers, options.now) ??
          options.now + (daily ? 24 * HOUR_MS : DEFAULT_RATE_LIMIT_WAIT_MS),
      },
    )
  }
  if (error.code === 1 || error.code === 2 || error.isTransient || status >= 500)
    return new PublishFailure(
      'transient',
      said(`${label} had a temporary problem (error ${error.code ?? status})`),
      details,
    )
  return new PublishFailure('invalid_content', said(`${label} refused the content (error ${code})`), details)
}

/** True when a failure came from a missing permission (analytics say "reconnect and grant insights"). */
export function isMissingPermission(failure: PublishFailure): boolean {
  const code = Number(failure.options.code?.split('/')[0])
  return failure.kind === 'auth_expired' && isPermissionCode(code)
}

/**
 * Maps a fetch that threw. A connection that never opened is `transient`; anything later (reset,
 * timeout, abort) is `unknown_outcome` when the request could have taken effect (`media_publish`,
 * `/feed`, `/photos`, `/videos`), otherwise `transient`.
 */
export function failureFromNetworkError(
  error: unknown,
  options: { label: string; mayHaveTakenEffect: boolean; what: string },
): PublishFailure {
  const code = thrownErrorCode(error)
  const name = error instanceof Error ? error.name : undefined
  const timedOut = name === 'TimeoutError' || name === 'AbortError'
  if (code && NOT_SENT_CODES.has(code))
    return new PublishFailure('transient', `Could not reach ${options.label} for ${options.what} (${code})`, {
      code,
    })
  const silence = `${options.label} did not answer ${options.what} (${timedOut ? 'timed out' : (code ?? 'connection lost')})`
  const details = code ? { code } : {}
  if (options.mayHaveTakenEffect)
    return new PublishFailure(
      'unknown_outcome',
      `${silence}; the post may or may not have been published`,
      details,
    )
  return new PublishFailure('transient', silence, details)
}
