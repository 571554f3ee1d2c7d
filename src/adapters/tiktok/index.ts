import type { TikTokCreator } from '../../core/tiktok-rules.js'
import { type AdapterDeps, type Credentials, type NetworkAdapter, PublishFailure } from '../adapter.js'
import { readCreator } from './creator.js'
import { findTikTokPost } from './lookup.js'
import { readPostMetrics, readProfileMetrics } from './metrics.js'
import { createTikTokLogin, refreshTikTokToken, resolveTikTokProfile, revokeTikTokAccess } from './oauth.js'
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
    revokeAccess: (credentials, signal) => revokeTikTokAccess(settings, ctx.deps, credentials, signal),
    publish: (request) => publishToTikTok(ctx, request),
    findPublished: (request) => findTikTokPost(ctx, request),
    creatorOptions: ({ credentials, profile }) => creatorForPreflight(ctx, credentials, profile.profileId),
    postMetrics: ({ credentials, remoteId }) => readPostMetrics(ctx, { credentials, remoteId }),
    profileMetrics: ({ credentials, profile }) => readProfileMetrics(ctx, { credentials, profile }),
  }
}

/** How long preflight may fall back on a creator's last options when TikTok's 20 reads a minute are spent. */
const PREFLIGHT_CREATOR_MS = 10 * 60_000
/** Preflight (and the Compose page) waits this long for the creator info before going on without it. */
const PREFLIGHT_CREATOR_TIMEOUT_MS = 10_000
const recentCreators = new WeakMap<TikTokContext, Map<string, { at: number; creator: TikTokCreator }>>()

/**
 * The creator's options for preflight and Compose, within ten seconds. Compose checks as a person types,
 * and TikTok allows 20 creator reads a minute: when they are spent, the options read in the last ten
 * minutes stand in. Publishing never uses this: it reads the creator info again right before every post.
 */
async function creatorForPreflight(ctx: TikTokContext, credentials: Credentials, profileId: string) {
  const seen = recentCreators.get(ctx) ?? new Map<string, { at: number; creator: TikTokCreator }>()
  recentCreators.set(ctx, seen)
  const signal = AbortSignal.timeout(PREFLIGHT_CREATOR_TIMEOUT_MS)
  try {
    const creator = await readCreator(ctx, credentials, signal)
    seen.set(profileId, { at: ctx.deps.now(), creator })
    return creator
  } catch (error) {
    const kept = seen.get(profileId)
    const limited =
      error instanceof PublishFailure && error.kind === 'rate_limited' && error.options.status === 429
    if (limited && kept && ctx.deps.now() - kept.at < PREFLIGHT_CREATOR_MS) return kept.creator
    if (error instanceof PublishFailure) throw error
    if (signal.aborted)
      throw new PublishFailure('transient', 'TikTok did not answer the creator info in time')
    throw error
  }
}
