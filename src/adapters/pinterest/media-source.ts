import { readFile } from 'node:fs/promises'
import { MediaError, type PreparedMedia } from '../../core/media-port.js'
import { PublishFailure, type PublishRequest } from '../adapter.js'
import type { PinterestContext } from './client.js'

/**
 * The `media_source` of a pin's image or carousel (reference B.5): Herald's hosted copy by URL
 * (`image_url`, `multiple_image_urls`) when Pinterest can fetch it, the bytes inline as base64
 * (`image_base64`, `multiple_image_base64`) when Herald's media host is not public. Inline takes JPEG and
 * PNG only [spec: ContentType], the two the media pipeline converts Pinterest's images to.
 */

type Source = Record<string, unknown>

const INLINE_TYPES = new Set(['image/jpeg', 'image/png'])

/** Each URL fetched and converted for Pinterest, disposed together by the caller. */
export async function prepareAll(
  ctx: PinterestContext,
  request: Pick<PublishRequest, 'mediaUrls' | 'signal' | 'targetId'>,
): Promise<PreparedMedia[]> {
  const prepared: PreparedMedia[] = []
  try {
    for (const url of request.mediaUrls)
      prepared.push(
        await ctx.deps.media.prepare(url, {
          network: 'pinterest',
          signal: request.signal,
          targetId: request.targetId,
        }),
      )
    return prepared
  } catch (error) {
    await disposeAll(prepared)
    throw asFailure(error)
  }
}

export const disposeAll = (files: readonly PreparedMedia[]) =>
  Promise.all(files.map((file) => file.dispose())).then(() => undefined)

/** A media problem as a refusal of the content (a URL that cannot be fetched or taken). */
export function asFailure(error: unknown): unknown {
  if (!(error instanceof MediaError)) return error
  return new PublishFailure(
    error.reason === 'fetch_failed' || error.reason === 'timeout' ? 'transient' : 'invalid_content',
    `The media could not be prepared for Pinterest: ${error.message}`,
    { code: `media_${error.reason}` },
  )
}

/** The bytes of a prepared image as Pinterest's inline fields. */
export async function inline(file: PreparedMedia): Promise<{ content_type: string; data: string }> {
  if (!INLINE_TYPES.has(file.contentType))
    throw new PublishFailure(
      'invalid_content',
      `Pinterest takes inline images as JPEG or PNG only; ${file.name} is ${file.contentType}`,
    )
  return { content_type: file.contentType, data: (await readFile(file.path)).toString('base64') }
}

/** One image, or a carousel of 2 to 5, by URL when every one is hosted for Pinterest, else inline. */
export async function imageSource(files: readonly PreparedMedia[]): Promise<Source> {
  const byUrl = files.every((file) => file.publicUrl)
  if (files.length === 1) {
    const [file] = files as [PreparedMedia]
    return byUrl
      ? { source_type: 'image_url', url: file.publicUrl }
      : { source_type: 'image_base64', ...(await inline(file)) }
  }
  checkSameSize(files)
  if (byUrl) return { source_type: 'multiple_image_urls', items: files.map((f) => ({ url: f.publicUrl })) }
  const items: Source[] = []
  for (const file of files) items.push(await inline(file))
  return { source_type: 'multiple_image_base64', items }
}

/** Pinterest refuses a carousel whose images differ in size [code: Postiz; 3p: Ayrshare]: said before sending. */
function checkSameSize(files: readonly PreparedMedia[]) {
  const sizes = new Set(files.map((f) => `${f.width ?? '?'}x${f.height ?? '?'}`))
  if (sizes.size > 1)
    throw new PublishFailure(
      'invalid_content',
      `Pinterest needs every image of a carousel the same size; these are ${[...sizes].join(', ')}`,
    )
}
