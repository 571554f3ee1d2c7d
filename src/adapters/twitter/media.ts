import { open } from 'node:fs/promises'
import type { PreparedMedia } from '../../core/media-port.js'
import { urlExtension } from '../../core/media-url.js'
import { PublishFailure } from '../adapter.js'
import { API_TIMEOUT_MS, sendToTwitter, type TwitterContext } from './client.js'
import { safeDetail, type TwitterAnswer, twitterMessages } from './errors.js'

export type TwitterMediaKind = 'image' | 'gif' | 'video'

export interface TwitterMediaType {
  /** `media_type` for POST /2/media/upload/initialize. */
  mediaType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp' | 'video/mp4'
  /** `media_category` for the same call. */
  category: 'tweet_image' | 'tweet_gif' | 'tweet_video'
  kind: TwitterMediaKind
}

const byExtension: Record<string, TwitterMediaType> = {
  png: { mediaType: 'image/png', category: 'tweet_image', kind: 'image' },
  gif: { mediaType: 'image/gif', category: 'tweet_gif', kind: 'gif' },
  webp: { mediaType: 'image/webp', category: 'tweet_image', kind: 'image' },
  mp4: { mediaType: 'video/mp4', category: 'tweet_video', kind: 'video' },
}

const jpeg: TwitterMediaType = { mediaType: 'image/jpeg', category: 'tweet_image', kind: 'image' }

/**
 * Spec §1 twitter rule 2: the media type comes from the URL's file extension. `.png`, `.gif`, `.webp`
 * and `.mp4` are recognised (case-insensitively, query and fragment ignored); any other extension, or
 * none, is JPEG.
 */
export function twitterMediaType(url: string): TwitterMediaType {
  return byExtension[urlExtension(url).slice(1)] ?? jpeg
}

export interface TwitterMediaSelection {
  selected: { url: string; type: TwitterMediaType }[]
  /** Items X cannot take in this post, with the reason; they are neither uploaded nor linked. */
  skipped: { url: string; reason: string }[]
}

/** X takes 4 images per post. */
export const MAX_TWITTER_IMAGES = 4

/**
 * Spec §8: up to 4 images, or 1 video or GIF. The first item decides: a video or GIF first is posted
 * alone; an image first takes up to 4 images in order, passing over any video or GIF. The rest is
 * skipped (preflight_post blocks such sets before they are queued, so this only guards the adapter) and
 * reported, not linked in the text: rule 4's URL fallback is for uploads that failed, not for items the
 * post could never carry.
 */
export function selectTwitterMedia(urls: readonly string[]): TwitterMediaSelection {
  const selection: TwitterMediaSelection = { selected: [], skipped: [] }
  const first = urls[0] === undefined ? undefined : twitterMediaType(urls[0])
  for (const url of urls) {
    const type = twitterMediaType(url)
    if (first && first.kind !== 'image') {
      if (selection.selected.length === 0) selection.selected.push({ url, type })
      else selection.skipped.push({ url, reason: `X takes one ${first.kind} per post and nothing beside it` })
    } else if (type.kind !== 'image') {
      selection.skipped.push({ url, reason: `X does not mix a ${type.kind} with images in one post` })
    } else if (selection.selected.length >= MAX_TWITTER_IMAGES) {
      selection.skipped.push({ url, reason: `X takes at most ${MAX_TWITTER_IMAGES} images per post` })
    } else {
      selection.selected.push({ url, type })
    }
  }
  return selection
}

/** Bytes per APPEND segment: X's samples use 1 MB; segment_index allows 1,000 of them (1 GB > 512 MB). */
export const APPEND_CHUNK_BYTES = 1024 * 1024
const APPEND_TIMEOUT_MS = 120_000
/** Longest total processing wait before the upload counts as failed. */
const MAX_PROCESSING_WAIT_MS = 10 * 60_000

