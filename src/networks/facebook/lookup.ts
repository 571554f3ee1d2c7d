import { looksLikeVideoUrl } from '../../media/media-url.js'
import type { LookupRequest, PublishResult } from '../adapter.js'
import { callGraph } from '../meta/graph.js'
import { type FacebookContext, pageIdOf, permalinkOf } from './publish.js'

/** How many of the Page's newest posts an unanswered publish is looked for among. */
const LOOKUP_LIMIT = 25
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
    const videos = await callGraph(ctx.graph, {
      ...base,
      method: 'GET',
      path: `/${pageId}/videos`,
      params: { fields: 'id,description,created_time,permalink_url,post_id', limit: LOOKUP_LIMIT },
      what: "the Page's recent videos",
    })
    const rows = Array.isArray(videos.data) ? (videos.data as Record<string, unknown>[]) : []
    const match = rows.find((row) => sameCopy(row.description, row.created_time, request))
    if (!match || typeof match.id !== 'string') return null
    const link =
      typeof match.permalink_url === 'string' ? match.permalink_url : `/${pageId}/videos/${match.id}/`
    return {
      remoteId: typeof match.post_id === 'string' ? match.post_id : match.id,
      url: link.startsWith('/') ? `https://www.facebook.com${link}` : link,
    }
  }
  const posts = await callGraph(ctx.graph, {
    ...base,
    method: 'GET',
    path: `/${pageId}/published_posts`,
    params: { fields: 'id,message,created_time,permalink_url', limit: LOOKUP_LIMIT },
    what: "the Page's recent posts",
  })
  const rows = Array.isArray(posts.data) ? (posts.data as Record<string, unknown>[]) : []
  const match = rows.find(
    (row) => typeof row.id === 'string' && sameCopy(row.message, row.created_time, request),
  )
  if (!match) return null
  const id = match.id as string
  const link = typeof match.permalink_url === 'string' ? match.permalink_url : undefined
  return { remoteId: id, url: link ?? (await permalinkOf(ctx, base, id)) }
}

/** The same copy, created at or after the attempt began (allowing for clock skew). */
function sameCopy(text: unknown, createdTime: unknown, request: LookupRequest): boolean {
  const created =
    typeof createdTime === 'string' ? Date.parse(createdTime.replace(/\+0000$/, 'Z')) : Number.NaN
  return (
    (typeof text === 'string' ? text.trim() : '') === request.content.trim() &&
    created >= request.since - CLOCK_SKEW_MS
  )
}
