import type { FastifyInstance } from 'fastify'
import type { z } from 'zod'
import type { pinCreateBody } from './contract.js'
import { authorize, CODES, pinJson, pinterestError, publicBase, withinAllowance } from './http.js'
import { type PinImage, type PinterestSandboxState, type SandboxPin, sizeOf } from './state.js'

/**
 * `POST /v5/pins` as Pinterest answers it (reference B.5, B.13): the board must be the token's account's;
 * an app with Trial access is refused on the production host (code 29); the image is downloaded from
 * `image_url` (or decoded from base64, its bytes matching the content type given); a carousel's 2 to 5
 * images must share one size; a video pin names an upload that Pinterest has processed, with a cover (a URL,
 * inline bytes, or a key-frame time). The pin exists once the handler returns, whatever answer a fault
 * gives afterwards.
 */

type PinCreate = z.infer<typeof pinCreateBody>
type MediaSource = PinCreate['media_source']
type Taken = Pick<SandboxPin, 'mediaType' | 'sourceType' | 'images' | 'mediaId' | 'cover'>

const PIN_SCOPES = ['boards:read', 'boards:write', 'pins:read', 'pins:write'] as const
const TRIAL_MESSAGE =
  'Apps with Trial access may not create Pins in production https://api.pinterest.com - use API Sandbox https://api-sandbox.pinterest.com instead.'
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

class Refusal extends Error {}

export function registerPinRoutes(app: FastifyInstance, state: PinterestSandboxState): void {
  app.post('/v5/pins', async (request, reply) => {
    const grant = authorize(state, request, reply, PIN_SCOPES)
    if (!grant || !withinAllowance(state, reply, grant, 'org_write')) return reply
    if (state.settings.trial) return pinterestError(reply, 403, CODES.trialAccess, TRIAL_MESSAGE)
    const body = request.body as PinCreate
    const board = state.boards.get(body.board_id)
    if (!board || board.accountId !== grant.accountId)
      return pinterestError(reply, 404, 404, 'Board not found.')
    let taken: Taken
    try {
      taken = await takeMedia(state, grant.accountId, body.media_source)
    } catch (error) {
      if (error instanceof Refusal) return pinterestError(reply, 400, CODES.invalid, error.message)
      throw error
    }
    const pin: SandboxPin = {
      id: state.nextId(),
      boardId: board.id,
      accountId: grant.accountId,
      title: body.title ?? null,
      description: body.description ?? null,
      link: body.link ?? null,
      altText: body.alt_text ?? null,
      ...taken,
      createdAt: state.now(),
    }
    state.pins.set(pin.id, pin)
    return reply.code(201).send(pinJson(state, publicBase(state, request), pin))
  })
}

async function takeMedia(
  state: PinterestSandboxState,
  accountId: string,
  source: MediaSource,
): Promise<Taken> {
  switch (source.source_type) {
    case 'image_url':
      return {
        mediaType: 'image',
        sourceType: source.source_type,
        images: [await fetched(state, source.url)],
      }
    case 'image_base64':
      return { mediaType: 'image', sourceType: source.source_type, images: [decoded(state, source)] }
    case 'multiple_image_urls':
    case 'multiple_image_base64': {
      const images: PinImage[] = []
      for (const item of source.items)
        images.push('url' in item ? await fetched(state, item.url) : decoded(state, item))
      if (new Set(images.map((i) => `${i.width}x${i.height}`)).size > 1)
        throw new Refusal('All images of a carousel Pin must have the same dimensions.')
      return { mediaType: 'multiple_images', sourceType: source.source_type, images }
    }
    case 'video_id':
      return {
        mediaType: 'video',
        sourceType: source.source_type,
        images: [],
        ...(await video(state, accountId, source)),
      }
  }
}

async function fetched(state: PinterestSandboxState, url: string): Promise<PinImage> {
  const got = await state.download(url)
  if (!got.ok) throw new Refusal(`Sorry, we could not fetch the image at ${url} (Unable to reach the URL).`)
  if (!got.contentType || !IMAGE_TYPES.has(got.contentType))
    throw new Refusal(`The file at ${url} is not an image Pinterest takes.`)
  return { ...(got.key ? { key: got.key } : {}), width: got.width, height: got.height }
}

function decoded(state: PinterestSandboxState, item: { content_type: string; data: string }): PinImage {
  const bytes = Buffer.from(item.data, 'base64')
  const sniffed = bytes[0] === 0xff && bytes[1] === 0xd8 ? 'image/jpeg' : bytes[0] === 0x89 ? 'image/png' : ''
  if (sniffed !== item.content_type)
    throw new Refusal(`The image data is not ${item.content_type} (content_type must match the bytes).`)
  return { key: state.keep(bytes), ...sizeOf(bytes) }
}

async function video(
  state: PinterestSandboxState,
  accountId: string,
  source: Extract<MediaSource, { source_type: 'video_id' }>,
): Promise<Pick<SandboxPin, 'mediaId' | 'cover'>> {
  const media = state.media.get(source.media_id)
  if (!media || media.accountId !== accountId) throw new Refusal(`Media ${source.media_id} not found.`)
  if (media.status !== 'succeeded')
    throw new Refusal(`Media ${source.media_id} is not ready to be used in a Pin (status ${media.status}).`)
  if (source.cover_image_url)
    return { mediaId: media.id, cover: await fetched(state, source.cover_image_url) }
  if (source.cover_image_data && source.cover_image_content_type)
    return {
      mediaId: media.id,
      cover: decoded(state, { content_type: source.cover_image_content_type, data: source.cover_image_data }),
    }
  if (source.cover_image_key_frame_time !== undefined)
    return { mediaId: media.id, cover: { keyFrameTime: source.cover_image_key_frame_time } }
  throw new Refusal(
    'A video Pin needs a cover: cover_image_url, or cover_image_content_type with cover_image_data, or cover_image_key_frame_time.',
  )
}
