import { openAsBlob } from 'node:fs'
import type { PreparedMedia } from '../../core/media-port.js'
import { PublishFailure, type PublishRequest } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'
import { type PinterestBody, type PinterestContext, pinterestCall, str } from './client.js'
import { classifyPinterestError } from './errors.js'
import { asFailure, inline } from './media-source.js'

/**
 * A video pin's media (reference B.6): `POST /media` registers an upload and answers where to send the
 * file (`upload_url`) with the form fields to send first (`upload_parameters`); the file is POSTed there,
 * then `GET /media/{id}` is polled until `succeeded` (or `failed`), and the pin names the media id with a
 * cover image.
 *
 * Exactly once: the media id is saved as progress the moment Pinterest returns it, and `uploaded` once the
 * upload was answered. A retry with a saved media id asks Pinterest where it stands and never uploads a
 * file Pinterest has: an upload it processes (or processed) is waited for as it is. Only a media id still
 * `registered` after a short wait, with no upload answered, is given up for a new registration (its file
 * never arrived; nobody sees a registered upload).
 */

export const POLL_MS = 2_000
/** About ten minutes of processing; then the attempt stops and a retry resumes the same media id. */
export const POLL_LIMIT = 300
/** Polls a saved, never-uploaded registration gets before it is taken as abandoned. */
const REGISTERED_POLLS = 3

type Request = Pick<
  PublishRequest,
  'credentials' | 'signal' | 'progress' | 'saveProgress' | 'pinterest' | 'targetId'
>

const status = async (ctx: PinterestContext, request: Request, mediaId: string) => {
  const body = await pinterestCall(ctx, {
    method: 'GET',
    path: `/media/${mediaId}`,
    token: request.credentials.accessToken,
    what: 'the video upload',
    signal: request.signal,
  })
  return str(body.status) ?? 'registered'
}

/** The `media_source` of a video pin: its uploaded media id and its cover. */
export async function videoSource(
  ctx: PinterestContext,
  request: Request,
  file: PreparedMedia,
): Promise<Record<string, unknown>> {
  const mediaId = await uploadedMedia(ctx, request, file)
  await waitUntilProcessed(ctx, request, mediaId)
  return { source_type: 'video_id', media_id: mediaId, ...(await cover(ctx, request, file)) }
}

/** The media id the pin names: the saved one while Pinterest has its file, else a new upload. */
async function uploadedMedia(ctx: PinterestContext, request: Request, file: PreparedMedia): Promise<string> {
  const saved = request.progress?.mediaId
  if (saved && (await stillUsable(ctx, request, saved))) return saved
  const registration = await pinterestCall(ctx, {
    method: 'POST',
    path: '/media',
    json: { media_type: 'video' },
    token: request.credentials.accessToken,
    what: 'the video upload registration',
    signal: request.signal,
  })
  const mediaId = str(registration.media_id)
  const uploadUrl = str(registration.upload_url)
  if (!mediaId || !uploadUrl)
    throw new PublishFailure('transient', 'Pinterest registered the video upload without an id or address')
  await request.saveProgress?.({ mediaId })
  await upload(ctx, request, { uploadUrl, parameters: registration.upload_parameters, file })
  await request.saveProgress?.({ mediaId, uploaded: '1' })
  return mediaId
}

/**
 * Whether a saved media id is the upload to use: Pinterest processes or processed its file. One it gave up
 * on (`failed`) is uploaded afresh; one still `registered` is waited for when its upload was answered (the
 * processing starts), and given up after a few polls when it was not (the file never arrived).
 */
async function stillUsable(ctx: PinterestContext, request: Request, mediaId: string): Promise<boolean> {
  for (let poll = 0; ; poll++) {
    const now = await status(ctx, request, mediaId)
    if (now === 'failed') return false
    if (now !== 'registered' || request.progress?.uploaded) return true
    if (poll + 1 >= REGISTERED_POLLS) return false
    await ctx.deps.sleep(POLL_MS, request.signal)
  }
}

