/**
 * A per-key sliding limit: at most `perMinute` requests in any 60-second window, counted in two fixed
 * windows weighted by overlap (the approximation Cloudflare and Redis cells use). In memory, per process.
 */
export interface RateLimiter {
  /** Counts one request; returns 0 when allowed, or the seconds to wait before retrying. */
  hit(key: string, now: number): number
}

export function createRateLimiter(perMinute: number): RateLimiter {
  const windowMs = 60_000
  const windows = new Map<string, { start: number; current: number; previous: number }>()
  return {
    hit(key, now) {
      const start = Math.floor(now / windowMs) * windowMs
      let w = windows.get(key)
      if (!w) {
        w = { start, current: 0, previous: 0 }
        windows.set(key, w)
      } else if (w.start !== start) {
        w.previous = start - w.start === windowMs ? w.current : 0
        w.current = 0
        w.start = start
      }
      const weight = 1 - (now - start) / windowMs
      const estimate = w.previous * weight + w.current
      if (estimate >= perMinute) {
        return Math.max(1, Math.ceil((start + windowMs - now) / 1000))
      }
      w.current += 1
      if (windows.size > 100_000) {
        for (const [k, v] of windows) if (v.start < start - windowMs) windows.delete(k)
      }
      return 0
    },
  }
}
