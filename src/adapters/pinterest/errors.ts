import { PublishFailure } from '../adapter.js'

/**
 * Pinterest's refusals (reference B.9) as Herald's failure kinds. Every error body is `{code, message}`
 * [spec: Error]; the HTTP status carries the kind:
 *
 * - 401 (code 2, "Authentication failed"): the token is expired or revoked → auth.
 * - 403 code 29, or words about Trial access: an app with Trial access posting on the production host,
 *   which Pinterest refuses → invalid content, with the setting that fixes it. Another 403 naming a scope
 *   → auth (reconnecting grants it); any other 403 (a board the account may no longer pin to) → invalid.
 * - 404 (a board or pin that is gone) and 400 (a parameter, a URL Pinterest could not fetch) → invalid
 *   content with Pinterest's own words.
 * - 429 → rate limited: Pinterest documents no reset header, so `Retry-After` is read when there is one
 *   and a minute is waited otherwise (Standard access meters writes per minute).
 * - 5xx → transient for reads, uploads and media registrations; an unknown outcome for a pin's create.
 */

export const TRIAL_ACCESS_CODE = 29
const DEFAULT_RATE_WAIT_MS = 60_000

export const TRIAL_ACCESS_MESSAGE =
  'Pinterest refuses pins on api.pinterest.com from an app with Trial access: set HERALD_PINTEREST_API_URL=https://api-sandbox.pinterest.com/v5 (pins made there are seen only by their owner) until Pinterest grants the app Standard access'

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)

function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]')
  return out.length > 300 ? `${out.slice(0, 297)}...` : out
}

/** Epoch ms when a 429 may be tried again: `Retry-After` (seconds) when given, else a minute from now. */
export function rateLimitReset(headers: Headers | undefined, now: number): number {
  const seconds = Number(headers?.get('retry-after'))
  return Number.isFinite(seconds) && seconds > 0 ? now + seconds * 1000 : now + DEFAULT_RATE_WAIT_MS
}

export function classifyPinterestError(input: {
  status: number
  body: Record<string, unknown>
  headers?: Headers
  what: string
  /** True for a pin's create: a failure after it was sent may have made the pin. */
  sentIsCreate: boolean
  now: number
  secrets: readonly (string | undefined)[]
}): PublishFailure {
  const { status, body, what } = input
  const code = typeof body.code === 'number' ? body.code : undefined
  const said = scrub(str(body.message) ?? `HTTP ${status}`, input.secrets)
  const options = { code: String(code ?? status), status }
  if (status === 401)
    return new PublishFailure('auth_expired', `Pinterest refused the token (${what}): ${said}`, options)
  if (code === TRIAL_ACCESS_CODE || /trial access/i.test(said))
    return new PublishFailure('invalid_content', `${TRIAL_ACCESS_MESSAGE} (${said})`, options)
  if (status === 403)
    return /\bscope|[a-z_]+:(read|write)/i.test(said)
      ? new PublishFailure(
          'auth_expired',
          `Pinterest refused ${what}: the grant lacks a permission; reconnect and allow every one (${said})`,
          options,
        )
      : new PublishFailure('invalid_content', `Pinterest refused ${what}: ${said}`, options)
  if (status === 404)
    return new PublishFailure(
      'invalid_content',
      `Pinterest found nothing for ${what} (${said}): the board may have been deleted or left; reconnect Pinterest and choose the boards again`,
      options,
    )
  if (status === 429)
    return new PublishFailure('rate_limited', `Pinterest throttled ${what}: ${said}`, {
      ...options,
      resetAt: rateLimitReset(input.headers, input.now),
    })
  if (status >= 500)
    return input.sentIsCreate
      ? new PublishFailure(
          'unknown_outcome',
          `Pinterest failed while creating the pin (${status}); it may exist`,
          options,
        )
      : new PublishFailure('transient', `Pinterest failed ${what} (${status})`, options)
  return new PublishFailure('invalid_content', `Pinterest refused ${what}: ${said}`, options)
}
