import type { LookupRequest, PublishResult } from '../adapter.js'
import { callGraph } from '../meta/graph.js'
import { type FacebookContext, pageIdOf, permalinkOf } from './publish.js'

/** How many of the Page's newest posts an unanswered publish is looked for among. */
const LOOKUP_LIMIT = 25
/** Facebook's clock and ours may differ a little; a post this much older than the attempt still counts. */
const CLOCK_SKEW_MS = 2 * 60_000

/**
 * Resolves an unanswered Page post: a video whose id was saved is asked about directly; otherwise the
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
    const postId = typeof video.post_id === 'string' ? video.post_id : request.progress.video
    return { remoteId: postId, url: await permalinkOf(ctx, base, postId) }
  }
  const posts = await callGraph(ctx.graph, {
    ...base,
    method: 'GET',
    path: `/${pageId}/published_posts`,
    params: { fields: 'id,message,created_time,permalink_url', limit: LOOKUP_LIMIT },
    what: "the Page's recent posts",
  })
  const rows = Array.isArray(posts.data) ? (posts.data as Record<string, unknown>[]) : []
  const wanted = request.content.trim()
  const match = rows.find((row) => {
    const created =
      typeof row.created_time === 'string' ? Date.parse(row.created_time.replace(/\+0000$/, 'Z')) : Number.NaN
    return (
      typeof row.id === 'string' &&
      (typeof row.message === 'string' ? row.message.trim() : '') === wanted &&
      created >= request.since - CLOCK_SKEW_MS
    )
  })
  if (!match) return null
  const id = match.id as string
  const link = typeof match.permalink_url === 'string' ? match.permalink_url : undefined
  return { remoteId: id, url: link ?? (await permalinkOf(ctx, base, id)) }
}
