import type { Credentials, PostMetricsReading, ProfileMetricsReading } from '../adapter.js'
import { type ApiContext, firstItem, getJson } from './api.js'
import { refreshCredentials } from './auth.js'

/**
 * Readings from the Data API's `statistics` parts (1 quota unit each). The Analytics API (shares, watch
 * time) needs the `yt-analytics.readonly` scope, which the connect flow does not request, so what only it
 * knows stays null.
 *
 * Post summary: views = viewCount, likes = likeCount, comments = commentCount, engagements = likes +
 * comments. shares and clicks: not in the Data API. saves: null, because `favoriteCount` is deprecated and
 * always 0 (reporting 0 would claim a measurement that does not exist); it is kept in the raw metrics.
 */

export const POST_SOURCE = 'YouTube Data API v3 videos.list statistics'
export const PROFILE_SOURCE = 'YouTube Data API v3 channels.list statistics'

/** Statistics values are uint64 decimal strings; absent or unreadable ones are null. */
export function count(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return null
  return Number(value)
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}

/** The raw statistics under YouTube's own names, numbers where they are counts. */
function rawMetrics(statistics: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(statistics).map(([name, value]) => [
      name,
      typeof value === 'string' ? (count(value) ?? value) : value,
    ]),
  )
}

/** Maps a `VideoStatistics` object onto spec §2's post summary. */
export function videoReading(statistics: Record<string, unknown>): PostMetricsReading {
  const likes = count(statistics.likeCount)
  const comments = count(statistics.commentCount)
  return {
    summary: {
      views: count(statistics.viewCount),
      likes,
      comments,
      shares: null,
      saves: null,
      clicks: null,
      engagements: likes === null && comments === null ? null : (likes ?? 0) + (comments ?? 0),
    },
    metrics: rawMetrics(statistics),
    source: POST_SOURCE,
  }
}

/** Maps a `ChannelStatistics` object onto spec §2's profile summary; a hidden subscriber count is null. */
export function channelReading(statistics: Record<string, unknown>): ProfileMetricsReading {
  return {
    summary: {
      followers: statistics.hiddenSubscriberCount === true ? null : count(statistics.subscriberCount),
      following: null,
      posts: count(statistics.videoCount),
      views: count(statistics.viewCount),
    },
    metrics: rawMetrics(statistics),
    window: 'lifetime',
    source: PROFILE_SOURCE,
  }
}

/**
 * The access token to read with: the stored one while it has a minute left, else a refreshed one (reads
 * happen hours after connect, when the hour-long Google access token has long expired).
 */
async function readToken(ctx: ApiContext, credentials: Credentials): Promise<string> {
  const expiring = credentials.expiresAt !== undefined && credentials.expiresAt - 60_000 <= ctx.deps.now()
  if (!expiring || !credentials.refreshToken) return credentials.accessToken
  return (await refreshCredentials(ctx.settings, ctx.deps, credentials)).accessToken
}

export async function readPostMetrics(
  ctx: ApiContext,
  input: { credentials: Credentials; remoteId: string },
): Promise<PostMetricsReading> {
  const token = await readToken(ctx, input.credentials)
  const list = await getJson(ctx, 'videos', { part: 'statistics', id: input.remoteId }, token)
  const video = firstItem(list)
  if (!video)
    return {
      ...videoReading({}),
      error: 'The video is no longer on YouTube (deleted, or made private by its owner)',
      unavailable: true,
    }
  return videoReading(record(video.statistics))
}

export async function readProfileMetrics(
  ctx: ApiContext,
  input: { credentials: Credentials },
): Promise<ProfileMetricsReading> {
  const token = await readToken(ctx, input.credentials)
  const list = await getJson(ctx, 'channels', { part: 'statistics', mine: 'true' }, token)
  const channel = firstItem(list)
  if (!channel)
    return {
      ...channelReading({}),
      error: 'This Google account no longer has a YouTube channel',
      unavailable: true,
    }
  return channelReading(record(channel.statistics))
}
