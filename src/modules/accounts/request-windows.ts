import type { Clock } from '../../platform/clock.js'
import { AppError } from '../../platform/errors.js'

/** The API's limit is counted per minute (`HERALD_RATE_LIMIT_PER_MINUTE`). */
export const WINDOW_MS = 60_000

/** Windows kept before the ended ones are swept out (each is a credential's, or an address's). */
const SWEEP_ABOVE = 10_000

/** How far a key has got in its current window. */
export interface WindowCount {
  /** Requests counted in the window, this one included. */
  current: number
  /** Milliseconds until the window ends and the count starts again. */
  ttl: number
}

/**
 * The API's request counts per credential: fixed windows that open with a key's first request, counted on
 * the app's clock (so the fake clock of the tests and the simulation moves them like everything else), in
 * memory, per process. They are the store behind @fastify/rate-limit (see transports/api-rate-limit.ts),
 * and what each call inside a multicall counts against, so that a batch cannot multiply the limit.
 */
export interface RequestWindows {
  /** Requests a key may make in a window. */
  readonly perMinute: number
  /** Counts one request of `key` (refused ones too, as the plugin's own store does). */
  count(key: string, windowMs?: number): WindowCount
}

export function createRequestWindows(perMinute: number, clock: Clock): RequestWindows {
  const windows = new Map<string, { start: number; current: number; length: number }>()
  const sweep = (now: number) => {
    for (const [key, w] of windows) if (w.start + w.length <= now) windows.delete(key)
  }
  return {
    perMinute,
    count(key, windowMs = WINDOW_MS) {
      const now = clock.now()
      let w = windows.get(key)
      if (!w || w.start + w.length <= now) {
        if (!w && windows.size >= SWEEP_ABOVE) sweep(now)
        w = { start: now, current: 0, length: windowMs }
        windows.set(key, w)
      }
      w.current += 1
      return { current: w.current, ttl: w.start + w.length - now }
    },
  }
}

/** The refusal of a request past the limit: 429 `rate_limited`, with the seconds to wait (`Retry-After`). */
export function rateLimited(perMinute: number, ttlMs: number): AppError {
  return new AppError('rate_limited', `Rate limit of ${perMinute} requests per minute reached`, {
    retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
  })
}
