import {
  type Credentials,
  emptyPostSummary,
  type PostMetricsReading,
  type Profile,
  type ProfileMetricsReading,
} from '../adapter.js'
import { callGoogle } from './api.js'
import type { GoogleBusinessContext } from './settings.js'

/**
 * Figures per location from the Business Profile Performance API: the last 28 complete days of each daily
 * metric, summed. Views are the profile's impressions on Maps and Search, desktop and mobile (a person
 * counted once a day); the spec's summary takes them as `views`, and nothing Google reports is a follower,
 * a following or a post count. Every figure is kept under `metrics`: searches (impressions on Search),
 * calls, website clicks, direction requests, conversations, bookings and food orders, and each metric by
 * Google's own name.
 *
 * Per-post figures: Google retired the local posts insights in 2023 and offers no replacement, so a post's
 * reading is `unavailable` with that reason.
 */

export const PROFILE_SOURCE = 'Business Profile Performance API fetchMultiDailyMetricsTimeSeries'
export const POST_SOURCE = 'Google Business Profile'
export const NO_POST_FIGURES =
  'Google offers no figures per post for Business Profile posts (it retired them in 2023); the location’s views, searches, calls, website clicks and direction requests are in its profile analytics'

const DAILY_METRICS = [
  'BUSINESS_IMPRESSIONS_DESKTOP_MAPS',
  'BUSINESS_IMPRESSIONS_DESKTOP_SEARCH',
  'BUSINESS_IMPRESSIONS_MOBILE_MAPS',
  'BUSINESS_IMPRESSIONS_MOBILE_SEARCH',
  'BUSINESS_CONVERSATIONS',
  'BUSINESS_DIRECTION_REQUESTS',
  'CALL_CLICKS',
  'WEBSITE_CLICKS',
  'BUSINESS_BOOKINGS',
  'BUSINESS_FOOD_ORDERS',
  'BUSINESS_FOOD_MENU_CLICKS',
] as const
type DailyMetric = (typeof DAILY_METRICS)[number]

const DAYS = 28
const DAY_MS = 86_400_000

export function readPostMetrics(): PostMetricsReading {
  return {
    summary: emptyPostSummary(),
    metrics: {},
    source: POST_SOURCE,
    error: NO_POST_FIGURES,
    unavailable: true,
  }
}

export async function readLocationMetrics(
  ctx: GoogleBusinessContext,
  input: { credentials: Credentials; profile: Profile },
): Promise<ProfileMetricsReading> {
  const location = input.credentials.extra?.location ?? input.profile.profileId
  // The last 28 whole days, ending yesterday (UTC): today's figures are still coming in.
  const end = new Date(ctx.deps.now() - DAY_MS)
  const start = new Date(end.getTime() - (DAYS - 1) * DAY_MS)
  const answer = await callGoogle(ctx, {
    method: 'GET',
    base: ctx.settings.performanceUrl,
    path: `/v1/${location}:fetchMultiDailyMetricsTimeSeries`,
    query: {
      dailyMetrics: [...DAILY_METRICS],
      ...dateQuery('dailyRange.startDate', start),
      ...dateQuery('dailyRange.endDate', end),
    },
    token: input.credentials.accessToken,
    what: "the location's performance",
  })
  return locationReading(totals(answer), { start: iso(start), end: iso(end) })
}

const iso = (date: Date) => date.toISOString().slice(0, 10)

function dateQuery(prefix: string, date: Date): Record<string, string> {
  return {
    [`${prefix}.year`]: String(date.getUTCFullYear()),
    [`${prefix}.month`]: String(date.getUTCMonth() + 1),
    [`${prefix}.day`]: String(date.getUTCDate()),
  }
}

/** Each metric's total over the range; a metric Google did not answer for is absent (unknown, not 0). */
export function totals(answer: Record<string, unknown>): Partial<Record<DailyMetric, number>> {
  const sums: Partial<Record<DailyMetric, number>> = {}
  const outer = Array.isArray(answer.multiDailyMetricTimeSeries) ? answer.multiDailyMetricTimeSeries : []
  for (const group of outer as Array<{ dailyMetricTimeSeries?: unknown }>) {
    const series = Array.isArray(group?.dailyMetricTimeSeries) ? group.dailyMetricTimeSeries : []
    for (const one of series as Array<{ dailyMetric?: unknown; timeSeries?: { datedValues?: unknown } }>) {
      const metric = one?.dailyMetric as DailyMetric
      if (!DAILY_METRICS.includes(metric)) continue
      const values = Array.isArray(one.timeSeries?.datedValues) ? one.timeSeries.datedValues : []
      // A day without `value` is a zero (Google leaves zeros out); values are int64 decimal strings.
      const sum = (values as Array<{ value?: unknown }>).reduce((total, day) => {
        const n = typeof day?.value === 'string' && /^\d+$/.test(day.value) ? Number(day.value) : 0
        return total + n
      }, 0)
      sums[metric] = (sums[metric] ?? 0) + sum
    }
  }
  return sums
}

const add = (...values: Array<number | undefined>): number | null =>
  values.every((v) => v === undefined) ? null : values.reduce<number>((sum, v) => sum + (v ?? 0), 0)

export function locationReading(
  sums: Partial<Record<DailyMetric, number>>,
  range: { start: string; end: string },
): ProfileMetricsReading {
  const searches = add(sums.BUSINESS_IMPRESSIONS_DESKTOP_SEARCH, sums.BUSINESS_IMPRESSIONS_MOBILE_SEARCH)
  const mapViews = add(sums.BUSINESS_IMPRESSIONS_DESKTOP_MAPS, sums.BUSINESS_IMPRESSIONS_MOBILE_MAPS)
  const views = searches === null && mapViews === null ? null : (searches ?? 0) + (mapViews ?? 0)
  return {
    summary: { followers: null, following: null, posts: null, views },
    metrics: {
      views,
      searches,
      mapViews,
      calls: sums.CALL_CLICKS ?? null,
      websiteClicks: sums.WEBSITE_CLICKS ?? null,
      directionRequests: sums.BUSINESS_DIRECTION_REQUESTS ?? null,
      conversations: sums.BUSINESS_CONVERSATIONS ?? null,
      bookings: sums.BUSINESS_BOOKINGS ?? null,
      foodOrders: sums.BUSINESS_FOOD_ORDERS ?? null,
      foodMenuClicks: sums.BUSINESS_FOOD_MENU_CLICKS ?? null,
      dailyMetrics: sums,
      range,
    },
    window: `days_${DAYS}`,
    source: PROFILE_SOURCE,
  }
}
