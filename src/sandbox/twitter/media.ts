import type { FastifyInstance, FastifyRequest } from 'fastify'
import { KEPT_MEDIA_MAX_BYTES } from '../web/kept-media.js'
import { defineEndpoint } from './endpoint.js'
import { readQuery } from './posts.js'
import { ProblemReply, problems } from './problems.js'
import type { MediaKind, SandboxMedia, TwitterSandboxState } from './state.js'

/** `media_type` values of `InitializeMediaUploadRequest`. */
const mediaTypes = new Set([
  'video/mp4',
  'video/webm',
  'video/mp2t',
  'video/quicktime',
  'text/srt',
  'text/vtt',
  'image/jpeg',
  'image/gif',
  'image/bmp',
  'image/png',
  'image/webp',
  'image/pjpeg',
  'image/tiff',
  'model/gltf-binary',
  'model/vnd.usdz+zip',
])

/** Categories a post can carry, and what each accepts; dm_* and subtitles exist but a post cannot use them. */
const postCategories: Record<string, { kind: MediaKind; accepts: (type: string) => boolean }> = {
  tweet_image: { kind: 'image', accepts: (type) => type.startsWith('image/') && type !== 'image/gif' },
  tweet_gif: { kind: 'gif', accepts: (type) => type === 'image/gif' },
  tweet_video: { kind: 'video', accepts: (type) => type.startsWith('video/') },
  amplify_video: { kind: 'video', accepts: (type) => type.startsWith('video/') },
}
const allCategories = new Set([...Object.keys(postCategories), 'dm_gif', 'dm_image', 'dm_video', 'subtitles'])

const initializeProperties = new Set([
  'additional_owners',
  'media_category',
  'media_type',
  'shared',
  'total_bytes',
])
const UPLOAD_EXPIRES_SECS = 86_400

const mediaKeyPrefix: Record<MediaKind, string> = { image: '3', gif: '16', video: '7' }

function ownedMedia(state: TwitterSandboxState, id: string | undefined, ownerId: string): SandboxMedia {
  const media = id && /^[0-9]{1,19}$/.test(id) ? state.media.get(id) : undefined
  if (!media || media.ownerId !== ownerId) {
    throw new ProblemReply(400, problems.invalid(`The media id [${id ?? ''}] is not valid.`))
  }
  return media
}

/** An APPEND body: multipart (`media` bytes, `segment_index`) or JSON (`media` base64, `segment_index`). */
async function readSegment(request: FastifyRequest): Promise<{ index: number; bytes: Buffer }> {
  const contentType = String(request.headers['content-type'] ?? '')
  let media: unknown
  let index: unknown
  if (contentType.startsWith('multipart/form-data')) {
    const form = await new Response(request.body as Buffer<ArrayBuffer>, {
      headers: { 'content-type': contentType },
    })
      .formData()
      .catch(() => {
        throw new ProblemReply(400, problems.invalid('The multipart body could not be read.'))
      })
    const unknown = [...form.keys()].filter((key) => key !== 'media' && key !== 'segment_index')
    if (unknown.length > 0)
      throw new ProblemReply(400, problems.invalid(`Unknown field: ${unknown.join(', ')}.`))
    media = form.get('media')
    index = form.get('segment_index')
  } else if (typeof request.body === 'object' && request.body !== null) {
    const body = request.body as Record<string, unknown>
    media = typeof body.media === 'string' ? Buffer.from(body.media, 'base64') : undefined
    index = body.segment_index
  }
  const segment = Number(index)
  if (!Number.isInteger(segment) || segment < 0 || segment > 999) {
    throw new ProblemReply(400, problems.invalid('segment_index must be an integer from 0 to 999.'))
  }
  const bytes =
    media instanceof Blob
      ? Buffer.from(await media.arrayBuffer())
      : Buffer.isBuffer(media)
        ? media
        : undefined
  if (!bytes || bytes.length === 0) throw new ProblemReply(400, problems.invalid('media is required.'))
  return { index: segment, bytes }
}

