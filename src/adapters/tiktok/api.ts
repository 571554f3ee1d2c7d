import { PublishFailure } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'
import type { TikTokContext } from './settings.js'

/**
 * One call to TikTok's v2 API (reference A.8): JSON in, the envelope `{data, error: {code, message,
 * log_id}}` out, where success is `error.code == "ok"` whatever the HTTP status says. Every other answer
 * becomes a {@link PublishFailure} of one kind, in Herald's words where TikTok's would not help a person;
 * a token never appears in a message.
 *
 * `effect`: the call may make a post (a photo init): a 5xx, a timeout or a reset after the request left is
 * an unknown outcome, not transient. A 429 stays a rate limit: the worker waits for it and then looks
 * before it sends again.
 */

const CALL_TIMEOUT_MS = 60_000
/** TikTok documents no rate-limit headers; its budgets are per minute. */
const RATE_WINDOW_MS = 60_000
/** The creator's daily caps (reference A.7) free up over a rolling day; Herald asks again each hour. */
const CAP_RECHECK_MS = 60 * 60_000

export interface TikTokCall {
  method: 'GET' | 'POST'
  path: string
  query?: Record<string, string>
  body?: unknown
  token: string
  /** What the call is, in words: "the creator info". */
  what: string
  signal?: AbortSignal | undefined
  effect?: boolean
}

/** TikTok's answer: its `data`, the envelope's `error.code` (`ok`) and the HTTP status. */
export interface TikTokAnswer {
  data: Record<string, unknown>
  code: string
}

/**
 * TikTok sends post ids as bare int64 numbers (`publicaly_available_post_id`), beyond what a double holds:
 * they are turned into strings before the text is parsed, never read as numbers.
 */
export function parseTikTokJson(text: string): unknown {
  const safe = text.replace(
    /(?<!\\)("publicaly_available_post_id"\s*:\s*\[)([^\]]*)\]/g,
    (_m, head: string, list: string) => `${head}${list.replace(/-?\d+/g, (n) => `"${n}"`)}]`,
  )
  return JSON.parse(safe)
}

export async function tiktokCall(ctx: TikTokContext, call: TikTokCall): Promise<TikTokAnswer> {
  const url = new URL(`${ctx.settings.apiUrl}${call.path}`)
  for (const [key, value] of Object.entries(call.query ?? {})) url.searchParams.set(key, value)
  let response: Response
  try {
    response = await ctx.deps.http(url, {
      method: call.method,
      headers: {
        authorization: `Bearer ${call.token}`,
        ...(call.method === 'POST' ? { 'content-type': 'application/json; charset=UTF-8' } : {}),
      },
      ...(call.method === 'POST' ? { body: JSON.stringify(call.body ?? {}) } : {}),
      signal: call.signal
        ? AbortSignal.any([call.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)])
        : AbortSignal.timeout(CALL_TIMEOUT_MS),
      redirect: 'error',
    })
  } catch (error) {
    throw unanswered(error, call)
  }
  const text = await response.text().catch(() => '')
  let parsed: unknown
  try {
    parsed = text ? parseTikTokJson(text) : undefined
  } catch {
    parsed = undefined
  }
  const envelope = parsed as { data?: unknown; error?: { code?: unknown; message?: unknown } } | undefined
  const code = typeof envelope?.error?.code === 'string' ? envelope.error.code : undefined
  const data = (envelope?.data && typeof envelope.data === 'object' ? envelope.data : {}) as Record<
    string,
    unknown
  >
  if (response.ok && code === 'ok') return { data, code }
  throw classifyTikTokError({
    status: response.status,
    code,
    message: typeof envelope?.error?.message === 'string' ? envelope.error.message : undefined,
    what: call.what,
    effect: call.effect === true,
    now: ctx.deps.now(),
    secrets: [call.token],
  })
}

