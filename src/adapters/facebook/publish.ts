import { MediaError, type PreparedMedia } from '../../core/media-port.js'
import {
  type AdapterDeps,
  altTextOf,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import { callGraph, type GraphClient } from '../meta/graph.js'

/**
 * Publishing to a Facebook Page (reference B.4), always with the Page's own token:
 * - no media: `POST /{page}/feed` with `message` (and `link` when the copy is only a link's companion);
 * - one photo: `POST /{page}/photos` with `url` (Herald's hosted copy), `message` and its alt text
 *   (`alt_text_custom`), as each photo below;
 * - 2-10 photos: each `POST /{page}/photos` with `published=false`, then one `POST /{page}/feed` with
 *   `attached_media` naming them;
 * - one video: `POST /{page}/videos` with `file_url` and `description`, then `GET /{video}` polled until
 *   `status.video_status` is `ready`.
 * The post URL is the post's `permalink_url`. A set holding a video is refused before anything is sent.
 * Photo ids and the video id are saved as progress the moment they exist, so a retry reuses them.
 */

export const VIDEO_POLL_MS = 5_000
export const VIDEO_POLL_LIMIT = 120
const FACEBOOK_MAX_SET = 10

export interface FacebookContext {
  graph: GraphClient
  deps: AdapterDeps
  /** Where people read Page posts (www.facebook.com; the simulator's pages in sandbox mode). */
  webUrl: string
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export function pageIdOf(request: {
  profile: { profileId: string }
  credentials: { extra?: Record<string, string> }
}) {
  return request.credentials.extra?.pageId ?? request.profile.profileId
}

async function prepareAll(ctx: FacebookContext, request: PublishRequest): Promise<PreparedMedia[]> {
  const prepared: PreparedMedia[] = []
  try {
    for (const url of request.mediaUrls) {
      const file = await ctx.deps.media.prepare(url, {
        network: 'facebook',
        signal: request.signal,
        targetId: request.targetId,
      })
      prepared.push(file)
      if (!file.publicUrl)
        throw new PublishFailure('invalid_content', `Herald could not host ${url} for Facebook to fetch`)
    }
    return prepared
  } catch (error) {
    await Promise.all(prepared.map((file) => file.dispose()))
    if (error instanceof MediaError)
      throw new PublishFailure('invalid_content', `Facebook media: ${error.message}`, { code: error.reason })
    throw error
  }
}

export async function publishToPage(ctx: FacebookContext, request: PublishRequest): Promise<PublishResult> {
  const pageId = pageIdOf(request)
  const token = request.credentials.accessToken
  const progress = { ...(request.progress ?? {}) }
  const save = async (entries: Record<string, string>) => {
    Object.assign(progress, entries)
    await request.saveProgress?.(entries)
  }
  const base = { token, signal: request.signal }
  if (request.mediaUrls.length > FACEBOOK_MAX_SET)
    throw new PublishFailure(
      'invalid_content',
      `Facebook takes at most ${FACEBOOK_MAX_SET} photos in one post`,
    )

  const media = await prepareAll(ctx, request)
  try {
    if (media.length > 1 && media.some((m) => m.kind === 'video'))
      throw new PublishFailure(
        'invalid_content',
        'Facebook does not mix video into a set of several; post the video on its own',
      )

    if (media.length === 0) {
      const created = await callGraph(ctx.graph, {
        ...base,
        method: 'POST',
        path: `/${pageId}/feed`,
        params: { message: request.content, ...linkOnly(request.content) },
        what: 'the Page post',
        mayHaveTakenEffect: true,
      })
      return finishPost(ctx, base, str(created.id))
    }

    const [first] = media
    if (media.length === 1 && first?.kind === 'video')
      return await publishVideo(ctx, request, first, progress, save)

    if (media.length === 1 && first) {
      const created = await callGraph(ctx.graph, {
        ...base,
        method: 'POST',
        path: `/${pageId}/photos`,
        params: {
          url: first.publicUrl,
          message: request.content || undefined,
          published: true,
          alt_text_custom: altTextOf(request, request.mediaUrls[0] ?? ''),
        },
        what: 'the photo post',
        mayHaveTakenEffect: true,
      })
      return finishPost(ctx, base, str(created.post_id) ?? `${pageId}_${String(created.id)}`)
    }

    const photoIds: string[] = []
    for (const [index, file] of media.entries()) {
      const saved = progress[`photo${index}`]
      if (saved) {
        photoIds.push(saved)
        continue
      }
      const photo = await callGraph(ctx.graph, {
        ...base,
        method: 'POST',
        path: `/${pageId}/photos`,
        params: {
          url: file.publicUrl,
          published: false,
          alt_text_custom: altTextOf(request, request.mediaUrls[index] ?? ''),
        },
        what: `photo ${index + 1} of ${media.length}`,
      })
      const id = str(photo.id)
      if (!id) throw new PublishFailure('transient', 'Facebook answered an unpublished photo without an id')
      photoIds.push(id)
      await save({ [`photo${index}`]: id })
    }
    const created = await callGraph(ctx.graph, {
      ...base,
      method: 'POST',
      path: `/${pageId}/feed`,
      params: {
        message: request.content || undefined,
        attached_media: JSON.stringify(photoIds.map((media_fbid) => ({ media_fbid }))),
        published: true,
      },
      what: 'the photo set post',
      mayHaveTakenEffect: true,
    })
    return finishPost(ctx, base, str(created.id))
  } finally {
    await Promise.all(media.map((file) => file.dispose()))
  }
}

/** A copy that is a bare link is posted as a link (Facebook renders its preview); otherwise message only. */
function linkOnly(content: string): { link?: string } {
  const trimmed = content.trim()
  return /^https?:\/\/\S+$/.test(trimmed) ? { link: trimmed } : {}
}

async function finishPost(
  ctx: FacebookContext,
  base: { token: string; signal: AbortSignal },
  postId: string | undefined,
): Promise<PublishResult> {
  if (!postId)
    throw new PublishFailure(
      'unknown_outcome',
      'Facebook accepted the post but its answer carried no post id',
    )
  return { remoteId: postId, url: await permalinkOf(ctx, base, postId) }
}

/** The post's `permalink_url`; the canonical `/{page}/posts/{id}` form when Facebook does not say. */
export async function permalinkOf(
  ctx: FacebookContext,
  base: { token: string; signal?: AbortSignal },
  postId: string,
): Promise<string> {
  try {
    const post = await callGraph(ctx.graph, {
      ...base,
      method: 'GET',
      path: `/${postId}`,
      params: { fields: 'permalink_url' },
      what: 'the post link',
    })
    const link = str(post.permalink_url)
    if (link) return absoluteLink(ctx, link)
  } catch (error) {
    if (!(error instanceof PublishFailure)) throw error
    ctx.deps.logger.warn(
      { network: 'facebook', kind: error.kind },
      'permalink lookup failed; using the canonical form',
    )
  }
  const [page, story] = postId.split('_')
  return story ? `${ctx.webUrl}/${page}/posts/${story}` : `${ctx.webUrl}/${postId}`
}

/** A permalink as Graph gives it, made whole: Graph answers some (a video's) relative to the site. */
export const absoluteLink = (ctx: FacebookContext, link: string) =>
  link.startsWith('/') ? `${ctx.webUrl}${link}` : link

async function publishVideo(
  ctx: FacebookContext,
  request: PublishRequest,
  file: PreparedMedia,
  progress: Record<string, string>,
  save: (entries: Record<string, string>) => Promise<void>,
): Promise<PublishResult> {
  const pageId = pageIdOf(request)
  const base = { token: request.credentials.accessToken, signal: request.signal }
  let videoId = progress.video
  if (!videoId) {
    const created = await callGraph(ctx.graph, {
      ...base,
      method: 'POST',
      path: `/${pageId}/videos`,
      params: { file_url: file.publicUrl, description: request.content || undefined, published: true },
      what: 'the video',
      mayHaveTakenEffect: true,
    })
    videoId = str(created.id)
    if (!videoId)
      throw new PublishFailure('unknown_outcome', 'Facebook accepted the video but its answer carried no id')
    await save({ video: videoId })
  }
  for (let poll = 0; poll < VIDEO_POLL_LIMIT; poll++) {
    const video = await callGraph(ctx.graph, {
      ...base,
      method: 'GET',
      path: `/${videoId}`,
      params: { fields: 'status,permalink_url,post_id' },
      what: 'the video status',
    })
    const status =
      (video.status as { video_status?: unknown; error?: { message?: unknown } } | undefined) ?? {}
    if (status.video_status === 'ready') {
      const link = str(video.permalink_url)
      return {
        remoteId: str(video.post_id) ?? videoId,
        url: absoluteLink(ctx, link ?? `/${pageId}/videos/${videoId}`),
      }
    }
    if (status.video_status === 'error')
      throw new PublishFailure(
        'invalid_content',
        `Facebook could not process the video${typeof status.error?.message === 'string' ? `: ${status.error.message}` : ''}`,
      )
    try {
      await ctx.deps.sleep(VIDEO_POLL_MS, request.signal)
    } catch {
      throw new PublishFailure('transient', 'Publishing to Facebook was cancelled while the video processed')
    }
  }
  throw new PublishFailure('transient', 'Facebook was still processing the video; it will be checked again', {
    code: 'processing',
  })
}
