import {
  type Credentials,
  type PostMetricsReading,
  type ProfileMetricsReading,
  PublishFailure,
} from '../adapter.js'
import { API_TIMEOUT_MS, expectOk, sendToTwitter, type TwitterContext } from './client.js'
import type { TwitterAnswer } from './errors.js'

/**
 * The post-fields query parameter of GET /2/tweets/{id}. The OpenAPI document X serves (v2.167, the
 * contract our tests validate against) names it `post.fields`; older prose docs say `tweet.fields`.
 */
export const POST_FIELDS_PARAMETER = 'post.fields'

const ALL_POST_METRICS = 'public_metrics,non_public_metrics,organic_metrics'
const PUBLIC_POST_METRICS = 'public_metrics'

/** Problem types X uses (200 with `errors`, no `data`) when the private metric groups are refused. */
const fieldRefusals = new Set(['not-authorized-for-field', 'field-unauthorized'])

type Metrics = Record<string, unknown>

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const count = (group: Metrics | undefined, ...names: string[]): number | null => {
  for (const name of names) {
    const value = group?.[name]
    if (typeof value === 'number' && Number.isFinite(value)) return value
  }
  return null
}

const problemTypes = (body: unknown): string[] =>
  isRecord(body) && Array.isArray(body.errors)
    ? body.errors
        .map((entry) =>
          isRecord(entry) && typeof entry.type === 'string' ? entry.type.split('/').pop() : '',
        )
        .filter((type): type is string => Boolean(type))
    : []

/**
 * Maps X's metric groups to spec §2's summary. Names drift between spec versions (`retweet_count` vs
 * `repost_count`), so both are read. `clicks` exists only in the private groups (`url_link_clicks`);
 * `engagements` is the sum of the interactions counted here.
 */
export function summarizeTweetMetrics(groups: {
  public_metrics?: Metrics
  non_public_metrics?: Metrics
  organic_metrics?: Metrics
}): PostMetricsReading['summary'] {
  const pub = groups.public_metrics
  const views =
    count(pub, 'impression_count') ??
    count(groups.non_public_metrics, 'impression_count') ??
    count(groups.organic_metrics, 'impression_count')
  const likes = count(pub, 'like_count')
  const comments = count(pub, 'reply_count')
  const reposts = count(pub, 'retweet_count', 'repost_count')
  const quotes = count(pub, 'quote_count')
  const shares = reposts === null && quotes === null ? null : (reposts ?? 0) + (quotes ?? 0)
  const saves = count(pub, 'bookmark_count')
  const clicks =
    count(groups.non_public_metrics, 'url_link_clicks') ?? count(groups.organic_metrics, 'url_link_clicks')
  const parts = [likes, comments, shares, saves, clicks]
  const engagements = parts.every((part) => part === null)
    ? null
    : parts.reduce<number>((sum, part) => sum + (part ?? 0), 0)
  return { views, likes, comments, shares, saves, clicks, engagements }
}

async function lookupTweet(
  ctx: TwitterContext,
  credentials: Credentials,
  remoteId: string,
  fields: string,
): Promise<TwitterAnswer> {
  return sendToTwitter(ctx, {
    method: 'GET',
    path: `/2/tweets/${encodeURIComponent(remoteId)}`,
    query: { [POST_FIELDS_PARAMETER]: fields },
    bearer: credentials.accessToken,
    timeoutMs: API_TIMEOUT_MS,
    what: 'the post metrics',
  })
}

/**
 * GET /2/tweets/{id} with the public and private metric groups. The private groups answer only for the
 * author's own posts of the last 30 days; when X refuses them (a field-authorization problem, or a
 * 400/403), the reading falls back to `public_metrics` alone.
 */
export async function readTweetMetrics(
  ctx: TwitterContext,
  input: { credentials: Credentials; remoteId: string },
): Promise<PostMetricsReading> {
  const secrets = [input.credentials.accessToken, input.credentials.refreshToken]
  let fields = ALL_POST_METRICS
  let answer = await lookupTweet(ctx, input.credentials, input.remoteId, fields)
  const refused =
    answer.status === 400 ||
    answer.status === 403 ||
    (answer.status === 200 &&
      !(isRecord(answer.body) && isRecord(answer.body.data)) &&
      problemTypes(answer.body).some((type) => fieldRefusals.has(type)))
  if (refused) {
    fields = PUBLIC_POST_METRICS
    answer = await lookupTweet(ctx, input.credentials, input.remoteId, fields)
  }
  const body = expectOk(ctx, answer, 'read', secrets)
  const source = `x-api-v2 ${fields.split(',').join('+')}`
  const data = isRecord(body) && isRecord(body.data) ? body.data : undefined
  if (!data) {
    const gone = problemTypes(body).includes('resource-not-found')
    return {
      summary: summarizeTweetMetrics({}),
      metrics: isRecord(body) ? { errors: body.errors } : {},
      source,
      error: gone ? 'The post no longer exists on X' : 'X returned no metrics for this post',
    }
  }
  const groups: Record<string, Metrics> = {}
  for (const name of ['public_metrics', 'non_public_metrics', 'organic_metrics'] as const) {
    const group = data[name]
    if (isRecord(group)) groups[name] = group
  }
  return { summary: summarizeTweetMetrics(groups), metrics: groups, source }
}

/** GET /2/users/me public_metrics: followers, following and posts (lifetime figures; X has no views). */
export async function readProfileMetrics(
  ctx: TwitterContext,
  input: { credentials: Credentials },
): Promise<ProfileMetricsReading> {
  const secrets = [input.credentials.accessToken, input.credentials.refreshToken]
  const answer = await sendToTwitter(ctx, {
    method: 'GET',
    path: '/2/users/me',
    query: { 'user.fields': 'public_metrics' },
    bearer: input.credentials.accessToken,
    timeoutMs: API_TIMEOUT_MS,
    what: 'the profile metrics',
  })
  const body = expectOk(ctx, answer, 'read', secrets)
  const data = isRecord(body) && isRecord(body.data) ? body.data : undefined
  const metrics = data && isRecord(data.public_metrics) ? data.public_metrics : undefined
  if (!metrics) {
    throw new PublishFailure('transient', 'X answered the profile lookup without public_metrics', {
      status: answer.status,
    })
  }
  return {
    summary: {
      followers: count(metrics, 'followers_count'),
      following: count(metrics, 'following_count'),
      // v2.167 renamed tweet_count to post_count; read both.
      posts: count(metrics, 'post_count', 'tweet_count'),
      views: null,
    },
    metrics: { ...metrics },
    window: 'lifetime',
    source: 'x-api-v2 users/me public_metrics',
  }
}
