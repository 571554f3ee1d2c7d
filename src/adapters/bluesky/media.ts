import { readFile } from 'node:fs/promises'
import { MediaError, type MediaPort, type PreparedMedia } from '../../core/media-port.js'
import { PublishFailure } from '../adapter.js'
import type { SessionInfo } from './session.js'
import type { Xrpc } from './xrpc.js'

/**
 * Bluesky media: up to four images (`app.bsky.embed.images`) or one video (`app.bsky.embed.video`),
 * each uploaded to the account's PDS with `com.atproto.repo.uploadBlob` and referenced by the post.
 */

export const MAX_IMAGES = 4
/**
 * The image blob limit. The lexicon allows 2,000,000 bytes since April 2026, but PDSes and AppViews
 * that have not caught up still refuse more than 1,000,000, so Herald holds to the older limit (the
 * media pipeline re-encodes Bluesky images under it).
 */
export const IMAGE_MAX_BYTES = 1_000_000
/** The video blob limit of the `app.bsky.embed.video` lexicon (100 MB since March 2025). */
export const VIDEO_MAX_BYTES = 100_000_000
/** Uploads can be large; they get more time than an ordinary call. */
const UPLOAD_TIMEOUT_MS = 300_000

export interface BlobRef {
  $type: 'blob'
  ref: { $link: string }
  mimeType: string
  size: number
}

interface AspectRatio {
  width: number
  height: number
}

export type Embed =
  | {
      $type: 'app.bsky.embed.images'
      images: Array<{ image: BlobRef; alt: string; aspectRatio?: AspectRatio }>
    }
  | { $type: 'app.bsky.embed.video'; video: BlobRef; alt?: string; aspectRatio?: AspectRatio }

/** Why this many attachments cannot go in one post, checked before anything is fetched. */
export function mediaCountProblem(count: number): string | undefined {
  if (count > MAX_IMAGES) {
    return `Bluesky posts take at most ${MAX_IMAGES} images or one video; ${count} media URLs were given`
  }
  return undefined
}

/** Why these prepared files cannot go in one post, or undefined when they can. */
export function mediaProblem(items: readonly PreparedMedia[]): string | undefined {
  const videos = items.filter((item) => item.kind === 'video')
  if (videos.length > 0 && items.length > 1) {
    return 'Bluesky posts take either up to 4 images or a single video, never a mix or several videos'
  }
  for (const item of items) {
    if (item.kind === 'video') {
      if (item.contentType !== 'video/mp4') {
        return `Bluesky videos must be MP4; ${item.name} is ${item.contentType}`
      }
      if (item.size > VIDEO_MAX_BYTES) {
        return `Bluesky videos must be at most ${VIDEO_MAX_BYTES} bytes; ${item.name} has ${item.size}`
      }
    } else {
      if (!item.contentType.startsWith('image/')) {
        return `Bluesky images must have an image type; ${item.name} is ${item.contentType}`
      }
      if (item.size > IMAGE_MAX_BYTES) {
        return `Bluesky images must be at most ${IMAGE_MAX_BYTES} bytes; ${item.name} has ${item.size}`
      }
    }
  }
  return undefined
}

function aspectRatioOf(item: PreparedMedia): AspectRatio | undefined {
  const { width, height } = item
  if (!width || !height || !Number.isInteger(width) || !Number.isInteger(height)) return undefined
  return { width, height }
}

/**
 * Prepares every URL through the media pipeline. When one fails, the ones already prepared are
 * disposed; a URL that cannot be used is `invalid_content`, a fetch that failed or timed out `transient`.
 */
export async function prepareAll(
  media: MediaPort,
  urls: readonly string[],
  signal: AbortSignal,
): Promise<PreparedMedia[]> {
  const settled = await Promise.allSettled(
    urls.map((url) => media.prepare(url, { network: 'bluesky', signal })),
  )
  const failed = settled.find((result) => result.status === 'rejected')
  if (!failed) return settled.map((result) => (result as PromiseFulfilledResult<PreparedMedia>).value)
  await disposeAll(settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])))
  const error = failed.reason
  if (error instanceof MediaError) {
    const retryable = error.reason === 'fetch_failed' || error.reason === 'timeout'
    throw new PublishFailure(retryable ? 'transient' : 'invalid_content', error.message, {
      code: error.reason,
    })
  }
  throw error
}

export async function disposeAll(items: readonly PreparedMedia[]): Promise<void> {
  await Promise.allSettled(items.map((item) => item.dispose()))
}

async function uploadBlob(
  xrpc: Xrpc,
  session: SessionInfo,
  item: PreparedMedia,
  signal: AbortSignal,
): Promise<BlobRef> {
  const bytes = await readFile(item.path)
  const { blob } = await xrpc<{ blob: BlobRef }>({
    service: session.pdsUrl,
    nsid: 'com.atproto.repo.uploadBlob',
    raw: { body: bytes, contentType: item.contentType },
    token: session.accessJwt,
    signal,
    timeoutMs: UPLOAD_TIMEOUT_MS,
  })
  return blob
}

/**
 * Uploads checked media and returns the embed that references it. Images go up one after another so a
 * refused one stops the rest; `alt` is required by the lexicon: each image's alt text (`alts`, in the
 * same order), empty where none was given.
 *
 * A video is uploaded to the PDS like an image. Bluesky's own app sends videos through the video
 * service (video.bsky.app: getServiceAuth, uploadVideo, polling getJobStatus), which transcodes them;
 * that service only exists on the public network, whereas uploadBlob works on every PDS, including
 * self-hosted ones and the test PDS. The PDS stores the MP4 as it is and the AppView plays it.
 */
export async function uploadEmbed(
  xrpc: Xrpc,
  session: SessionInfo,
  items: readonly PreparedMedia[],
  signal: AbortSignal,
  alts: readonly (string | undefined)[] = [],
): Promise<Embed> {
  const [first] = items
  if (first?.kind === 'video') {
    const video = await uploadBlob(xrpc, session, first, signal)
    const aspectRatio = aspectRatioOf(first)
    return { $type: 'app.bsky.embed.video', video, ...(aspectRatio ? { aspectRatio } : {}) }
  }
  const images: Array<{ image: BlobRef; alt: string; aspectRatio?: AspectRatio }> = []
  for (const [index, item] of items.entries()) {
    const image = await uploadBlob(xrpc, session, item, signal)
    const aspectRatio = aspectRatioOf(item)
    images.push({ image, alt: alts[index] ?? '', ...(aspectRatio ? { aspectRatio } : {}) })
  }
  return { $type: 'app.bsky.embed.images', images }
}
