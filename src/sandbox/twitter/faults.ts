/** The X endpoints the sandbox serves, named by their OpenAPI operationId (the token endpoint has none). */
export const sandboxEndpoints = [
  'oauth2Token',
  'oauth2Revoke',
  'getUsersMe',
  'createPosts',
  'getPostsById',
  'getUsersPosts',
  'initializeMediaUpload',
  'appendMediaUpload',
  'finalizeMediaUpload',
  'getMediaUploadStatus',
  'createMediaMetadata',
] as const
export type SandboxEndpoint = (typeof sandboxEndpoints)[number]

/**
 * Per-user requests per 15-minute window, from X's rate-limit table (docs `x-api/fundamentals/rate-limits`):
 * 100 posts, 75 users/me, 900 post lookups, 1,875 per media upload step, 1,000 status checks, 500 media
 * metadata writes.
 */
export const defaultRateLimits: Record<Exclude<SandboxEndpoint, 'oauth2Token' | 'oauth2Revoke'>, number> = {
  getUsersMe: 75,
  createPosts: 100,
  getPostsById: 900,
  getUsersPosts: 900,
  initializeMediaUpload: 1875,
  appendMediaUpload: 1875,
  finalizeMediaUpload: 1875,
  getMediaUploadStatus: 1000,
  createMediaMetadata: 500,
}

export interface InjectedFailure {
  /** HTTP status to answer with (ignored when `dropConnection` is `before`). */
  status?: number
  /** Body to send instead of the default problem for `status`. */
  body?: unknown
  headers?: Record<string, string>
  /** `before`: close the connection without handling; `after`: handle (the post is created), then close. */
  dropConnection?: 'before' | 'after'
  /** Handle the request (the post is created), then answer `status` instead: a 5xx that hides a success. */
  afterEffect?: boolean
  /** Wait this long (real time) before answering. */
  delayMs?: number
  remaining: number
}

/** Injected failures and per-user rate-limit windows of one sandbox. */
export class Faults {
  private readonly failures = new Map<SandboxEndpoint, InjectedFailure[]>()
  private readonly windows = new Map<string, { start: number; count: number }>()
  private readonly limits: Partial<Record<SandboxEndpoint, number>>
  private processingFailures = 0

  constructor(
    private readonly options: {
      clock: () => number
      rateLimitWindowMs: number
      rateLimits: Partial<Record<SandboxEndpoint, number>>
    },
  ) {
    this.limits = { ...defaultRateLimits, ...options.rateLimits }
  }

  private now() {
    return this.options.clock()
  }

  reset() {
    this.failures.clear()
    this.windows.clear()
    this.processingFailures = 0
  }

  injectFailure(endpoint: SandboxEndpoint, failure: Omit<InjectedFailure, 'remaining'> & { count?: number }) {
    const { count, ...rest } = failure
    const list = this.failures.get(endpoint) ?? []
    list.push({ ...rest, remaining: count ?? 1 })
    this.failures.set(endpoint, list)
  }

  clearFailures() {
    this.failures.clear()
    this.processingFailures = 0
  }

  takeFailure(endpoint: SandboxEndpoint): InjectedFailure | undefined {
    const list = this.failures.get(endpoint)
    const next = list?.[0]
    if (!list || !next) return undefined
    next.remaining--
    if (next.remaining <= 0) list.shift()
    return next
  }

  failNextProcessing(count: number) {
    this.processingFailures += count
  }

  takeProcessingFailure(): boolean {
    if (this.processingFailures <= 0) return false
    this.processingFailures--
    return true
  }

  setRateLimit(endpoint: SandboxEndpoint, limit: number) {
    this.limits[endpoint] = limit
    for (const key of this.windows.keys()) if (key.endsWith(`:${endpoint}`)) this.windows.delete(key)
  }

  /**
   * Counts one request of `userId` to `endpoint` in its fixed 15-minute window. Returns the
   * `x-rate-limit-*` values after counting, and whether the request is over the limit (not counted).
   */
  countRequest(userId: string, endpoint: SandboxEndpoint) {
    const limit = this.limits[endpoint] ?? Number.MAX_SAFE_INTEGER
    const key = `${userId}:${endpoint}`
    const now = this.now()
    let window = this.windows.get(key)
    if (!window || now >= window.start + this.options.rateLimitWindowMs) {
      window = { start: now, count: 0 }
      this.windows.set(key, window)
    }
    const exceeded = window.count >= limit
    if (!exceeded) window.count++
    return {
      exceeded,
      headers: {
        'x-rate-limit-limit': String(limit),
        'x-rate-limit-remaining': String(Math.max(0, limit - window.count)),
        'x-rate-limit-reset': String(Math.ceil((window.start + this.options.rateLimitWindowMs) / 1000)),
      },
    }
  }
}
