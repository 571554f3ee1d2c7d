import { createRateLimiter } from './rate-limit.js'

/**
 * How the dashboard's sign-in resists guessing without letting anyone lock an account: a stranger's
 * wrong passwords must never keep the owner out (docs/adr/0039-the-dashboard-is-a-client-of-the-tools.md).
 *
 * - Per address: at most {@link ATTEMPTS_PER_ADDRESS_PER_MINUTE} attempts a minute, whatever the e-mail
 *   (a 429 with `Retry-After` beyond). The address is the client's own only when `HERALD_TRUST_PROXY` names
 *   the reverse proxy in front of Herald; otherwise every client behind the proxy shares the proxy's.
 * - Per account: the first {@link FREE_FAILURES} wrong passwords cost nothing; after that each attempt
 *   waits a delay that doubles with every further failure, up to {@link MAX_DELAY_S} seconds after the last
 *   failure. It is a delay, never a lock: a minute after the last wrong guess the account takes the right
 *   password again, and a success resets the count. Failures older than {@link FORGET_AFTER_MS} are forgotten.
 * - A browser that has signed in to the account before carries a signed device cookie; its attempts are
 *   counted apart from everyone else's, so strangers' wrong guesses never delay the owner's own browser.
 *
 * Counts live in this process's memory (like the API keys' rate limit); each process counts its own.
 */

export const ATTEMPTS_PER_ADDRESS_PER_MINUTE = 30
export const FREE_FAILURES = 5
export const MAX_DELAY_S = 60
const FORGET_AFTER_MS = 3_600_000
const MAX_TRACKED = 100_000

export interface LoginAttempt {
  /** The client address (request.ip). */
  address: string
  /** The e-mail typed, lowercased (unknown e-mails are counted the same way, so the answer never differs). */
  account: string
  /** True when the browser holds a valid device cookie for this account. */
  knownDevice: boolean
}

export interface LoginThrottle {
  /** Counts the attempt against its address; returns the seconds to wait, or 0 when it may be heard. */
  admit(attempt: LoginAttempt, now: number): number
  failed(attempt: LoginAttempt, now: number): void
  succeeded(attempt: LoginAttempt): void
}

/** The delay after `failures` wrong passwords, in seconds (0 while they are free). */
export function delayAfter(failures: number): number {
  if (failures < FREE_FAILURES) return 0
  return Math.min(MAX_DELAY_S, 2 ** (failures - FREE_FAILURES))
}

export function createLoginThrottle(): LoginThrottle {
  const perAddress = createRateLimiter(ATTEMPTS_PER_ADDRESS_PER_MINUTE)
  const accounts = new Map<string, { failures: number; lastFailureAt: number }>()
  const bucket = (attempt: LoginAttempt) => `${attempt.knownDevice ? 'device' : 'any'}|${attempt.account}`

  return {
    admit(attempt, now) {
      const addressWait = perAddress.hit(attempt.address, now)
      if (addressWait > 0) return addressWait
      const record = accounts.get(bucket(attempt))
      if (!record) return 0
      if (now - record.lastFailureAt > FORGET_AFTER_MS) {
        accounts.delete(bucket(attempt))
        return 0
      }
      const readyAt = record.lastFailureAt + delayAfter(record.failures) * 1000
      return readyAt > now ? Math.max(1, Math.ceil((readyAt - now) / 1000)) : 0
    },
    failed(attempt, now) {
      const key = bucket(attempt)
      const record = accounts.get(key)
      if (record && now - record.lastFailureAt <= FORGET_AFTER_MS) {
        record.failures += 1
        record.lastFailureAt = now
      } else accounts.set(key, { failures: 1, lastFailureAt: now })
      if (accounts.size > MAX_TRACKED) {
        for (const [k, v] of accounts) if (now - v.lastFailureAt > FORGET_AFTER_MS) accounts.delete(k)
      }
    },
    succeeded(attempt) {
      accounts.delete(bucket(attempt))
    },
  }
}