/** A call that got no answer: not sent (transient), or sent and perhaps taken (unknown for an effect). */
export function unanswered(error: unknown, call: Pick<TikTokCall, 'what' | 'effect' | 'signal'>): unknown {
  if ((error as Error)?.name === 'LeaseExpiredError') return error
  const code = thrownErrorCode(error)
  const notSent = code !== undefined && NOT_SENT_CODES.has(code)
  if (call.effect && !notSent)
    return new PublishFailure(
      'unknown_outcome',
      `TikTok did not answer ${call.what}; it may have taken the post`,
      {
        ...(code ? { code } : {}),
      },
    )
  if (call.signal?.aborted) return error
  return new PublishFailure('transient', `TikTok could not be reached for ${call.what}`, code ? { code } : {})
}

/** The codes that are refusals of the post itself, with what a person should do, in Herald's words. */
const REFUSALS: Record<string, string> = {
  spam_risk_user_banned_from_posting: 'TikTok has banned this account from posting',
  unaudited_client_can_only_post_to_private_accounts:
    "TikTok has not audited this Herald's app yet, so it may only post to private accounts: make the account private in the TikTok app, or have the app audited (the network apps page says how)",
  url_ownership_unverified:
    "TikTok refused to fetch the photos from Herald's address: its domain (or a URL prefix of it) must be verified for this app in TikTok's developer portal (URL properties)",
  privacy_level_option_mismatch:
    "The privacy level is not one this creator may choose now; check the post's tiktok.privacyLevel against what preflight_post lists",
  invalid_file_upload: 'TikTok refused the video file (its format, size or length)',
  app_version_check_failed:
    'Sending photos as a draft needs TikTok 31.8 or later on the creator’s phone; update the app and try again',
}

/** Codes that mean "not now": the creator's or the app's daily cap, or too many drafts waiting. */
const CAPS: Record<string, string> = {
  spam_risk_too_many_posts:
    'TikTok says this creator has made too many posts through apps in the last 24 hours',
  reached_active_user_cap: "TikTok says this Herald's app has reached its daily number of posting creators",
  spam_risk_too_many_pending_share:
    'TikTok says this creator has five or more drafts waiting in their inbox; they must post or delete some in the app',
}

const AUTH = new Set(['access_token_invalid', 'scope_not_authorized', 'scope_permission_missed'])

export function classifyTikTokError(input: {
  status: number
  code: string | undefined
  message: string | undefined
  what: string
  effect: boolean
  now: number
  secrets: string[]
}): PublishFailure {
  const { status, code, what } = input
  const options = { status, ...(code ? { code } : {}) }
  const said = redact(input.message, input.secrets)
  if (code && AUTH.has(code))
    return new PublishFailure(
      'auth_expired',
      `TikTok refused the token for ${what} (${code}); reconnect the profile if it persists`,
      options,
    )
  if (status === 429 || code === 'rate_limit_exceeded')
    return new PublishFailure('rate_limited', `TikTok's rate limit for ${what} is reached`, {
      ...options,
      resetAt: input.now + RATE_WINDOW_MS,
    })
  if (code && CAPS[code])
    return new PublishFailure('rate_limited', CAPS[code], { ...options, resetAt: input.now + CAP_RECHECK_MS })
  if (code && REFUSALS[code]) return new PublishFailure('invalid_content', REFUSALS[code], options)
  if (status >= 500 || status === 0 || code === 'internal_error' || code === undefined) {
    const words = `TikTok answered ${status}${code ? ` (${code})` : ''} to ${what}`
    return input.effect
      ? new PublishFailure('unknown_outcome', `${words}; it may have taken the post`, options)
      : new PublishFailure('transient', words, options)
  }
  return new PublishFailure(
    'invalid_content',
    `TikTok refused ${what} (${code})${said ? `: ${said}` : ''}`,
    options,
  )
}

const redact = (text: string | undefined, secrets: string[]) =>
  secrets.reduce((out, secret) => (secret ? out?.split(secret).join('[redacted]') : out), text?.slice(0, 300))
