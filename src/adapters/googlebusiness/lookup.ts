import type { LookupAnswer, LookupRequest } from '../adapter.js'
import { foundByKey, isDistinctive, lookUpRecent, normaliseCopy, toLookupAnswer } from '../lookup-scan.js'
import { listPage, str } from './api.js'
import { detailsOf, TOPIC_TYPES } from './local-post.js'
import { readLocalPost, resultOf } from './publish.js'
import { type GoogleBusinessContext, locationPath } from './settings.js'

/** Posts read per page of a location's list (the most Google serves). */
const PAGE_SIZE = '100'
/** Google's clock and Herald's may differ a little: a post this much older than the attempt still counts. */
const CLOCK_SKEW_MS = 2 * 60_000

/**
 * Resolves an unanswered post creation. Where the attempt saved the post's name, the post is read by it.
 * Otherwise every post of the location is read (Google documents no order for the list, so a scan never
 * stops at an older post: it pages until the last page, within the scan's budget), and a post made since
 * the attempt that carries what Herald sent (the same summary, normalised as Google keeps it, the same
 * topic type, event or offer title, coupon code and number of photos) is the attempt's. Copy that says
 * nothing (empty, links only, with no title or coupon besides), several such posts, or a location with
 * more posts than Herald reads back is ambiguous. A rejected post is shown to nobody: it never matches.
 */
export async function findLocalPost(
  ctx: GoogleBusinessContext,
  request: LookupRequest,
): Promise<LookupAnswer> {
  const parent = locationPath(request.credentials.extra, request.profile.profileId)
  const saved = request.progress?.localPost
  if (saved) {
    const post = await readLocalPost(ctx, request, saved)
    if (!post || post.state === 'REJECTED') return { kind: 'absent' }
    return foundByKey(resultOf(ctx, post, parent), request.excludeRemoteIds)
  }
  const details = detailsOf(request)
  const wanted = {
    summary: normaliseCopy(request.content),
    topicType: TOPIC_TYPES[details.type],
    title: details.type === 'update' ? undefined : details.event?.title.trim(),
    coupon: details.type === 'offer' ? details.offer?.couponCode?.trim() : undefined,
    photos: request.mediaUrls.length > 0 ? 1 : 0,
  }
  const from = request.since - CLOCK_SKEW_MS
  const answer = await lookUpRecent<Record<string, unknown>>({
    where: `the Google Business Profile location ${request.profile.name}'s posts`,
    readPage: (cursor) =>
      listPage(
        ctx,
        {
          method: 'GET',
          base: ctx.settings.postsUrl,
          path: `/v4/${parent}/localPosts`,
          query: { pageSize: PAGE_SIZE, pageToken: cursor },
          token: request.credentials.accessToken,
          signal: request.signal,
          what: "the location's posts",
        },
        'localPosts',
      ),
    isOlder: () => false,
    idOf: (post) => str(post.name),
    urlOf: (post) => resultOf(ctx, post, parent).url,
    isMatch: (post) => post.state !== 'REJECTED' && madeSince(post, from) && sameAsSent(post, wanted),
    distinctive:
      isDistinctive(request.content) ||
      Boolean(wanted.title && isDistinctive(wanted.title)) ||
      Boolean(wanted.coupon),
    exclude: request.excludeRemoteIds,
  })
  return toLookupAnswer(answer, (post) => resultOf(ctx, post, parent))
}

function sameAsSent(
  post: Record<string, unknown>,
  wanted: {
    summary: string
    topicType: string
    title?: string | undefined
    coupon?: string | undefined
    photos: number
  },
): boolean {
  const event = (post.event ?? {}) as { title?: unknown }
  const offer = (post.offer ?? {}) as { couponCode?: unknown }
  const photos = Array.isArray(post.media) ? post.media.length : 0
  return (
    normaliseCopy(str(post.summary) ?? '') === wanted.summary &&
    post.topicType === wanted.topicType &&
    (str(event.title)?.trim() ?? undefined) === wanted.title &&
    (str(offer.couponCode)?.trim() ?? undefined) === (wanted.coupon || undefined) &&
    photos === wanted.photos
  )
}

/** Made at or after `from` by its `createTime` (RFC 3339); a post without one may be the attempt's. */
function madeSince(post: Record<string, unknown>, from: number): boolean {
  const at = typeof post.createTime === 'string' ? Date.parse(post.createTime) : Number.NaN
  return Number.isNaN(at) || at >= from
}
