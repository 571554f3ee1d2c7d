import type { AdapterDeps, NetworkAdapter } from '../adapter.js'
import { readProfileMetrics, readThreadMetrics } from './metrics.js'
import { createThreadsLogin, refreshThreadsToken, resolveThreadsProfile } from './oauth.js'
import {
  findThreadsPost,
  findThreadsReply,
  publishThreadsReply,
  publishToThreads,
  readAllowance,
  type ThreadsContext,
  threadsUserIdOf,
} from './publish.js'
import { THREADS_WEB_URL, type ThreadsSettings, threadsGraph } from './settings.js'

export { THREADS_WEB_URL, type ThreadsSettings } from './settings.js'

/** Sends per worker to Threads at once: container processing is slow, the allowance is per profile. */
const THREADS_CONCURRENCY = 3
/** Meta refuses to refresh a token younger than a day. */
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The Threads adapter (reference D): Threads login with the Threads app's own id and secret, 60-day
 * tokens refreshed with `th_refresh_token`, publishing through containers (`status` polled, then
 * `threads_publish`), media handed over as the URL of Herald's hosted copy, the 250-post daily allowance
 * read from `threads_publishing_limit`, and thread and profile insights.
 */
export function createThreadsAdapter(settings: ThreadsSettings, deps: AdapterDeps): NetworkAdapter {
  const ctx: ThreadsContext = {
    graph: threadsGraph(settings, deps),
    deps,
    webUrl: (settings.webUrl ?? THREADS_WEB_URL).replace(/\/+$/, ''),
  }
  return {
    network: 'threads',
    capabilities: { concurrency: THREADS_CONCURRENCY },
    oauth: createThreadsLogin(settings, deps),
    async refresh(credentials) {
      const issuedAt = Number(credentials.extra?.issuedAt)
      // Meta refuses a token under 24 hours old: keep it (it is valid for 60 days) rather than be refused.
      if (Number.isFinite(issuedAt) && deps.now() - issuedAt < DAY_MS) return credentials
      return refreshThreadsToken(settings, deps, credentials)
    },
    resolveProfile: (credentials) => resolveThreadsProfile(settings, deps, credentials),
    publish: (request) => publishToThreads(ctx, request),
    findPublished: (request) => findThreadsPost(ctx, request),
    publishItem: (request) => publishThreadsReply(ctx, request),
    findItem: (request) => findThreadsReply(ctx, request),
    async publishingAllowance({ credentials, profile }) {
      const limit = await readAllowance(
        { graph: ctx.graph, token: credentials.accessToken },
        threadsUserIdOf({ credentials, profile }),
      )
      return limit
        ? { used: limit.used, total: limit.total, windowHours: Math.round(limit.windowMs / 3_600_000) }
        : undefined
    },
    postMetrics: ({ credentials, remoteId }) => readThreadMetrics(ctx, { credentials, remoteId }),
    profileMetrics: ({ credentials, profile }) => readProfileMetrics(ctx, { credentials, profile }),
  }
}
