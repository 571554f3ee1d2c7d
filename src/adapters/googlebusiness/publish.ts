import { MediaError, type PreparedMedia } from '../../core/media-port.js'
import { networkRules } from '../../core/network-rules.js'
import { PublishFailure, type PublishRequest, type PublishResult } from '../adapter.js'
import { callGoogle, str } from './api.js'
import { localPostBody } from './local-post.js'
import { GOOGLE_BUSINESS_WEB_URL, type GoogleBusinessContext, locationPath } from './settings.js'

/**
 * Publishing a local post: the photo is prepared and hosted (Google fetches it by URL), then one call
 * creates the post; that call is the only one that can make anything public, and Google offers no
 * idempotency key for it, so a lost or failed answer is an unknown outcome, resolved by the lookup. The
 * post's name is saved the moment Google answers with it. A post Google answers as `REJECTED` (a
 * content-policy refusal) is shown to nobody: the target fails with that reason.
 */

export const REJECTED_MESSAGE =
  'Google rejected the post for a content-policy violation, so it is not shown on the profile; change the copy or the photo and publish again'

export async function publishLocalPost(
  ctx: GoogleBusinessContext,
  request: PublishRequest,
): Promise<PublishResult> {
  const parent = locationPath(request.credentials.extra, request.profile.profileId)
  const saved = request.progress?.localPost
  if (saved) {
    const post = await readLocalPost(ctx, request, saved)
    if (post && post.state !== 'REJECTED') return resultOf(ctx, post, parent)
  }
  if (request.mediaUrls.length > 1)
    throw new PublishFailure('invalid_content', networkRules.googlebusiness.noSets ?? 'One photo per post')
  const photo = request.mediaUrls[0] ? await preparePhoto(ctx, request, request.mediaUrls[0]) : undefined
  try {
    const created = await callGoogle(ctx, {
      method: 'POST',
      base: ctx.settings.postsUrl,
      path: `/v4/${parent}/localPosts`,
      body: localPostBody(request, photo?.publicUrl),
      token: request.credentials.accessToken,
      signal: request.signal,
      what: 'the new post',
      publishing: true,
    })
    const name = str(created.name)
    if (!name)
      throw new PublishFailure(
        'unknown_outcome',
        'Google answered the new post without naming it; the post may or may not have been published',
      )
    if (created.state === 'REJECTED')
      throw new PublishFailure('invalid_content', REJECTED_MESSAGE, { code: 'REJECTED' })
    await request.saveProgress?.({ localPost: name })
    return resultOf(ctx, created, parent)
  } finally {
    await photo?.dispose()
  }
}

/** A post by its name, or undefined when Google holds none by that name. */
export async function readLocalPost(
  ctx: GoogleBusinessContext,
  request: Pick<PublishRequest, 'credentials' | 'signal'>,
  name: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    return await callGoogle(ctx, {
      method: 'GET',
      base: ctx.settings.postsUrl,
      path: `/v4/${name}`,
      token: request.credentials.accessToken,
      signal: request.signal,
      what: 'the post Herald made',
    })
  } catch (error) {
    if (error instanceof PublishFailure && error.options.status === 404) return undefined
    throw error
  }
}

/** The post's name and where it is seen: its link in Google Search, else the location's page. */
export function resultOf(
  ctx: GoogleBusinessContext,
  post: Record<string, unknown>,
  parent: string,
): PublishResult {
  const remoteId = post.name as string
  const web = (ctx.settings.webUrl ?? GOOGLE_BUSINESS_WEB_URL).replace(/\/+$/, '')
  const locationId = parent.split('/').at(-1) ?? ''
  return { remoteId, url: str(post.searchUrl) ?? `${web}/locations/${locationId}` }
}

async function preparePhoto(
  ctx: GoogleBusinessContext,
  request: PublishRequest,
  url: string,
): Promise<PreparedMedia> {
  let file: PreparedMedia
  try {
    file = await ctx.deps.media.prepare(url, {
      network: 'googlebusiness',
      signal: request.signal,
      targetId: request.targetId,
    })
  } catch (error) {
    if (error instanceof MediaError)
      throw new PublishFailure('invalid_content', `Google Business Profile media: ${error.message}`, {
        code: error.reason,
      })
    throw error
  }
  if (file.kind === 'video' || !file.publicUrl) {
    await file.dispose()
    throw new PublishFailure(
      'invalid_content',
      file.kind === 'video'
        ? (networkRules.googlebusiness.noVideo ?? 'A photo only')
        : `Herald could not host ${url} for Google to fetch`,
    )
  }
  return file
}
