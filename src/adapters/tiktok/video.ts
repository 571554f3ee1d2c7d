import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import { type ChunkPlan, chunkPlan, type TikTokCreator, tiktokPostInfo } from '../../core/tiktok-rules.js'
import { PublishFailure, type PublishRequest } from '../adapter.js'
import { tiktokCall } from './api.js'
import { type TikTokContext, trustedUploadUrl } from './settings.js'

/**
 * A video by FILE_UPLOAD (reference A.4.2, A.4.3, A.4.5): the init names the file's size and its cut into
 * chunks, answers a publish id and an upload URL (valid an hour), and the chunks go up in order, each a
 * `PUT` of exactly its byte range streamed from the converted file on disk. The init itself makes nothing
 * anyone sees (no byte has been sent), so its failure is an ordinary one; the PUT of the last chunk is the
 * call that makes the post, and its publish id is saved before the first byte leaves, so whatever becomes of
 * that call the job is asked about by its id, never made again.
 */

export interface VideoFile {
  path: string
  size: number
  contentType: string
}

/** What an init made: saved on the target as progress before any chunk is sent. */
export interface SavedJob {
  publishId: string
  uploadUrl: string
  videoSize: number
  chunkSize: number
  /** When the init answered: the upload URL stops working an hour later. */
  initAt: number
}

export const UPLOAD_URL_LIFETIME_MS = 60 * 60_000
/** Resumes from where TikTok says it stopped, within one attempt. */
const RESUMES = 3

/** The content type TikTok takes for a chunk: MP4, QuickTime or WebM. */
export function chunkContentType(contentType: string): string {
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  return type === 'video/quicktime' || type === 'video/webm' ? type : 'video/mp4'
}

/** Opens the job: the direct post's `video/init` (with the creator's choices) or the inbox's. */
export async function initVideo(
  ctx: TikTokContext,
  request: PublishRequest,
  file: VideoFile,
  creator: TikTokCreator | undefined,
): Promise<SavedJob & { plan: ChunkPlan }> {
  const plan = chunkPlan(file.size, ctx.settings.chunkBytes)
  const source_info = {
    source: 'FILE_UPLOAD',
    video_size: plan.videoSize,
    chunk_size: plan.chunkSize,
    total_chunk_count: plan.totalChunkCount,
  }
  const draft = request.tiktok?.sendAsDraft === true
  const { data } = await tiktokCall(ctx, {
    method: 'POST',
    path: draft ? '/v2/post/publish/inbox/video/init/' : '/v2/post/publish/video/init/',
    body: draft
      ? { source_info }
      : {
          post_info: {
            title: request.content,
            privacy_level: request.tiktok?.privacyLevel,
            ...tiktokPostInfo(request.tiktok, creator),
          },
          source_info,
        },
    token: request.credentials.accessToken,
    what: draft ? 'the inbox upload' : 'the video post',
    signal: request.signal,
  })
  const publishId = typeof data.publish_id === 'string' ? data.publish_id : ''
  const uploadUrl = typeof data.upload_url === 'string' ? data.upload_url : ''
  if (!publishId || !uploadUrl)
    throw new PublishFailure('transient', 'TikTok answered the video init without a publish id or upload URL')
  if (!trustedUploadUrl(ctx.settings, uploadUrl))
    throw new PublishFailure(
      'transient',
      'TikTok answered an upload URL on an unexpected host; nothing was sent',
    )
  return {
    publishId,
    uploadUrl,
    videoSize: plan.videoSize,
    chunkSize: plan.chunkSize,
    initAt: ctx.deps.now(),
    plan,
  }
}

type Answer = { status: number; range: string | null } | 'lost'

/**
 * Sends the chunks from byte `from` (0, or where TikTok said an earlier attempt stopped) to the end. A
 * chunk answered 5xx, cut off or never answered is followed by a status read: TikTok's `uploaded_bytes`
 * says where to go on from (or that every byte is in). When TikTok cannot be asked after the last chunk
 * left, the post may exist: an unknown outcome, for the lookup, which asks by the saved publish id.
 */
