import { looksLikeVideoUrl } from '../../media/media-url.js'
import type { LookupRequest, PublishResult } from '../adapter.js'
import { scanRecentPosts } from '../lookup-scan.js'
import { callGraph } from '../meta/graph.js'
import { type FacebookContext, pageIdOf, permalinkOf } from './publish.js'

/** Posts read per page of the Page's lists (Graph serves at most 100). */
const LOOKUP_PAGE_SIZE = 100
/** Facebook's clock and ours may differ a little; a post this much older than the attempt still counts. */
const CLOCK_SKEW_MS = 2 * 60_000

/**
 * Resolves an unanswered Page post: a video whose id was saved is asked about directly (found once it is
 * ready); otherwise the
 * Page's newest published posts are searched for one created since the attempt with the same message.
 */
export async function findPagePost(
  ctx: FacebookContext,
  request: LookupRequest,
): Promise<PublishResult | null> {
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
    if ((video.status as { video_status?: unknown } | undefined)?.video_status !== 'ready') return null
    const postId = typeof video.post_id === 'string' ? video.post_id : request.progress.video
    const link = typeof video.permalink_url === 'string' ? video.permalink_url : undefined
    return {
      remoteId: postId,
      url: link
        ? link.startsWith('/')
          ? `https://www.facebook.com${link}`
          : link
        : await permalinkOf(ctx, base, postId),
    }
  }
  if (request.mediaUrls.length === 1 && looksLikeVideoUrl(request.mediaUrls[0] as string)) {
    // A video whose upload answer was lost: the Page's videos list it while it still processes (its post
    // appears among published posts only once ready), so a match there is the upload, ready or not.
    const match = await scanPageEdge(ctx, request, {
      edge: 'videos',
      fields: 'id,description,created_time,permalink_url,post_id',
      text: 'description',
      what: "the Page's recent videos",
    })
    if (!match || typeof match.id !== 'string') return null
    const link =
      typeof match.permalink_url === 'string' ? match.permalink_url : `/${pageId}/videos/${match.id}/`
    return {
      remoteId: typeof match.post_id === 'string' ? match.post_id : match.id,
      url: link.startsWith('/') ? `https://www.facebook.com${link}` : link,
    }
  }
  const match = await scanPageEdge(ctx, request, {
    edge: 'published_posts',
    fields: 'id,message,created_time,permalink_url',
    text: 'message',
    what: "the Page's recent posts",
  })
  if (!match) return null
  const id = match.id as string
  const link = typeof match.permalink_url === 'string' ? match.permalink_url : undefined
  return { remoteId: id, url: link ?? (await permalinkOf(ctx, base, id)) }
}

/**
 * Pages back through one of the Page's lists (newest first, `after` cursors) for a row with the same copy
 * created since the attempt; stops at the first older row. Graph takes no `since` on these edges.
 */
async function scanPageEdge(
  ctx: FacebookContext,
  request: LookupRequest,
  list: { edge: 'videos' | 'published_posts'; fields: string; text: string; what: string },
): Promise<Record<string, unknown> | null> {
  const path = `/${pageIdOf(request)}/${list.edge}`
  const from = request.since - CLOCK_SKEW_MS
  return scanRecentPosts<Record<string, unknown>>({
    network: 'Facebook',
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
    isMatch: (row) =>
      typeof row.id === 'string' &&
      (typeof row[list.text] === 'string' ? (row[list.text] as string).trim() : '') ===
        request.content.trim() &&
      createdAt(row.created_time) >= from,
    isOlder: (row) => createdAt(row.created_time) < from,
  })
}

/** Graph's `created_time` (`2026-03-02T12:00:00+0000`) as epoch ms; NaN when absent. */
function createdAt(createdTime: unknown): number {
  return typeof createdTime === 'string' ? Date.parse(createdTime.replace(/\+0000$/, 'Z')) : Number.NaN
}
