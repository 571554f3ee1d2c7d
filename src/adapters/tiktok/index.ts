import type { AdapterDeps, NetworkAdapter } from '../adapter.js'
import { readCreator } from './creator.js'
import { findTikTokPost } from './lookup.js'
import { readPostMetrics, readProfileMetrics } from './metrics.js'
import { createTikTokLogin, refreshTikTokToken, resolveTikTokProfile } from './oauth.js'
import { publishToTikTok } from './publish.js'
import { TIKTOK_WEB_URL, type TikTokContext, type TikTokSettings } from './settings.js'

export { TIKTOK_SCOPES } from './oauth.js'
export { TIKTOK_WEB_URL, type TikTokSettings } from './settings.js'

/** Sends per worker to TikTok at once: uploads are long, and inits are six a minute per creator. */
const TIKTOK_CONCURRENCY = 2

/** What preflight and the network apps page say while TikTok has not audited the app. */
export const UNAUDITED_NOTICE =
  "TikTok has not audited this Herald's app yet: every post it makes is visible only to the creator (private), and only creators with a private account can post. It goes out all the same; once TikTok audits the app, mark it audited on the network apps page"

/**
 * The TikTok adapter (reference A): Login Kit with rotating refresh tokens, the creator info read and
 * honoured before every post, videos by chunked FILE_UPLOAD and photos by PULL_FROM_URL from Herald's
 * hosted copies, the publish status polled to its end, drafts to the creator's inbox, lookups by the saved
 * publish id or the public video list, and the Display API's figures.
 */
export function createTikTokAdapter(settings: TikTokSettings, deps: AdapterDeps): NetworkAdapter {
  const ctx: TikTokContext = {
    settings: { ...settings, webUrl: (settings.webUrl ?? TIKTOK_WEB_URL).replace(/\/+$/, '') },
    deps: { ...deps, logger: deps.logger.child({ network: 'tiktok' }) },
  }
  return {
    network: 'tiktok',
    capabilities: { concurrency: TIKTOK_CONCURRENCY },
    oauth: createTikTokLogin(settings, ctx.deps),
    ...(settings.audited ? {} : { appLimit: UNAUDITED_NOTICE }),
    refresh: (credentials) => refreshTikTokToken(settings, ctx.deps, credentials),
    resolveProfile: (credentials) => resolveTikTokProfile(ctx, credentials),
    publish: (request) => publishToTikTok(ctx, request),
    findPublished: (request) => findTikTokPost(ctx, request),
    creatorOptions: ({ credentials }) => readCreator(ctx, credentials),
    postMetrics: ({ credentials, remoteId }) => readPostMetrics(ctx, { credentials, remoteId }),
    profileMetrics: ({ credentials, profile }) => readProfileMetrics(ctx, { credentials, profile }),
  }
}