export async function uploadChunks(
  ctx: TikTokContext,
  job: SavedJob,
  file: VideoFile,
  from: number,
  io: { signal: AbortSignal; now(): number; uploaded(): Promise<number | undefined> },
): Promise<void> {
  const plan = chunkPlan(job.videoSize, job.chunkSize === job.videoSize ? undefined : job.chunkSize)
  let next = from
  for (let resumes = 0; next < job.videoSize; ) {
    const range = plan.ranges.find(([first]) => first === next)
    if (!range)
      throw new PublishFailure('transient', `TikTok holds ${next} bytes, which is not where a chunk starts`)
    const answer = await putChunk(ctx.deps.http, job.uploadUrl, file, range, io.signal)
    const last = range[1] === job.videoSize - 1
    if (answer !== 'lost' && (answer.status === 206 || answer.status === 201)) {
      next = range[1] + 1
      continue
    }
    if (answer !== 'lost' && answer.status === 416) {
      next = heldBytes(answer.range) ?? next
      if (++resumes > RESUMES) throw stalled(next, job.videoSize)
      continue
    }
    if (answer !== 'lost' && answer.status === 403)
      throw new PublishFailure(
        'transient',
        'The TikTok upload URL expired before the video was in; nothing was posted',
      )
    const throttled = answer !== 'lost' && answer.status === 429
    const refused = answer !== 'lost' && !throttled && answer.status !== 408 && answer.status >= 400
    if (answer !== 'lost' && refused && answer.status < 500)
      throw new PublishFailure('invalid_content', `TikTok refused a chunk of the video (${answer.status})`, {
        status: answer.status,
      })
    // Lost, a timeout, a 429 or a 5xx: only TikTok can say how much it holds.
    const held = await io.uploaded().catch(() => undefined)
    if (held === undefined) {
      if (last)
        throw new PublishFailure(
          'unknown_outcome',
          'TikTok did not answer the last chunk of the video, nor say whether it arrived',
        )
      throw new PublishFailure(
        'transient',
        'An upload to TikTok was interrupted part way; nothing was posted',
      )
    }
    if (held >= job.videoSize) return
    if (throttled)
      throw new PublishFailure(
        'rate_limited',
        `TikTok's rate limit stopped the upload at ${held} of ${job.videoSize} bytes`,
        { status: 429, resetAt: io.now() + 60_000 },
      )
    if (++resumes > RESUMES) throw stalled(held, job.videoSize)
    next = held
  }
}

/** The slowest chunk Herald waits for: a minute, plus the bytes at 256 KiB/s. */
const chunkTimeoutMs = (bytes: number) => 60_000 + Math.ceil((bytes / (256 * 1024)) * 1000)

async function putChunk(
  http: typeof fetch,
  url: string,
  file: VideoFile,
  [first, last]: [number, number],
  signal: AbortSignal,
): Promise<Answer> {
  const body = Readable.toWeb(
    createReadStream(file.path, { start: first, end: last }),
  ) as ReadableStream<Uint8Array>
  try {
    const response = await http(url, {
      method: 'PUT',
      headers: {
        'content-type': chunkContentType(file.contentType),
        'content-length': String(last - first + 1),
        'content-range': `bytes ${first}-${last}/${file.size}`,
      },
      body,
      duplex: 'half',
      // 'error' keeps Node's fetch from buffering the streamed body to replay it on a redirect.
      redirect: 'error',
      signal: AbortSignal.any([signal, AbortSignal.timeout(chunkTimeoutMs(last - first + 1))]),
    } as RequestInit)
    await response.body?.cancel()
    return { status: response.status, range: response.headers.get('content-range') }
  } catch (error) {
    if ((error as Error)?.name === 'LeaseExpiredError') throw error
    return 'lost'
  }
}

/** `Content-Range: bytes 0-N/T` of an answer as the bytes TikTok holds (N + 1). */
export function heldBytes(range: string | null): number | undefined {
  const match = range?.match(/bytes 0-(\d+)\/\d+/)
  return match ? Number(match[1]) + 1 : undefined
}

const stalled = (held: number, size: number) =>
  new PublishFailure(
    'transient',
    `The upload to TikTok stopped at ${held} of ${size} bytes; nothing was posted`,
  )

/** True while the upload URL of a saved job can still take bytes. */
export const uploadUrlLive = (job: Pick<SavedJob, 'initAt'>, now: number) =>
  now < job.initAt + UPLOAD_URL_LIFETIME_MS - 60_000