/**
 * The file POSTed to `upload_url` as a form: every upload parameter, in Pinterest's order, then the file
 * last (S3 reads the policy fields before the file). S3 answers 204.
 */
async function upload(
  ctx: PinterestContext,
  request: Request,
  target: { uploadUrl: string; parameters: unknown; file: PreparedMedia },
) {
  const form = new FormData()
  const parameters = (target.parameters ?? {}) as PinterestBody
  for (const [name, value] of Object.entries(parameters))
    if (typeof value === 'string') form.append(name, value)
  form.append('file', await openAsBlob(target.file.path, { type: target.file.contentType }), target.file.name)
  let response: Response
  try {
    response = await ctx.deps.http(target.uploadUrl, {
      method: 'POST',
      body: form,
      signal: AbortSignal.any([AbortSignal.timeout(30 * 60_000), request.signal]),
      redirect: 'error',
    })
  } catch (error) {
    if (request.signal.aborted) throw error
    const code = thrownErrorCode(error)
    // The upload makes nothing anyone sees; a retry asks Pinterest whether the file arrived first.
    throw new PublishFailure(
      'transient',
      `The video upload to Pinterest ${code && NOT_SENT_CODES.has(code) ? 'could not start' : 'went unanswered'}`,
      code ? { code } : {},
    )
  }
  await response.arrayBuffer().catch(() => undefined)
  if (response.ok) return
  throw classifyPinterestError({
    status: response.status,
    body: {},
    headers: response.headers,
    what: 'the video upload',
    sentIsCreate: false,
    now: ctx.deps.now(),
    secrets: [],
  })
}

/** Polls the media until Pinterest has processed it; `failed` is a refusal of the video. */
async function waitUntilProcessed(ctx: PinterestContext, request: Request, mediaId: string) {
  for (let poll = 0; poll < POLL_LIMIT; poll++) {
    const now = await status(ctx, request, mediaId)
    if (now === 'succeeded') return
    if (now === 'failed')
      throw new PublishFailure('invalid_content', 'Pinterest could not process the video', {
        code: 'media_failed',
      })
    await ctx.deps.sleep(POLL_MS, request.signal)
  }
  throw new PublishFailure(
    'transient',
    'Pinterest is still processing the video; the next attempt waits for the same upload',
  )
}

/**
 * The image shown before the video plays: the cover given (`pinterest.coverImageUrl`, by URL or inline),
 * else the video's first frame (made with ffmpeg, inline), else Pinterest's own frame at 0 seconds where
 * this Herald cannot make one.
 */
async function cover(ctx: PinterestContext, request: Request, video: PreparedMedia) {
  const given = request.pinterest?.coverImageUrl
  if (given) {
    let image: PreparedMedia
    try {
      image = await ctx.deps.media.prepare(given, {
        network: 'pinterest',
        signal: request.signal,
        targetId: request.targetId,
      })
    } catch (error) {
      throw asFailure(error)
    }
    try {
      if (image.kind === 'video')
        throw new PublishFailure(
          'invalid_content',
          "A pin's cover must be an image; coverImageUrl is a video",
        )
      if (image.publicUrl) return { cover_image_url: image.publicUrl }
      const { content_type, data } = await inline(image)
      return { cover_image_content_type: content_type, cover_image_data: data }
    } finally {
      await image.dispose()
    }
  }
  const frame = await firstFrame(ctx, request, video)
  if (!frame) return { cover_image_key_frame_time: 0 }
  try {
    const { content_type, data } = await inline(frame)
    return { cover_image_content_type: content_type, cover_image_data: data }
  } finally {
    await frame.dispose()
  }
}

async function firstFrame(ctx: PinterestContext, request: Request, video: PreparedMedia) {
  if (!ctx.deps.media.firstFrame) return undefined
  try {
    return await ctx.deps.media.firstFrame(video, { signal: request.signal })
  } catch (error) {
    if (request.signal.aborted) throw error
    ctx.deps.logger.warn(
      { network: 'pinterest', reason: (error as Error).message },
      "the video's first frame could not be made; Pinterest picks the frame at 0 s",
    )
    return undefined
  }
}
