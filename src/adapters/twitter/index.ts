import type { AdapterDeps, NetworkAdapter } from '../adapter.js'
import {
  createTwitterOAuth,
  refreshTwitterCredentials,
  resolveTwitterProfile,
  revokeTwitterAccess,
} from './auth.js'
import { type TwitterContext, type TwitterSettings, X_WEB_URL } from './client.js'
import { findReply, findTweet } from './lookup.js'
import { readProfileMetrics, readTweetMetrics } from './metrics.js'
import { publishTweet } from './publish.js'

export { twitterScopes } from './auth.js'
export { type TwitterSettings, X_WEB_URL } from './client.js'
export { twitterMessages } from './errors.js'
export { selectTwitterMedia, type TwitterMediaType, twitterMediaType } from './media.js'
export { summarizeTweetMetrics } from './metrics.js'

/**
 * Sends per worker to X at once. X's per-user windows (100 posts and 1,875 media calls per 15 min) are
 * far above what 4 parallel sends use, and chunked video uploads are long, so a few overlap usefully.
 */
const TWITTER_CONCURRENCY = 4

/**
 * The X (twitter) adapter: OAuth 2.0 with PKCE, POST /2/tweets, the v2 chunked media upload and v2
 * metrics. Base URLs come from `settings`, so tests and demo mode point it at `src/sandbox/twitter/`.
 */
export function createTwitterAdapter(settings: TwitterSettings, deps: AdapterDeps): NetworkAdapter {
  const ctx: TwitterContext = {
    settings: {
      ...settings,
      apiUrl: settings.apiUrl.replace(/\/+$/, ''),
      webUrl: (settings.webUrl ?? X_WEB_URL).replace(/\/+$/, ''),
    },
    deps,
    logger: deps.logger.child({ network: 'twitter' }),
  }
  return {
    network: 'twitter',
    capabilities: { concurrency: TWITTER_CONCURRENCY },
    oauth: createTwitterOAuth(ctx),
    refresh: (credentials) => refreshTwitterCredentials(ctx, credentials),
    resolveProfile: (credentials) => resolveTwitterProfile(ctx, credentials),
    revokeAccess: (credentials, signal) => revokeTwitterAccess(ctx, credentials, signal),
    publish: (request) => publishTweet(ctx, request),
    findPublished: (request) => findTweet(ctx, request),
    publishItem: (request) => publishTweet(ctx, request, request.parent.remoteId),
    findItem: (request) => findReply(ctx, request),
    postMetrics: ({ credentials, remoteId }) => readTweetMetrics(ctx, { credentials, remoteId }),
    profileMetrics: ({ credentials }) => readProfileMetrics(ctx, { credentials }),
  }
}
