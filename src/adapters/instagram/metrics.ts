import {
  type Credentials,
  emptyPostSummary,
  type PostMetricsReading,
  type Profile,
  type ProfileMetricsReading,
} from '../adapter.js'
import { callGraph } from '../meta/graph.js'
import { count, insightValues, readInsights, total } from '../meta/insights.js'
import { graphFor, type InstagramContext, igUserIdOf } from './publish.js'

/**
 * Instagram readings with the 2025 deprecations respected (reference C.3): `impressions`, `plays`,
 * `video_views` and the Reels replay counts are gone; `views` replaces them. Media: views, reach,
 * likes, comments, saved, shares, total_interactions (Reels also ig_reels_avg_watch_time and
 * ig_reels_video_view_total_time). Account: followers_count, follows_count, media_count, and views over
 * the last 28 days (`metric_type=total_value`).
 */

export const MEDIA_SOURCE = 'Instagram Graph API media insights'
export const ACCOUNT_SOURCE = 'Instagram Graph API account fields and insights'
export const MEDIA_METRICS = ['views', 'reach', 'likes', 'comments', 'saved', 'shares', 'total_interactions']
export const REELS_METRICS = ['ig_reels_avg_watch_time', 'ig_reels_video_view_total_time']
const DAY_S = 24 * 60 * 60

export async function readMediaMetrics(
  ctx: InstagramContext,
  input: { credentials: Credentials; remoteId: string },
): Promise<PostMetricsReading> {
  const graph = graphFor(ctx, input.credentials)
  const token = input.credentials.accessToken
  const media = await callGraph(graph, {
    method: 'GET',
    path: `/${input.remoteId}`,
    params: { fields: 'media_product_type,like_count,comments_count' },
    token,
    what: 'the media counts',
  })
  const reel = media.media_product_type === 'REELS'
  const { body, error } = await readInsights('Instagram', () =>
    callGraph(graph, {
      method: 'GET',
      path: `/${input.remoteId}/insights`,
      params: { metric: [...MEDIA_METRICS, ...(reel ? REELS_METRICS : [])].join(',') },
      token,
      what: 'the media insights',
    }),
  )
  const insights = insightValues(body)
  const likes = total(insights.likes) ?? count(media.like_count)
  const comments = total(insights.comments) ?? count(media.comments_count)
  return {
    summary: {
      ...emptyPostSummary(),
      views: total(insights.views),
      likes,
      comments,
      shares: total(insights.shares),
      saves: total(insights.saved),
      engagements: total(insights.total_interactions),
    },
    metrics: {
      media_product_type: media.media_product_type ?? null,
      like_count: media.like_count ?? null,
      comments_count: media.comments_count ?? null,
      ...insights,
    },
    source: MEDIA_SOURCE,
    ...(error ? { error } : {}),
  }
}

export async function readAccountMetrics(
  ctx: InstagramContext,
  input: { credentials: Credentials; profile: Profile },
): Promise<ProfileMetricsReading> {
  const graph = graphFor(ctx, input.credentials)
  const token = input.credentials.accessToken
  const igUserId = igUserIdOf(input)
  const account = await callGraph(graph, {
    method: 'GET',
    path: `/${igUserId}`,
    params: { fields: 'followers_count,follows_count,media_count' },
    token,
    what: 'the account counts',
  })
  const until = Math.floor(ctx.deps.now() / 1000)
  const { body, error } = await readInsights('Instagram', () =>
    callGraph(graph, {
      method: 'GET',
      path: `/${igUserId}/insights`,
      params: {
        metric: 'views,reach',
        metric_type: 'total_value',
        period: 'day',
        since: until - 28 * DAY_S,
        until,
      },
      token,
      what: 'the account insights',
    }),
  )
  const insights = insightValues(body)
  return {
    summary: {
      followers: count(account.followers_count),
      following: count(account.follows_count),
      posts: count(account.media_count),
      views: total(insights.views),
    },
    metrics: {
      followers_count: account.followers_count ?? null,
      follows_count: account.follows_count ?? null,
      media_count: account.media_count ?? null,
      ...insights,
    },
    window: 'days_28',
    source: ACCOUNT_SOURCE,
    ...(error ? { error } : {}),
  }
}