/** One media step that failed; becomes the upload error recorded on the target (rule 4). */
export class TwitterMediaError extends Error {
  override name = 'TwitterMediaError'
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

interface ProcessingInfo {
  state: string
  checkAfterSecs?: number
  error?: string
}

function processingInfo(body: unknown): ProcessingInfo | undefined {
  const data = isRecord(body) && isRecord(body.data) ? body.data : undefined
  const info = data && isRecord(data.processing_info) ? data.processing_info : undefined
  if (!info || typeof info.state !== 'string') return undefined
  const error =
    isRecord(info.error) && typeof info.error.message === 'string' ? info.error.message : undefined
  return {
    state: info.state,
    checkAfterSecs: typeof info.check_after_secs === 'number' ? info.check_after_secs : undefined,
    error,
  }
}

/**
 * Uploads one prepared file with X's three steps, then waits for processing when FINALIZE asks for it.
 * Returns the media id and whether X reported processing (when it did not, the caller waits ~2 s as
 * spec §1 rule 3 says). Throws {@link TwitterMediaError} for any refusal; a {@link PublishFailure} only
 * when the caller's signal was aborted.
 */
export async function uploadTwitterMedia(
  ctx: TwitterContext,
  input: {
    file: PreparedMedia
    type: TwitterMediaType
    accessToken: string
    secrets: readonly (string | undefined)[]
    signal: AbortSignal
  },
): Promise<{ mediaId: string; processed: boolean }> {
  const { file, type, accessToken, signal } = input
  const step = uploadStep(signal, input.secrets)
  const initialized = await step('initialize', () =>
    sendToTwitter(ctx, {
      method: 'POST',
      path: '/2/media/upload/initialize',
      json: { media_type: type.mediaType, total_bytes: file.size, media_category: type.category },
      bearer: accessToken,
      signal,
      timeoutMs: API_TIMEOUT_MS,
      what: 'media initialize',
    }),
  )
  const mediaId = isRecord(initialized) && isRecord(initialized.data) ? initialized.data.id : undefined
  if (typeof mediaId !== 'string' || !/^[0-9]{1,19}$/.test(mediaId)) {
    throw new TwitterMediaError('initialize answered without a media id')
  }
  const upload: Upload = { ctx, step, mediaId, accessToken, signal }
  await appendSegments(upload, file)
  const finalized = await step('finalize', () =>
    sendToTwitter(ctx, {
      method: 'POST',
      path: `/2/media/upload/${mediaId}/finalize`,
      bearer: accessToken,
      signal,
      timeoutMs: API_TIMEOUT_MS,
      what: 'media finalize',
    }),
  )
  const info = processingInfo(finalized)
  if (!info) return { mediaId, processed: false }
  await awaitProcessing(upload, info)
  return { mediaId, processed: true }
}

type Step = (what: string, send: () => Promise<TwitterAnswer>) => Promise<unknown>

/** One upload under way: its media id, and the step that sends each of its requests. */
interface Upload {
  ctx: TwitterContext
  step: Step
  mediaId: string
  accessToken: string
  signal: AbortSignal
}

/** One request of the upload: its answer's body, or a {@link TwitterMediaError} naming the step that failed. */
function uploadStep(signal: AbortSignal, secrets: readonly (string | undefined)[]): Step {
  return async (what, send) => {
    let answer: TwitterAnswer
    try {
      answer = await send()
    } catch (error) {
      if (signal.aborted) throw cancelled()
      throw new TwitterMediaError(`${what}: ${(error as Error).message}`)
    }
    if (answer.status < 200 || answer.status >= 300) {
      const detail = safeDetail(answer.body, secrets)
      throw new TwitterMediaError(`${what} answered ${answer.status}${detail ? `: ${detail}` : ''}`)
    }
    return answer.body
  }
}

/** Segments are read one at a time from the prepared file: a 512 MB video never sits in memory. */
async function appendSegments({ ctx, step, mediaId, accessToken, signal }: Upload, file: PreparedMedia) {
  const handle = await open(file.path, 'r')
  try {
    for (let index = 0, position = 0; position < file.size; index++) {
      const length = Math.min(APPEND_CHUNK_BYTES, file.size - position)
      const chunk = Buffer.alloc(length)
      const { bytesRead } = await handle.read(chunk, 0, length, position)
      if (bytesRead === 0) throw new TwitterMediaError(`the prepared file ended early at byte ${position}`)
      const form = new FormData()
      form.append('media', new Blob([chunk.subarray(0, bytesRead)]), file.name)
      form.append('segment_index', String(index))
      await step(`append of segment ${index}`, () =>
        sendToTwitter(ctx, {
          method: 'POST',
          path: `/2/media/upload/${mediaId}/append`,
          multipart: form,
          bearer: accessToken,
          signal,
          timeoutMs: APPEND_TIMEOUT_MS,
          what: 'media append',
        }),
      )
      position += bytesRead
    }
  } finally {
    await handle.close()
  }
}

/** Video and GIF are processed asynchronously: poll STATUS as X asks (check_after_secs) until done. */
async function awaitProcessing({ ctx, step, mediaId, accessToken, signal }: Upload, first: ProcessingInfo) {
  let info: ProcessingInfo | undefined = first
  let waited = 0
  while (info.state !== 'succeeded') {
    if (info.state === 'failed') {
      throw new TwitterMediaError(`processing failed${info.error ? `: ${info.error}` : ''}`)
    }
    const waitMs = Math.max(1, info.checkAfterSecs ?? 1) * 1000
    if (waited + waitMs > MAX_PROCESSING_WAIT_MS) {
      throw new TwitterMediaError(`processing did not finish within ${MAX_PROCESSING_WAIT_MS / 1000} s`)
    }
    try {
      await ctx.deps.sleep(waitMs, signal)
    } catch {
      throw cancelled()
    }
    waited += waitMs
    const status = await step('status', () =>
      sendToTwitter(ctx, {
        method: 'GET',
        path: '/2/media/upload',
        query: { command: 'STATUS', media_id: mediaId },
        bearer: accessToken,
        signal,
        timeoutMs: API_TIMEOUT_MS,
        what: 'media status',
      }),
    )
    info = processingInfo(status)
    if (!info) break
  }
}

function cancelled() {
  return new PublishFailure('transient', 'Publishing to X was cancelled before the post was sent')
}

/**
 * Gives an uploaded image or GIF its alt text (`POST /2/media/metadata`, at most 1,000 characters). It makes
 * nothing public, so it is safe to send again. Throws {@link TwitterMediaError} when X refuses it.
 */
export async function describeTwitterMedia(
  ctx: TwitterContext,
  input: {
    mediaId: string
    altText: string
    accessToken: string
    secrets: readonly (string | undefined)[]
    signal: AbortSignal
  },
): Promise<void> {
  const step = uploadStep(input.signal, input.secrets)
  await step('alt text', () =>
    sendToTwitter(ctx, {
      method: 'POST',
      path: '/2/media/metadata',
      json: { id: input.mediaId, metadata: { alt_text: { text: input.altText } } },
      bearer: input.accessToken,
      signal: input.signal,
      timeoutMs: API_TIMEOUT_MS,
      what: 'media alt text',
    }),
  )
}

/** Formats the upload error recorded on the target: spec §7's message, then what failed per URL. */
export function formatUploadError(
  failed: { url: string; detail: string }[],
  skipped: { url: string; reason: string }[],
  unlabelled: { url: string; detail: string }[] = [],
): string | undefined {
  const parts: string[] = []
  if (failed.length > 0) {
    parts.push(
      `${twitterMessages.mediaUploadFailed}: ${failed.map((item) => `${item.url} (${item.detail})`).join('; ')}`,
    )
  }
  if (skipped.length > 0) {
    parts.push(`Not attached: ${skipped.map((item) => `${item.url} (${item.reason})`).join('; ')}`)
  }
  if (unlabelled.length > 0) {
    parts.push(
      `Attached without alt text: ${unlabelled.map((item) => `${item.url} (${item.detail})`).join('; ')}`,
    )
  }
  return parts.length > 0 ? parts.join('. ') : undefined
}
