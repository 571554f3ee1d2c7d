import { PublishFailure } from '../adapter.js'
import type { GraphClient, GraphRequest } from './graph.js'

/**
 * Meta's 60-day user tokens, shared by Instagram Login (reference C.1) and Threads (reference D.1): a
 * short-lived token exchanged at `GET /access_token` (`{prefix}_exchange_token`, with the app secret) for
 * a long-lived one, which is refreshed with itself at `GET /refresh_access_token`
 * (`{prefix}_refresh_token`). What differs is a {@link LongLivedTokens}.
 */
export interface LongLivedTokens {
  /** The network's name in messages. */
  label: string
  /** The Graph call with this network's failures classified. */
  call: (client: GraphClient, request: GraphRequest) => Promise<Record<string, unknown>>
  /** `ig` / `th`: the grant types are `{prefix}_exchange_token` and `{prefix}_refresh_token`. */
  grantPrefix: string
  /** What a connected account is called when it has to be connected again (`account` / `profile`). */
  noun: string
}

export interface LongLivedToken {
  token: string
  /** Meta's `expires_in` as answered (seconds, when it is a number). */
  expiresIn: unknown
}

const SIXTY_DAYS_S = 60 * 24 * 60 * 60

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

/** The short-lived token exchanged for a 60-day one. */
export async function exchangeForLongLived(
  tokens: LongLivedTokens,
  root: GraphClient,
  exchange: {
    shortToken: string
    clientSecret: string | undefined
    secrets: readonly (string | undefined)[]
  },
): Promise<LongLivedToken> {
  const long = await tokens.call(root, {
    method: 'GET',
    path: '/access_token',
    params: { grant_type: `${tokens.grantPrefix}_exchange_token`, client_secret: exchange.clientSecret },
    token: exchange.shortToken,
    what: 'the long-lived token exchange',
    secrets: exchange.secrets,
  })
  const token = str(long.access_token)
  if (!token)
    throw new PublishFailure('auth_expired', `${tokens.label} answered the token exchange without a token`)
  return { token, expiresIn: long.expires_in }
}

/** A new 60-day token for this one; a refusal other than a passing failure means reconnecting. */
export async function refreshLongLived(
  tokens: LongLivedTokens,
  root: GraphClient,
  accessToken: string,
): Promise<LongLivedToken> {
  const body = await tokens
    .call(root, {
      method: 'GET',
      path: '/refresh_access_token',
      params: { grant_type: `${tokens.grantPrefix}_refresh_token` },
      token: accessToken,
      what: 'the token refresh',
    })
    .catch((error: unknown) => {
      if (error instanceof PublishFailure && error.kind !== 'transient' && error.kind !== 'rate_limited')
        throw new PublishFailure(
          'auth_expired',
          `${tokens.label} refused to refresh the token; reconnect the ${tokens.noun}`,
          error.options,
        )
      throw error
    })
  const token = str(body.access_token)
  if (!token) throw new PublishFailure('auth_expired', `${tokens.label} answered the refresh without a token`)
  return { token, expiresIn: body.expires_in }
}

/**
 * When a token answered with `expiresIn` ends (60 days when Meta gives no number), and when Herald should
 * refresh it: `aheadMs` before that end, but never sooner than `minAgeMs` after now.
 */
export function longLivedExpiry(
  expiresIn: unknown,
  now: number,
  rule: { aheadMs: number; minAgeMs: number },
): { realEnd: number; expiresAt: number } {
  const seconds = typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn : SIXTY_DAYS_S
  const realEnd = now + seconds * 1000
  return { realEnd, expiresAt: Math.max(now + rule.minAgeMs, realEnd - rule.aheadMs) }
}
