import { pacificDay } from '../../core/youtube-quota-day.js'
import type { AdapterDeps, NetworkAdapter, NetworkCapabilities, NetworkQuota } from '../adapter.js'
import { type ApiContext, resolveChannel } from './api.js'
import {
  buildAuthorizeUrl,
  exchangeCode,
  refreshCredentials,
  revokeGoogleAccess,
  YOUTUBE_SCOPES,
  YOUTUBE_WEB_URL,
  type YouTubeSettings,
} from './auth.js'
import { findComment, publishComment } from './comments.js'
import { quotaExceeded } from './errors.js'
import { readPostMetrics, readProfileMetrics } from './metrics.js'
import { failureSpentQuota, findUploadedVideo, publishVideo, type YouTubePublishResult } from './upload.js'

/**
 * The YouTube adapter (spec §1 youtube rules, §5 connect flow, §7 errors): Google OAuth, channel lookup,
 * resumable video upload, statistics. Base URLs come from `settings`, so `src/sandbox/youtube` stands in
 * for Google in tests and demo mode.
 */

export { nextPacificMidnight, pacificDay } from '../../core/youtube-quota-day.js'
export {
  COMMENT_SCOPE,
  NO_CHANNEL_MESSAGE,
  parseScopes,
  READONLY_SCOPE,
  UPLOAD_SCOPE,
  YOUTUBE_SCOPES,
  YOUTUBE_WEB_URL,
  type YouTubeConnectReason,
  YouTubeConnectRefused,
  type YouTubeSettings,
  youtubeGrantProblem,
} from './auth.js'
export {
  classifyGoogleError,
  INVALID_TITLE_MESSAGE,
  NOT_AUTHORIZED_MESSAGE,
  QUOTA_EXCEEDED_MESSAGE,
  quotaExceeded,
  UPLOAD_LIMIT_MESSAGE,
} from './errors.js'
export {
  buildDescription,
  buildTags,
  buildTitle,
  buildVideoInsertBody,
  isShortEligible,
  looksLikeVideoUrl,
  MEDIA_REQUIRED_MESSAGE,
  shortsUrl,
  tagListLength,
  VIDEO_MAX_BYTES,
  youtubeMediaProblem,
} from './metadata.js'
export { failureSpentQuota, type YouTubePublishResult } from './upload.js'

/** The `quota_usage.key` of YouTube's app-wide Data API quota. */
export const YOUTUBE_QUOTA_KEY = 'youtube'

export interface YouTubeAdapter extends NetworkAdapter {
  readonly network: 'youtube'
  readonly capabilities: NetworkCapabilities & { quota: NetworkQuota }
  publish(request: Parameters<NetworkAdapter['publish']>[0]): Promise<YouTubePublishResult>
}

export function createYouTubeAdapter(settings: YouTubeSettings, deps: AdapterDeps): YouTubeAdapter {
  const ctx: ApiContext = {
    settings: { ...settings, webUrl: (settings.webUrl ?? YOUTUBE_WEB_URL).replace(/\/+$/, '') },
    deps: { ...deps, logger: deps.logger.child({ network: 'youtube' }) },
  }
  return {
    network: 'youtube',
    capabilities: {
      // Uploads are long and the quota allows about six a day: two at a time is plenty.
      concurrency: 2,
      quota: {
        key: YOUTUBE_QUOTA_KEY,
        unitsPerPublish: settings.uploadUnits,
        dailyLimit: settings.dailyQuota,
        dayOf: pacificDay,
        exceeded: (ms) => quotaExceeded(ms),
        spent: failureSpentQuota,
      },
    },
    oauth: {
      scopes: YOUTUBE_SCOPES,
      authorizeUrl: (input) => buildAuthorizeUrl(settings, input),
      exchangeCode: (input) => exchangeCode(settings, ctx.deps, input),
    },
    refresh: (credentials) => refreshCredentials(settings, ctx.deps, credentials),
    revokeAccess: (credentials, signal) => revokeGoogleAccess(settings, ctx.deps, credentials, signal),
    resolveProfile: (credentials) => resolveChannel(ctx, credentials),
    publish: (request) => publishVideo(ctx, request),
    findPublished: (request) => findUploadedVideo(ctx, request),
    publishItem: (request) => publishComment(ctx, request),
    findItem: (request) => findComment(ctx, request),
    postMetrics: (input) => readPostMetrics(ctx, input),
    profileMetrics: (input) => readProfileMetrics(ctx, input),
  }
}
