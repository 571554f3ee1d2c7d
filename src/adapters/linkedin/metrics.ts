import type { Credentials, PostMetricsReading, Profile, ProfileMetricsReading } from '../adapter.js'
import { emptyPostSummary, PublishFailure } from '../adapter.js'
import { enc, type LinkedInContext, linkedinCall } from './client.js'

/**
 * LinkedIn analytics (reference A.8): organization posts through `organizationalEntityShareStatistics`
 * (a `urn:li:share` under `shares`, a `urn:li:ugcPost` under `ugcPosts`) plus `videoAnalytics` views for
 * ugcPosts (videos are ugcPosts); organization pages through `networkSizes` (followers) and
 * `organizationPageStatistics` (page views). A personal profile is never read: LinkedIn answers analytics
 * only for organization pages here (spec §4), so its readings are `unavailable` and cost nothing.
 */

const POST_SOURCE = 'linkedin:organizationalEntityShareStatistics'
const PAGE_SOURCE = 'linkedin:networkSizes+organizationPageStatistics'
export const PERSONAL_NOTE =
  'LinkedIn reports analytics only for organization pages; this is a personal profile'

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null)

export async function readPostMetrics(
  ctx: LinkedInContext,
  input: { credentials: Credentials; profile: Profile; remoteId: string },
): Promise<PostMetricsReading> {
  if (!input.profile.isOrganization)
    return {
      summary: emptyPostSummary(),
      metrics: {},
      source: POST_SOURCE,
      unavailable: true,
      error: PERSONAL_NOTE,
    }
  const kind = /^urn:li:(share|ugcPost):\d+$/.exec(input.remoteId)?.[1]
  if (!kind) throw new PublishFailure('invalid_content', `Not a LinkedIn post URN: ${input.remoteId}`)
  const token = input.credentials.accessToken
  const { body } = await linkedinCall(ctx, {
    method: 'GET',
    path: '/rest/organizationalEntityShareStatistics',
    query: [
      ['q', 'organizationalEntity'],
      ['organizationalEntity', enc(`urn:li:organization:${input.profile.profileId}`)],
      [kind === 'share' ? 'shares' : 'ugcPosts', `List(${enc(input.remoteId)})`],
    ],
    token,
    what: 'the post statistics',
  })
  const element = (Array.isArray(body.elements) ? body.elements[0] : undefined) as
    | Record<string, unknown>
    | undefined
  const stats = (element?.totalShareStatistics ?? {}) as Record<string, unknown>
  let videoViews: number | null = null
  if (kind === 'ugcPost') {
    const video = await linkedinCall(ctx, {
      method: 'GET',
      path: '/rest/videoAnalytics',
      query: [
        ['q', 'entity'],
        ['entity', enc(input.remoteId)],
        ['type', 'VIDEO_VIEW'],
        ['aggregation', 'ALL'],
      ],
      token,
      what: 'the video statistics',
    })
    const rows = Array.isArray(video.body.elements) ? (video.body.elements as Record<string, unknown>[]) : []
    if (rows.length > 0) videoViews = rows.reduce((sum, row) => sum + (num(row.value) ?? 0), 0)
  }
  const likes = num(stats.likeCount)
  const comments = num(stats.commentCount)
  const shares = num(stats.shareCount)
  const clicks = num(stats.clickCount)
  const counted = [likes, comments, shares, clicks].filter((v): v is number => v !== null)
  return {
    summary: {
      views: videoViews ?? num(stats.impressionCount),
      likes,
      comments,
      shares,
      saves: null,
      clicks,
      engagements: counted.length ? counted.reduce((a, b) => a + b, 0) : null,
    },
    metrics: { ...stats, ...(videoViews !== null ? { videoViews } : {}) },
    source: POST_SOURCE,
  }
}

export async function readPageMetrics(
  ctx: LinkedInContext,
  input: { credentials: Credentials; profile: Profile },
): Promise<ProfileMetricsReading> {
  const summary = { followers: null, following: null, posts: null, views: null }
  if (!input.profile.isOrganization)
    return {
      summary,
      metrics: {},
      window: 'lifetime',
      source: PAGE_SOURCE,
      unavailable: true,
      error: PERSONAL_NOTE,
    }
  const urn = `urn:li:organization:${input.profile.profileId}`
  const token = input.credentials.accessToken
  const size = await linkedinCall(ctx, {
    method: 'GET',
    path: `/rest/networkSizes/${enc(urn)}`,
    query: [['edgeType', 'COMPANY_FOLLOWED_BY_MEMBER']],
    token,
    what: 'the follower count',
  })
  const pages = await linkedinCall(ctx, {
    method: 'GET',
    path: '/rest/organizationPageStatistics',
    query: [
      ['q', 'organization'],
      ['organization', enc(urn)],
    ],
    token,
    what: 'the page statistics',
  })
  const element = (Array.isArray(pages.body.elements) ? pages.body.elements[0] : undefined) as
    | { totalPageStatistics?: { views?: { allPageViews?: { pageViews?: unknown } } } }
    | undefined
  const followers = num(size.body.firstDegreeSize)
  const views = num(element?.totalPageStatistics?.views?.allPageViews?.pageViews)
  return {
    summary: { followers, following: null, posts: null, views },
    metrics: { firstDegreeSize: followers, pageViews: views },
    window: 'lifetime',
    source: PAGE_SOURCE,
  }
}