function mediaData(state: TwitterSandboxState, media: SandboxMedia) {
  const data: Record<string, unknown> = {
    id: media.id,
    media_key: media.mediaKey,
    size: media.totalBytes,
    expires_after_secs: Math.max(
      0,
      Math.floor((media.createdAt + UPLOAD_EXPIRES_SECS * 1000 - state.now()) / 1000),
    ),
  }
  if (media.kind === 'image') data.image = { image_type: media.mediaType }
  else data.video = { video_type: media.kind === 'gif' ? 'image/gif' : media.mediaType }
  return data
}

/**
 * `CreateMediaMetadataRequest`: the media id (owned by the caller, finalized) and `metadata`, whose
 * `alt_text.text` holds at most 1,000 characters; other metadata kinds are accepted and not kept.
 */
function readMetadata(body: unknown): { id: string | undefined; altText: string | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ProblemReply(400, problems.invalid('The request body must be a JSON object.'))
  const input = body as Record<string, unknown>
  const unknown = Object.keys(input).filter((key) => key !== 'id' && key !== 'metadata')
  if (unknown.length > 0)
    throw new ProblemReply(400, problems.invalid(`$.${unknown[0]}: is not defined in the schema.`))
  if (typeof input.id !== 'string') throw new ProblemReply(400, problems.invalid('$.id: is missing.'))
  const metadata = input.metadata
  if (metadata === undefined) return { id: input.id, altText: undefined }
  const alt = (metadata as Record<string, unknown> | null)?.alt_text
  if (alt === undefined) return { id: input.id, altText: undefined }
  const text = (alt as Record<string, unknown> | null)?.text
  if (typeof text !== 'string')
    throw new ProblemReply(400, problems.invalid('$.metadata.alt_text.text: is missing.'))
  if ([...text].length > 1000)
    throw new ProblemReply(
      400,
      problems.invalid('$.metadata.alt_text.text: must be at most 1000 characters.'),
    )
  return { id: input.id, altText: text }
}

