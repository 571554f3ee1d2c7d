import {
  type Credentials,
  emptyPostSummary,
  type PostMetricsReading,
  type Profile,
  type ProfileMetricsReading,
} from '../adapter.js'
import { num, type PinterestBody, type PinterestContext, pinterestCall } from './client.js'
import { boardOf } from './publish.js'

/**
 * Pinterest's readings (reference B.11):
 *
 * - a pin: `GET /pins/{id}/analytics` over the last 90 days (the most Pinterest answers), the period's
 *   impressions (views), saves, pin clicks and outbound clicks (clicks: the two together), and the pin's
 *   lifetime reactions (likes) and comments; engagements are saves, clicks, reactions and comments;
 * - a board's profile: the account's followers and following and its impressions over the last 30 days
 *   (`GET /user_account`, `GET /user_account/analytics`; every board of the account reads the same), and the
 *   board's own pin count (`GET /boards/{id}`) as its posts.
 */

export const POST_SOURCE = 'Pinterest API pin analytics'
export const PROFILE_SOURCE = 'Pinterest API account analytics'
export const PIN_METRICS = [
  'IMPRESSION',
  'SAVE',
  'PIN_CLICK',
  'OUTBOUND_CLICK',
  'TOTAL_REACTIONS',
  'TOTAL_COMMENTS',
] as const
export const ACCOUNT_METRICS = ['IMPRESSION', 'ENGAGEMENT', 'SAVE', 'PIN_CLICK', 'OUTBOUND_CLICK'] as const

const DAY_MS = 86_400_000
const PIN_WINDOW_DAYS = 90
const ACCOUNT_WINDOW_DAYS = 30

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** `start_date` and `end_date` of the last `days` days (today included, in UTC). */
export const window = (now: number, days: number) => ({
  start_date: day(now - (days - 1) * DAY_MS),
  end_date: day(now),
})

const sum = (...values: (number | null)[]) =>
  values.every((v) => v === null) ? null : values.reduce<number>((a, b) => a + (b ?? 0), 0)

/** The split every analytics answer is keyed by when it is not split (`{"all": {...}}`). */
const allOf = (body: PinterestBody) => (body.all ?? {}) as PinterestBody

export async function readPinMetrics(
  ctx: PinterestContext,
  input: { credentials: Credentials; remoteId: string },
): Promise<PostMetricsReading> {
  const body = await pinterestCall(ctx, {
    method: 'GET',
    path: `/pins/${input.remoteId}/analytics`,
    query: {
      ...window(ctx.deps.now(), PIN_WINDOW_DAYS),
      metric_types: PIN_METRICS.join(','),
      app_types: 'ALL',
      split_field: 'NO_SPLIT',
    },
    token: input.credentials.accessToken,
    what: "the pin's analytics",
  })
  const all = allOf(body)
  const period = (all.summary_metrics ?? {}) as PinterestBody
  const lifetime = (all.lifetime_metrics ?? {}) as PinterestBody
  const read = (name: string) => num(period[name]) ?? num(lifetime[name]) ?? null
  const [impressions, saves, pinClicks, outbound, reactions, comments] = PIN_METRICS.map(read) as (
    | number
    | null
  )[]
  return {
    summary: {
      ...emptyPostSummary(),
      views: impressions ?? null,
      likes: reactions ?? null,
      comments: comments ?? null,
      saves: saves ?? null,
      clicks: sum(pinClicks ?? null, outbound ?? null),
      engagements: sum(
        saves ?? null,
        pinClicks ?? null,
        outbound ?? null,
        reactions ?? null,
        comments ?? null,
      ),
    },
    metrics: {
      ...Object.fromEntries(PIN_METRICS.map((name) => [name, read(name)])),
      window: `days_${PIN_WINDOW_DAYS}`,
    },
    source: POST_SOURCE,
  }
}

export async function readAccountMetrics(
  ctx: PinterestContext,
  input: { credentials: Credentials; profile: Profile },
): Promise<ProfileMetricsReading> {
  const token = input.credentials.accessToken
  const account = await pinterestCall(ctx, {
    method: 'GET',
    path: '/user_account',
    token,
    what: 'the account',
  })
  const board = await pinterestCall(ctx, {
    method: 'GET',
    path: `/boards/${boardOf(input)}`,
    token,
    what: 'the board',
  })
  const analytics = await pinterestCall(ctx, {
    method: 'GET',
    path: '/user_account/analytics',
    query: { ...window(ctx.deps.now(), ACCOUNT_WINDOW_DAYS), metric_types: ACCOUNT_METRICS.join(',') },
    token,
    what: "the account's analytics",
  })
  const period = (allOf(analytics).summary_metrics ?? {}) as PinterestBody
  return {
    summary: {
      followers: num(account.follower_count) ?? null,
      following: num(account.following_count) ?? null,
      posts: num(board.pin_count) ?? null,
      views: num(period.IMPRESSION) ?? null,
    },
    metrics: {
      account_follower_count: num(account.follower_count) ?? null,
      account_following_count: num(account.following_count) ?? null,
      account_pin_count: num(account.pin_count) ?? null,
      account_monthly_views: num(account.monthly_views) ?? null,
      board_pin_count: num(board.pin_count) ?? null,
      board_follower_count: num(board.follower_count) ?? null,
      ...Object.fromEntries(ACCOUNT_METRICS.map((name) => [name, num(period[name]) ?? null])),
    },
    window: `days_${ACCOUNT_WINDOW_DAYS}`,
    source: PROFILE_SOURCE,
  }
}
