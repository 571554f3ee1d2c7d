import {
  type Credentials,
  emptyPostSummary,
  type PostMetricsReading,
  type Profile,
  type ProfileMetricsReading,
  PublishFailure,
} from '../adapter.js'
import { tiktokCall } from './api.js'
import type { TikTokContext } from './settings.js'
import { fetchStatus } from './status.js'

/**
 * TikTok readings (reference A.10), from the Display API:
 *
 * - a post: `POST /v2/video/query/` with the post's id → views (`view_count`), likes, comments, shares,
 *   and engagements (likes + comments + shares); TikTok reports no saves or clicks (null). A post Herald
 *   recorded by its publish id (TikTok had not given it a public id yet) is asked for its id first; a post
 *   that has none (private, a draft, still under review) has no figures: the reading says so.
 * - the profile: `GET /v2/user/info/` → followers, following, posts (`video_count`); `likes_count` (likes
 *   the creator's posts received) is kept in the metrics. TikTok reports no profile views (null).
 */

export const POST_SOURCE = 'TikTok Display API video query'
export const PROFILE_SOURCE = 'TikTok Display API user info'
const POST_FIELDS = 'id,view_count,like_count,comment_count,share_count'
const PROFILE_FIELDS = 'follower_count,following_count,likes_count,video_count'

const count = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : Number(value)
  return Number.isFinite(n) && n >= 0 ? n : null
}

const sum = (...values: Array<number | null>) =>
  values.every((v) => v === null) ? null : values.reduce<number>((a, v) => a + (v ?? 0), 0)

/** The post's public id: the remote id itself, or what the publish job says now. */
async function publicIdOf(ctx: TikTokContext, credentials: Credentials, remoteId: string) {
  if (/^\d+$/.test(remoteId)) return remoteId
  const status = await fetchStatus(ctx, credentials.accessToken, remoteId)
  return status.postIds[0]
}

const unavailable = (error: string): PostMetricsReading => ({
  summary: emptyPostSummary(),
  metrics: {},
  source: POST_SOURCE,
  error,
  unavailable: true,
})

export async function readPostMetrics(
  ctx: TikTokContext,
  input: { credentials: Credentials; remoteId: string },
): Promise<PostMetricsReading> {
  const id = await publicIdOf(ctx, input.credentials, input.remoteId)
  if (!id)
    return unavailable(
      'TikTok gives figures for public posts only, and this one has no public id (private, a draft, or still under review)',
    )
  const { data } = await tiktokCall(ctx, {
    method: 'POST',
    path: '/v2/video/query/',
    query: { fields: POST_FIELDS },
    body: { filters: { video_ids: [id] } },
    token: input.credentials.accessToken,
    what: 'the post figures',
  })
  const videos = Array.isArray(data.videos) ? (data.videos as Record<string, unknown>[]) : []
  const video = videos.find((v) => v.id === id)
  if (!video) return unavailable('TikTok does not list this post among the creator’s public posts now')
  const [views, likes, comments, shares] = ['view_count', 'like_count', 'comment_count', 'share_count'].map(
    (k) => count(video[k]),
  ) as [number | null, number | null, number | null, number | null]
  return {
    summary: {
      ...emptyPostSummary(),
      views,
      likes,
      comments,
      shares,
      engagements: sum(likes, comments, shares),
    },
    metrics: {
      view_count: video.view_count ?? null,
      like_count: video.like_count ?? null,
      comment_count: video.comment_count ?? null,
      share_count: video.share_count ?? null,
    },
    source: POST_SOURCE,
  }
}

export async function readProfileMetrics(
  ctx: TikTokContext,
  input: { credentials: Credentials; profile: Profile },
): Promise<ProfileMetricsReading> {
  const { data } = await tiktokCall(ctx, {
    method: 'GET',
    path: '/v2/user/info/',
    query: { fields: PROFILE_FIELDS },
    token: input.credentials.accessToken,
    what: 'the profile figures',
  })
  const user = (data.user ?? {}) as Record<string, unknown>
  if (Object.keys(user).length === 0)
    throw new PublishFailure('transient', 'TikTok answered the profile figures empty')
  return {
    summary: {
      followers: count(user.follower_count),
      following: count(user.following_count),
      posts: count(user.video_count),
      views: null,
    },
    metrics: {
      follower_count: user.follower_count ?? null,
      following_count: user.following_count ?? null,
      likes_count: user.likes_count ?? null,
      video_count: user.video_count ?? null,
    },
    window: 'lifetime',
    source: PROFILE_SOURCE,
  }
}