/** The v2 chunked upload: initialize, append, finalize, and the STATUS check, under `${prefix}/api`. */
export function registerMediaRoutes(app: FastifyInstance, state: TwitterSandboxState) {
  const scopes = ['media.write']

  defineEndpoint(
    app,
    state,
    {
      method: 'POST',
      url: '/2/media/upload/initialize',
      endpoint: 'initializeMediaUpload',
      auth: 'bearer',
      scopes,
      write: true,
    },
    ({ request, auth }) => {
      const body = request.body
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new ProblemReply(400, problems.invalid('The request body must be a JSON object.'))
      }
      const input = body as Record<string, unknown>
      const unknown = Object.keys(input).filter((key) => !initializeProperties.has(key))
      if (unknown.length > 0) {
        throw new ProblemReply(400, problems.invalid(`$.${unknown[0]}: is not defined in the schema.`))
      }
      const { media_type: mediaType, media_category: category, total_bytes: totalBytes } = input
      if (typeof mediaType !== 'string' || !mediaTypes.has(mediaType)) {
        throw new ProblemReply(
          400,
          problems.invalid('$.media_type: is missing or not a supported media type.'),
        )
      }
      if (typeof category !== 'string' || !allCategories.has(category)) {
        throw new ProblemReply(400, problems.invalid('$.media_category: is missing or not a known category.'))
      }
      const rule = postCategories[category]
      if (!rule?.accepts(mediaType)) {
        throw new ProblemReply(
          400,
          problems.invalid(`media_type ${mediaType} does not fit media_category ${category}.`),
        )
      }
      if (typeof totalBytes !== 'number' || !Number.isInteger(totalBytes) || totalBytes <= 0) {
        throw new ProblemReply(400, problems.invalid('$.total_bytes: must be a positive integer.'))
      }
      const max = state.maxBytes(rule.kind)
      if (totalBytes > max) throw new ProblemReply(400, problems.invalid(`File size exceeds ${max} bytes.`))
      const id = state.nextId()
      const media: SandboxMedia = {
        id,
        mediaKey: `${mediaKeyPrefix[rule.kind]}_${id}`,
        ownerId: auth!.account.id,
        mediaType,
        category,
        kind: rule.kind,
        totalBytes,
        segments: new Map(),
        // The bytes of a file small enough for the web pages to show are kept, as X keeps what it was sent.
        ...(totalBytes <= KEPT_MEDIA_MAX_BYTES ? { parts: new Map<number, Buffer>() } : {}),
        processed: rule.kind !== 'image',
        processingFails: false,
        createdAt: state.now(),
      }
      state.media.set(id, media)
      return {
        status: 200,
        body: { data: { id, media_key: media.mediaKey, expires_after_secs: UPLOAD_EXPIRES_SECS } },
      }
    },
  )

  defineEndpoint(
    app,
    state,
    {
      method: 'POST',
      url: '/2/media/upload/:id/append',
      endpoint: 'appendMediaUpload',
      auth: 'bearer',
      scopes,
      write: true,
    },
    async ({ request, auth }) => {
      const media = ownedMedia(state, (request.params as { id: string }).id, auth!.account.id)
      if (media.finalizedAt !== undefined) {
        throw new ProblemReply(400, problems.invalid('The upload is already finalized.'))
      }
      const segment = await readSegment(request)
      media.segments.set(segment.index, segment.bytes.length)
      media.parts?.set(segment.index, segment.bytes)
      if (state.receivedBytes(media) > media.totalBytes) {
        throw new ProblemReply(400, problems.invalid('Segments exceed the total_bytes given at initialize.'))
      }
      const expiresAt = Math.floor((media.createdAt + UPLOAD_EXPIRES_SECS * 1000) / 1000)
      return { status: 200, body: { data: { expires_at: expiresAt } } }
    },
  )

  defineEndpoint(
    app,
    state,
    {
      method: 'POST',
      url: '/2/media/upload/:id/finalize',
      endpoint: 'finalizeMediaUpload',
      auth: 'bearer',
      scopes,
      write: true,
    },
    ({ request, auth }) => {
      const media = ownedMedia(state, (request.params as { id: string }).id, auth!.account.id)
      if (media.finalizedAt !== undefined)
        throw new ProblemReply(400, problems.invalid('The upload is already finalized.'))
      const indexes = [...media.segments.keys()].sort((a, b) => a - b)
      if (indexes.some((index, position) => index !== position)) {
        throw new ProblemReply(
          400,
          problems.invalid('Segments are missing: segment_index must run from 0 without gaps.'),
        )
      }
      if (state.receivedBytes(media) !== media.totalBytes) {
        throw new ProblemReply(400, problems.invalid('Segments do not add up to provided total file size.'))
      }
      media.finalizedAt = state.now()
      if (media.parts)
        state.kept.keep(
          media.id,
          media.mediaType,
          indexes.map((index) => media.parts!.get(index)!),
        )
      delete media.parts
      if (media.processed) media.processingFails = state.faults.takeProcessingFailure()
      const data = mediaData(state, media)
      // Only video and GIF report processing; images are usable at once.
      if (media.processed) data.processing_info = state.processingInfo(media)
      return { status: 200, body: { data } }
    },
  )

  defineEndpoint(
    app,
    state,
    {
      method: 'POST',
      url: '/2/media/metadata',
      endpoint: 'createMediaMetadata',
      auth: 'bearer',
      scopes,
      write: true,
    },
    ({ request, auth }) => {
      const { id, altText } = readMetadata(request.body)
      const media = ownedMedia(state, id, auth!.account.id)
      if (media.finalizedAt === undefined)
        throw new ProblemReply(400, problems.invalid('The upload is not finalized.'))
      if (altText !== undefined) media.altText = altText
      const associated = altText !== undefined ? { alt_text: { text: altText } } : {}
      return { status: 200, body: { data: { id: media.id, associated_metadata: associated } } }
    },
  )

  defineEndpoint(
    app,
    state,
    { method: 'GET', url: '/2/media/upload', endpoint: 'getMediaUploadStatus', auth: 'bearer', scopes },
    ({ request, auth }) => {
      const query = readQuery(request.query, { media_id: 'any', command: new Set(['STATUS']) })
      const id = query.media_id?.[0]
      if (!id) {
        throw new ProblemReply(
          400,
          problems.invalidParameters([
            { parameters: { media_id: [] }, message: 'The `media_id` query parameter can not be empty' },
          ]),
        )
      }
      const media = ownedMedia(state, id, auth!.account.id)
      if (media.finalizedAt === undefined)
        throw new ProblemReply(400, problems.invalid('The upload is not finalized.'))
      const data = mediaData(state, media)
      data.processing_info = state.processingInfo(media)
      return { status: 200, body: { data } }
    },
  )
}
