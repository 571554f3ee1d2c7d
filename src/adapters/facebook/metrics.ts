import {
  type Credentials,
  emptyPostSummary,
  type PostMetricsReading,
  type Profile,
  type ProfileMetricsReading,
} from '../adapter.js'
import { callGraph } from '../meta/graph.js'
import { count, insightValues, readInsights, sumOrNull, total } from '../meta/insights.js'
import { type FacebookContext, pageIdOf } from './publish.js'

/**
 * Facebook readings with the 2025-2026 deprecations respected (reference B.5): no `post_impressions*`,
 * `page_impressions*` or `page_fans`. A post: `post_total_media_view_unique` (reach), `post_media_view`
 * (views), `post_reactions_by_type_total`, `post_clicks` from insights, and the share, reaction and
 * comment counts from the post itself. A Page: `followers_count` and `fan_count`, and `page_media_view`
 * and `page_total_media_view_unique` over 28 days.
 */

export const POST_SOURCE = 'Facebook Graph API post insights'
export const PAGE_SOURCE = 'Facebook Graph API Page fields and insights'
export const POST_METRICS = [
  'post_total_media_view_unique',
  'post_media_view',
  'post_reactions_by_type_total',
  'post_clicks',
]
export const PAGE_METRICS = ['page_media_view', 'page_total_media_view_unique']

export async function readPostMetrics(
  ctx: FacebookContext,
  input: { credentials: Credentials; remoteId: string },
): Promise<PostMetricsReading> {
  const token = input.credentials.accessToken
  const post = await callGraph(ctx.graph, {
    method: 'GET',
    path: `/${input.remoteId}`,
    params: { fields: 'shares,reactions.summary(true).limit(0),comments.summary(true).limit(0)' },
    token,
    what: 'the post counts',
  })
  const shares = count((post.shares as { count?: unknown } | undefined)?.count) ?? 0
  const reactions = count(
    (post.reactions as { summary?: { total_count?: unknown } } | undefined)?.summary?.total_count,
  )
  const comments = count(
    (post.comments as { summary?: { total_count?: unknown } } | undefined)?.summary?.total_count,
  )
  const { body, error } = await readInsights('Facebook', () =>
    callGraph(ctx.graph, {
      method: 'GET',
      path: `/${input.remoteId}/insights`,
      params: { metric: POST_METRICS.join(','), period: 'lifetime' },
      token,
      what: 'the post insights',
    }),
  )
  const insights = insightValues(body)
  const clicks = total(insights.post_clicks)
  const likes = reactions ?? total(insights.post_reactions_by_type_total)
  const summary = {
    ...emptyPostSummary(),
    views: total(insights.post_media_view) ?? total(insights.post_total_media_view_unique),
    likes,
    comments,
    shares,
    clicks,
    engagements: sumOrNull(likes, comments, shares, clicks),
  }
  return {
    summary,
    metrics: { ...insights, reactions, comments, shares },
    source: POST_SOURCE,
    ...(error ? { error } : {}),
  }
}

export async function readPageMetrics(
  ctx: FacebookContext,
  input: { credentials: Credentials; profile: Profile },
): Promise<ProfileMetricsReading> {
  const pageId = pageIdOf(input)
  const token = input.credentials.accessToken
  const page = await callGraph(ctx.graph, {
    method: 'GET',
    path: `/${pageId}`,
    params: { fields: 'followers_count,fan_count' },
    token,
    what: 'the Page counts',
  })
  const { body, error } = await readInsights('Facebook', () =>
    callGraph(ctx.graph, {
      method: 'GET',
      path: `/${pageId}/insights`,
      params: { metric: PAGE_METRICS.join(','), period: 'days_28' },
      token,
      what: 'the Page insights',
    }),
  )
  const insights = insightValues(body)
  return {
    summary: {
      followers: count(page.followers_count),
      following: null,
      posts: null,
      views: total(insights.page_media_view),
    },
    metrics: {
      followers_count: page.followers_count ?? null,
      fan_count: page.fan_count ?? null,
      ...insights,
    },
    window: 'days_28',
    source: PAGE_SOURCE,
    ...(error ? { error } : {}),
  }
}
