import { looksLikeVideoUrl } from '../../core/media-url.js'
import type { LookupAnswer, LookupRequest } from '../adapter.js'
import { foundByKey, isDistinctive, lookUpRecent, normaliseCopy, toLookupAnswer } from '../lookup-scan.js'
import { callGraph } from '../meta/graph.js'
import { absoluteLink, type FacebookContext, pageIdOf, permalinkOf } from './publish.js'

/** Posts read per page of the Page's lists (Graph serves at most 100). */
const LOOKUP_PAGE_SIZE = 100
/** Facebook's clock and ours may differ a little; a post this much older than the attempt still counts. */
const CLOCK_SKEW_MS = 2 * 60_000

/**
 * Resolves an unanswered Page post with the strongest key there is:
 * - a video whose id was saved is asked about directly (found once it is ready; not ready is reported as
 *   absent, so the send resumes polling the saved video rather than uploading again);
 * - a photo set whose unpublished photos were saved: the first photo's `page_story_id` is the set's post,
 *   and a photo attached to no story proves the set's post was never made;
 * - otherwise the Page's newest posts (or videos, for a video whose upload answer was lost) since the
 *   attempt are compared by their copy, NFC-normalised with spacing collapsed; a photo post only with
 *   photo posts. Empty or links-only copy, several matches or a Page too busy to read back is ambiguous;
 *   posts other targets hold never match.
 */
export async function findPagePost(ctx: FacebookContext, request: LookupRequest): Promise<LookupAnswer> {
  const token = request.credentials.accessToken
  const base = { token, signal: request.signal }
  const pageId = pageIdOf(request)
  if (request.progress?.video) {
    const video = await callGraph(ctx.graph, {
      ...base,
      method: 'GET',
      path: `/${request.progress.video}`,
      params: { fields: 'status,permalink_url,post_id' },
      what: 'the video',
    })
    // Not ready (or failed): report nothing, so the send resumes polling the saved video instead.
    if ((video.status as { video_status?: unknown } | undefined)?.video_status !== 'ready')
      return { kind: 'absent' }
    const postId = typeof video.post_id === 'string' ? video.post_id : request.progress.video
    const link = typeof video.permalink_url === 'string' ? video.permalink_url : undefined
    return foundByKey(
      {
        remoteId: postId,
        url: link ? absoluteLink(ctx, link) : await permalinkOf(ctx, base, postId),
      },
      request.excludeRemoteIds,
    )
  }
  const firstPhoto = request.mediaUrls.length > 1 ? request.progress?.photo0 : undefined
  if (firstPhoto) {
    const photo = await callGraph(ctx.graph, {
      ...base,
      method: 'GET',
      path: `/${firstPhoto}`,
      params: { fields: 'page_story_id' },
      what: 'the first photo of the set',
    })
    if (typeof photo.page_story_id !== 'string' || photo.page_story_id === '') return { kind: 'absent' }
    return foundByKey(
      { remoteId: photo.page_story_id, url: await permalinkOf(ctx, base, photo.page_story_id) },
      request.excludeRemoteIds,
    )
  }
  if (request.mediaUrls.length === 1 && looksLikeVideoUrl(request.mediaUrls[0] as string)) {
    // A video whose upload answer was lost: the Page's videos list it while it still processes (its post
    // appears among published posts only once ready), so a match there is the upload, ready or not.
    const answer = await scanPageEdge(ctx, request, {
      edge: 'videos',
      fields: 'id,description,created_time,permalink_url,post_id',
      text: 'description',
      what: "the Page's recent videos",
      idOf: (row) => str(row.post_id) ?? str(row.id),
    })
    return toLookupAnswer(answer, (match) => {
      const link = str(match.permalink_url) ?? `/${pageId}/videos/${String(match.id)}/`
      return {
        remoteId: str(match.post_id) ?? String(match.id),
        url: absoluteLink(ctx, link),
      }
    })
  }
  const photoPost = request.mediaUrls.length > 0
  const answer = await scanPageEdge(ctx, request, {
    edge: 'published_posts',
    fields: 'id,message,created_time,permalink_url,status_type',
    text: 'message',
    what: "the Page's recent posts",
    idOf: (row) => str(row.id),
    ...(photoPost ? { only: (row) => row.status_type === 'added_photos' } : {}),
  })
  return toLookupAnswer(answer, async (match) => {
    const id = String(match.id)
    return { remoteId: id, url: str(match.permalink_url) ?? (await permalinkOf(ctx, base, id)) }
  })
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

/**
 * Reads back through one of the Page's lists (newest first, `after` cursors) to the attempt, comparing
 * each row's copy with the attempt's; stops at the first older row. Graph takes no `since` on these edges.
 */
async function scanPageEdge(
  ctx: FacebookContext,
  request: LookupRequest,
  list: {
    edge: 'videos' | 'published_posts'
    fields: string
    text: string
    what: string
    idOf: (row: Record<string, unknown>) => string | undefined
    /** Rows of another kind than the attempt's are not candidates. */
    only?: (row: Record<string, unknown>) => boolean
  },
) {
  const path = `/${pageIdOf(request)}/${list.edge}`
  const from = request.since - CLOCK_SKEW_MS
  const wanted = normaliseCopy(request.content)
  return lookUpRecent<Record<string, unknown>>({
    where: `the Facebook Page ${request.profile.name}'s ${list.edge === 'videos' ? 'videos' : 'posts'}`,
    readPage: async (cursor) => {
      const page = await callGraph(ctx.graph, {
        token: request.credentials.accessToken,
        signal: request.signal,
        method: 'GET',
        path,
        params: { fields: list.fields, limit: LOOKUP_PAGE_SIZE, ...(cursor ? { after: cursor } : {}) },
        what: list.what,
      })
      const rows = Array.isArray(page.data) ? (page.data as Record<string, unknown>[]) : []
      const paging = page.paging as { cursors?: { after?: unknown }; next?: unknown } | undefined
      const after = paging?.cursors?.after
      // Graph leaves `next` out on the last page, even when it still names an `after` cursor.
      return { rows, next: typeof paging?.next === 'string' && typeof after === 'string' ? after : undefined }
    },
    idOf: list.idOf,
    urlOf: (row) => {
      const link = str(row.permalink_url)
      return link ? absoluteLink(ctx, link) : String(row.id)
    },
    isMatch: (row) =>
      (list.only?.(row) ?? true) &&
      normaliseCopy(typeof row[list.text] === 'string' ? (row[list.text] as string) : '') === wanted &&
      createdAt(row.created_time) >= from,
    distinctive: isDistinctive(request.content),
    exclude: request.excludeRemoteIds,
    isOlder: (row) => createdAt(row.created_time) < from,
  })
}

/** Graph's `created_time` (`2026-03-02T12:00:00+0000`) as epoch ms; NaN when absent. */
function createdAt(createdTime: unknown): number {
  return typeof createdTime === 'string' ? Date.parse(createdTime.replace(/\+0000$/, 'Z')) : Number.NaN
}
