import {
  type Credentials,
  emptyPostSummary,
  type PostMetricsReading,
  type Profile,
  type ProfileMetricsReading,
} from '../adapter.js'
import { count, insightValues, readInsights, sumOrNull } from '../meta/insights.js'
import { callThreads } from './errors.js'
import { type ThreadsContext, threadsUserIdOf } from './publish.js'

/**
 * Threads readings (reference D.3), both needing `threads_manage_insights`:
 *
 * - a thread: `views, likes, replies, reposts, quotes, shares` (lifetime) → views, likes, comments
 *   (replies), shares (reposts + quotes + shares), engagements (all but views); saves and clicks are not
 *   reported by Threads (null);
 * - the profile: `followers_count` (the current total) and `views` (profile views, the daily series of
 *   Meta's default period summed; `window` says how many days). Following and the post count are not in
 *   the Threads API (null).
 */

export const POST_SOURCE = 'Threads API media insights'
export const PROFILE_SOURCE = 'Threads API user insights'
export const POST_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'] as const

type Row = Record<string, unknown>

export async function readThreadMetrics(
  ctx: ThreadsContext,
  input: { credentials: Credentials; remoteId: string },
): Promise<PostMetricsReading> {
  const { body, error } = await readInsights('Threads', () =>
    callThreads(ctx.graph, {
      method: 'GET',
      path: `/${input.remoteId}/insights`,
      params: { metric: POST_METRICS.join(',') },
      token: input.credentials.accessToken,
      what: 'the thread insights',
    }),
  )
  const values = insightValues(body)
  const [views, likes, replies, reposts, quotes, shares] = POST_METRICS.map((name) => count(values[name]))
  return {
    summary: {
      ...emptyPostSummary(),
      views: views ?? null,
      likes: likes ?? null,
      comments: replies ?? null,
      shares: sumOrNull(reposts ?? null, quotes ?? null, shares ?? null),
      engagements: sumOrNull(likes ?? null, replies ?? null, reposts ?? null, quotes ?? null, shares ?? null),
    },
    metrics: Object.fromEntries(POST_METRICS.map((name) => [name, values[name] ?? null])),
    source: POST_SOURCE,
    ...(error ? { error } : {}),
  }
}

/** The daily `views` series summed (with its length in days), or the metric's total when Meta gives one. */
function viewsOf(body: Row): { views: number | null; days: number } {
  const row = (Array.isArray(body.data) ? (body.data as Row[]) : []).find((r) => r.name === 'views')
  if (!row) return { views: null, days: 0 }
  const total = count((row.total_value as { value?: unknown } | undefined)?.value)
  const series = Array.isArray(row.values) ? (row.values as { value?: unknown }[]) : []
  if (total !== null) return { views: total, days: series.length }
  return {
    views: series.length === 0 ? null : series.reduce((a, v) => a + (count(v.value) ?? 0), 0),
    days: series.length,
  }
}

export async function readProfileMetrics(
  ctx: ThreadsContext,
  input: { credentials: Credentials; profile: Profile },
): Promise<ProfileMetricsReading> {
  const { body, error } = await readInsights('Threads', () =>
    callThreads(ctx.graph, {
      method: 'GET',
      path: `/${threadsUserIdOf(input)}/threads_insights`,
      // Meta's collection documents only `metric` (and `breakdown`) here: the default period is read.
      params: { metric: 'views,followers_count' },
      token: input.credentials.accessToken,
      what: 'the profile insights',
    }),
  )
  const values = insightValues(body)
  const { views, days } = viewsOf(body)
  return {
    summary: { followers: count(values.followers_count), following: null, posts: null, views },
    metrics: { followers_count: values.followers_count ?? null, views },
    window: days > 0 ? `days_${days}` : 'lifetime',
    source: PROFILE_SOURCE,
    ...(error ? { error } : {}),
  }
}
