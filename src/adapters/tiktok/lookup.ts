import { looksLikeVideoUrl } from '../../core/media-url.js'
import { tiktokPrivacyLabels } from '../../core/tiktok-rules.js'
import { type LookupAnswer, type LookupRequest, PublishFailure } from '../adapter.js'
import { foundByKey, isDistinctive, lookUpRecent, normaliseCopy, toLookupAnswer } from '../lookup-scan.js'
import { tiktokCall } from './api.js'
import type { TikTokContext } from './settings.js'
import { fetchStatus, resultOf } from './status.js'

/**
 * Resolves an unknown outcome on TikTok (reference A.9), which has no idempotency key and no list of
 * publish jobs:
 *
 * - with a saved publish id, TikTok is asked for that job (`status/fetch`): the strongest key there is.
 *   Posted or delivered to the inbox is found; failed, or an upload that does not hold the whole file, is
 *   certainly absent (the next send carries the upload on); a job still processing is asked again later.
 * - a video without a saved job never sent a byte (its init makes nothing), so it is absent.
 * - photos whose init went unanswered, and a job TikTok no longer knows, are looked for in the creator's
 *   video list since the attempt, matched on the copy TikTok stores. That list shows public posts only:
 *   a draft, a post for fewer people, and every post of an unaudited app cannot be seen there, so Herald
 *   says it cannot tell instead of guessing. A photo post TikTok may still be fetching or checking (for the
 *   hour a pull may take) is looked for again rather than called absent.
 */

/** How far TikTok's clock may be behind Herald's when `create_time` is compared. */
const CLOCK_SLACK_MS = 2 * 60_000
/** A PULL_FROM_URL download may take up to an hour; before that, an empty list proves nothing yet. */
export const PULL_SETTLE_MS = 60 * 60_000
const PAGE_SIZE = 20
const LIST_FIELDS = 'id,create_time,title,video_description,share_url'

export async function findTikTokPost(ctx: TikTokContext, request: LookupRequest): Promise<LookupAnswer> {
  const publishId = request.progress?.publishId
  if (publishId) {
    const answer = await byPublishId(ctx, request, publishId)
    if (answer) return answer
  } else if (request.mediaUrls.length === 1 && looksLikeVideoUrl(request.mediaUrls[0] as string))
    return { kind: 'absent' }
  return byList(ctx, request)
}

/** What TikTok says of the saved job; undefined when it no longer knows the id. */
async function byPublishId(
  ctx: TikTokContext,
  request: LookupRequest,
  publishId: string,
): Promise<LookupAnswer | undefined> {
  let status: Awaited<ReturnType<typeof fetchStatus>>
  try {
    status = await fetchStatus(ctx, request.credentials.accessToken, publishId, request.signal)
  } catch (error) {
    if (error instanceof PublishFailure && error.options.code === 'invalid_publish_id') return undefined
    throw error
  }
  const kind = request.progress?.kind === 'photo' ? 'photo' : 'video'
  if (status.status === 'PUBLISH_COMPLETE' || status.status === 'SEND_TO_USER_INBOX')
    return foundByKey(
      resultOf(ctx, { profile: request.profile, publishId, kind }, status),
      request.excludeRemoteIds,
    )
  if (status.status === 'FAILED') return { kind: 'absent' }
  const size = Number(request.progress?.videoSize)
  if (status.status === 'PROCESSING_UPLOAD' && Number.isFinite(size) && status.uploadedBytes < size)
    return { kind: 'absent' }
  throw new PublishFailure(
    'transient',
    'TikTok is still processing the post; Herald asks again before sending anything',
  )
}

/** Why the video list cannot show this post, or undefined when it can. */
function unseen(ctx: TikTokContext, request: LookupRequest): string | undefined {
  if (request.tiktok?.sendAsDraft)
    return `it was sent as a draft, and TikTok lists no drafts. Check @${request.profile.username}'s TikTok inbox:`
  if (!ctx.settings.audited)
    return `TikTok has not audited this Herald's app, so the post is private, and TikTok lists public posts only. Check @${request.profile.username}'s profile in the TikTok app:`
  const level = request.tiktok?.privacyLevel
  if (level !== 'PUBLIC_TO_EVERYONE')
    return `it was sent for ${level ? tiktokPrivacyLabels[level].toLowerCase() : 'a chosen audience'} only, and TikTok lists public posts only. Check @${request.profile.username}'s profile in the TikTok app:`
  return undefined
}

async function byList(ctx: TikTokContext, request: LookupRequest): Promise<LookupAnswer> {
  const hidden = unseen(ctx, request)
  if (hidden)
    return {
      kind: 'ambiguous',
      reason: `Herald cannot tell whether the unanswered attempt went out: ${hidden} if the post is there, it went out; otherwise reset the post (reset_stuck_post) and publish it again.`,
    }
  const from = request.since - CLOCK_SLACK_MS
  const wanted = normaliseCopy(request.content)
  const text = (value: unknown) => normaliseCopy(typeof value === 'string' ? value : '')
  const urlOf = (row: Record<string, unknown>) =>
    typeof row.share_url === 'string' ? row.share_url : `${ctx.settings.webUrl}/@${request.profile.username}`
  const answer = await lookUpRecent<Record<string, unknown>>({
    where: `@${request.profile.username}'s posts on TikTok`,
    readPage: (cursor) => listPage(ctx, request, cursor),
    idOf: (row) => (typeof row.id === 'string' ? row.id : undefined),
    urlOf,
    isMatch: (row) => text(row.video_description) === wanted || text(row.title) === wanted,
    distinctive: isDistinctive(request.content),
    exclude: request.excludeRemoteIds,
    isOlder: (row) => Number(row.create_time) * 1000 < from,
  })
  if (answer.kind === 'absent' && ctx.deps.now() - request.since < PULL_SETTLE_MS)
    throw new PublishFailure(
      'transient',
      'TikTok lists no such post yet, and it may still be fetching or checking the photos; Herald looks again before sending anything',
    )
  return toLookupAnswer(answer, (row) => ({ remoteId: String(row.id), url: urlOf(row) }))
}

/** One page of the creator's public posts, newest first; the cursor is TikTok's, an epoch in ms. */
async function listPage(ctx: TikTokContext, request: LookupRequest, cursor: string | undefined) {
  const { data } = await tiktokCall(ctx, {
    method: 'POST',
    path: '/v2/video/list/',
    query: { fields: LIST_FIELDS },
    body: { max_count: PAGE_SIZE, ...(cursor ? { cursor: Number(cursor) } : {}) },
    token: request.credentials.accessToken,
    what: "the creator's posts",
    signal: request.signal,
  })
  const rows = Array.isArray(data.videos) ? (data.videos as Record<string, unknown>[]) : []
  const next = data.has_more === true && data.cursor !== undefined ? String(data.cursor) : undefined
  return { rows, ...(next ? { next } : {}) }
}
