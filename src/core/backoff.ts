/** Retry policy for transient failures and rate limits (DESIGN.md: up to 5 attempts). */
export const MAX_ATTEMPTS = 5

export interface BackoffPolicy {
  baseMs: number
  capMs: number
}

export const defaultBackoff: BackoffPolicy = { baseMs: 2_000, capMs: 5 * 60_000 }

/**
 * Delay before attempt `attempt + 1` after `attempt` failures: exponential from `baseMs`, capped at `capMs`,
 * with "equal jitter" (half fixed, half random) so a burst of failures does not retry in lockstep.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy = defaultBackoff,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1))
  return Math.round(exponential / 2 + random() * (exponential / 2))
}

/** When a failed attempt may run again: after the backoff, and never before a network's rate-limit reset. */
export function nextAttemptAt(input: {
  now: number
  attempt: number
  resetAt?: number | undefined
  policy?: BackoffPolicy
  random?: () => number
}): number {
  const after = input.now + backoffDelay(input.attempt, input.policy, input.random)
  return input.resetAt !== undefined ? Math.max(after, input.resetAt) : after
}

/**
 * Lookups of an unknown outcome have their own schedule, apart from the send attempts: the first one after
 * `firstMs` (HERALD_UNKNOWN_OUTCOME_CHECK_MS, a minute by default), each one that could not ask the network
 * followed by one twice as late, at most an hour apart, for a day from the unanswered call. Past that the
 * target is stuck for a person (reason `lookups_exhausted`).
 */
export const LOOKUP_CAP_MS = 60 * 60_000
export const LOOKUP_WINDOW_MS = 24 * 60 * 60_000

/** Delay before the next lookup after `failed` lookups that could not ask the network. */
export function lookupDelay(failed: number, firstMs: number): number {
  return Math.min(LOOKUP_CAP_MS, firstMs * 2 ** Math.max(0, failed))
}
