import { PublishFailure } from '../adapter.js'

/**
 * LinkedIn's refusals (reference A.9) as Herald's failure kinds:
 * 401 and `serviceErrorCode` 65600/65601 → auth; 403 → auth, naming the missing scope or page role;
 * 422 (`DUPLICATE_POST`, validation) and other 4xx → invalid content; 426, or a 400 naming a nonexistent
 * version → invalid content whose message says to update HERALD_LINKEDIN_VERSION; 429 → rate limited
 * until midnight UTC (LinkedIn's daily windows reset then); 5xx → transient, or an unknown outcome when
 * the request was the post's create.
 */

const DAY_MS = 86_400_000
export const nextMidnightUtc = (now: number) => Math.floor(now / DAY_MS) * DAY_MS + DAY_MS

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)

function scrub(text: string, secrets: (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]')
  return out.length > 300 ? `${out.slice(0, 297)}...` : out
}

/** The `code` of the first input error (`errorDetails.inputErrors[].code`), such as `DUPLICATE_POST`. */
export function inputErrorCode(body: Record<string, unknown>): string | undefined {
  const details = body.errorDetails as { inputErrors?: { code?: unknown }[] } | undefined
  return str(details?.inputErrors?.[0]?.code)
}

export function classifyLinkedInError(input: {
  status: number
  body: Record<string, unknown>
  what: string
  version: string
  sentIsCreate: boolean
  now: number
  secrets: (string | undefined)[]
}): PublishFailure {
  const { status, body, what } = input
  const serviceCode = typeof body.serviceErrorCode === 'number' ? body.serviceErrorCode : undefined
  const code =
    str(body.code) ??
    inputErrorCode(body) ??
    (serviceCode !== undefined ? String(serviceCode) : String(status))
  const said = scrub(str(body.message) ?? `HTTP ${status}`, input.secrets)
  const options = { code, status }
  if (status === 401 || serviceCode === 65600 || serviceCode === 65601)
    return new PublishFailure(
      'auth_expired',
      code === 'REVOKED_ACCESS_TOKEN'
        ? `LinkedIn says the access was revoked (${what}); reconnect the profile`
        : `LinkedIn refused the token (${what}): ${said}`,
      options,
    )
  if (status === 403) {
    const scope = /\b([rw]{1,2}_[a-z_]+)\b/i.exec(said)?.[1]
    return new PublishFailure(
      'auth_expired',
      scope
        ? `LinkedIn refused ${what}: the grant lacks the ${scope} permission; reconnect and allow it`
        : `LinkedIn refused ${what}: the member lacks the permission or the page role for it (ADMINISTRATOR or CONTENT_ADMINISTRATOR on the page) (${said})`,
      options,
    )
  }
  if (status === 426 || (status === 400 && /NONEXISTENT_VERSION|version/i.test(`${code} ${said}`)))
    return new PublishFailure(
      'invalid_content',
      `LinkedIn no longer accepts API version ${input.version}; set HERALD_LINKEDIN_VERSION to a current YYYYMM version`,
      { ...options, code: code === String(status) ? 'UNSUPPORTED_VERSION' : code },
    )
  if (status === 429)
    return new PublishFailure('rate_limited', `LinkedIn throttled ${what} until midnight UTC`, {
      ...options,
      resetAt: nextMidnightUtc(input.now),
    })
  if (status === 422 && code === 'DUPLICATE_POST')
    return new PublishFailure(
      'invalid_content',
      'LinkedIn refused the post as a duplicate of an earlier one',
      options,
    )
  if (status >= 500)
    return input.sentIsCreate
      ? new PublishFailure(
          'unknown_outcome',
          `LinkedIn failed while creating the post (${status}); it may exist`,
          options,
        )
      : new PublishFailure('transient', `LinkedIn failed ${what} (${status})`, options)
  return new PublishFailure('invalid_content', `LinkedIn refused ${what}: ${said}`, options)
}
