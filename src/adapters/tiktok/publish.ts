import { MediaError, type PreparedMedia } from '../../core/media-port.js'
import { looksLikeVideoUrl } from '../../core/media-url.js'
import {
  TIKTOK_MAX_PHOTOS,
  type TikTokCreator,
  tiktokFindings,
  tiktokPhotoTitle,
  tiktokPostInfo,
} from '../../core/tiktok-rules.js'
import { PublishFailure, type PublishRequest, type PublishResult } from '../adapter.js'
import { tiktokCall } from './api.js'
import { readCreator } from './creator.js'
import type { TikTokContext } from './settings.js'
import { fetchStatus, type JobStatus, pollToEnd } from './status.js'
import { initVideo, type SavedJob, uploadChunks, uploadUrlLive, type VideoFile } from './video.js'

/**
 * Publishing to a TikTok creator (reference A.4):
 *
 * 1. A job an earlier attempt saved is asked first (`status/fetch` by its publish id): finished is the
 *    post, an upload that stopped part way goes on from where TikTok says it is, a job still processing is
 *    polled, a failed one leaves the way open to a new init. Only a job that can no longer make a post is
 *    ever followed by a second init.
 * 2. Otherwise the creator info is read (before every post) and honoured: a privacy level the creator
 *    may choose, switches they turned off kept off, a video no longer than they may post.
 * 3. A video goes up by FILE_UPLOAD in chunks; photos (one, or a carousel of up to 35) by PULL_FROM_URL
 *    from Herald's hosted copies, which TikTok downloads from the verified domain of PUBLIC_BASE_URL.
 * 4. The job is polled to `PUBLISH_COMPLETE` (or `SEND_TO_USER_INBOX` for a draft) or `FAILED`.
 */
export async function publishToTikTok(ctx: TikTokContext, request: PublishRequest): Promise<PublishResult> {
  const kind = mediaKind(request.mediaUrls)
  const resumed = request.progress?.publishId ? await resume(ctx, request, kind) : undefined
  if (resumed) return resumed
  const draft = request.tiktok?.sendAsDraft === true
  // A draft is the creator's to finish in the app: there is nothing of theirs to choose yet.
  const creator = draft ? undefined : await readCreator(ctx, request.credentials, request.signal)
  if (creator) honour(request, creator, { photos: kind === 'photo' ? request.mediaUrls.length : 0 })
  return kind === 'video' ? postVideo(ctx, request, creator) : postPhotos(ctx, request, creator)
}

/** One video, or 1 to 35 photos: TikTok takes nothing else (reference A.6). */
function mediaKind(mediaUrls: string[]): 'video' | 'photo' {
  if (mediaUrls.length === 0)
    throw new PublishFailure('invalid_content', 'A TikTok post needs a video or photos')
  const videos = mediaUrls.filter(looksLikeVideoUrl).length
  if (videos > 0 && mediaUrls.length > 1)
    throw new PublishFailure('invalid_content', 'A TikTok post is one video, or photos only, never both')
  if (mediaUrls.length > TIKTOK_MAX_PHOTOS)
    throw new PublishFailure(
      'invalid_content',
      `A TikTok photo post takes at most ${TIKTOK_MAX_PHOTOS} photos`,
    )
  return videos === 1 ? 'video' : 'photo'
}

/** The creator's options applied to this post; a post they do not allow is refused before any upload. */
function honour(
  request: PublishRequest,
  creator: TikTokCreator,
  media: { photos: number; videoSeconds?: number },
): void {
  const { blockers } = tiktokFindings(
    `@${creator.username || request.profile.username}`,
    request.tiktok,
    creator,
    media,
  )
  if (blockers.length > 0)
    throw new PublishFailure('invalid_content', blockers.join('; '), { code: 'creator_options' })
}

async function prepare(ctx: TikTokContext, request: PublishRequest, url: string): Promise<PreparedMedia> {
  try {
    return await ctx.deps.media.prepare(url, {
      network: 'tiktok',
      signal: request.signal,
      targetId: request.targetId,
    })
  } catch (error) {
    if (!(error instanceof MediaError)) throw error
    if (error.reason === 'fetch_failed' || error.reason === 'timeout')
      throw new PublishFailure('transient', error.message, { code: error.reason })
    throw new PublishFailure('invalid_content', error.message, { code: error.reason })
  }
}

const isPublic = (request: PublishRequest) =>
  request.tiktok?.sendAsDraft !== true && request.tiktok?.privacyLevel === 'PUBLIC_TO_EVERYONE'

async function postVideo(
  ctx: TikTokContext,
  request: PublishRequest,
  creator: TikTokCreator | undefined,
): Promise<PublishResult> {
  const media = await prepare(ctx, request, request.mediaUrls[0] as string)
  try {
    if (media.kind !== 'video')
      throw new PublishFailure('invalid_content', 'The TikTok post’s file is not a video')
    if (creator && media.durationMs !== undefined)
      honour(request, creator, { photos: 0, videoSeconds: media.durationMs / 1000 })
    const file: VideoFile = { path: media.path, size: media.size, contentType: media.contentType }
    const job = await initVideo(ctx, request, file, creator)
    // Saved before the first byte leaves: from here on the job is only ever asked about, never made again.
    await request.saveProgress?.(savedOf(job, 'video'))
    return await afterInit(async () => {
      await uploadChunks(ctx, job, file, 0, uploadIo(ctx, request, job.publishId))
      return pollToEnd(ctx, pollInput(request, job.publishId, 'video'))
    })
  } finally {
    await media.dispose()
  }
}

async function postPhotos(
  ctx: TikTokContext,
  request: PublishRequest,
  creator: TikTokCreator | undefined,
): Promise<PublishResult> {
  const urls: string[] = []
  for (const url of request.mediaUrls) {
    const media = await prepare(ctx, request, url)
    await media.dispose()
    // A video behind an address without a video extension: the probe knows better than the URL.
    if (media.kind === 'video' && request.mediaUrls.length === 1) return postVideo(ctx, request, creator)
    if (media.kind === 'video')
      throw new PublishFailure('invalid_content', 'A TikTok photo post takes photos only')
    if (!media.publicUrl)
      throw new PublishFailure('transient', 'Herald has no address TikTok could fetch the photo from')
    urls.push(media.publicUrl)
  }
  const draft = request.tiktok?.sendAsDraft === true
  const title = tiktokPhotoTitle(request.content)
  const { data } = await tiktokCall(ctx, {
    method: 'POST',
    path: '/v2/post/publish/content/init/',
    body: {
      media_type: 'PHOTO',
      post_mode: draft ? 'MEDIA_UPLOAD' : 'DIRECT_POST',
      post_info: draft
        ? { title, description: request.content }
        : {
            title,
            description: request.content,
            privacy_level: request.tiktok?.privacyLevel,
            disable_comment: tiktokPostInfo(request.tiktok, creator).disable_comment,
            brand_content_toggle: request.tiktok?.brandedContent === true,
            brand_organic_toggle: request.tiktok?.yourBrand === true,
          },
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: urls },
    },
    token: request.credentials.accessToken,
    what: draft ? 'the photo draft' : 'the photo post',
    signal: request.signal,
    // TikTok starts fetching and posting the photos as soon as it takes this call.
    effect: true,
  })
  const publishId = typeof data.publish_id === 'string' ? data.publish_id : ''
  if (!publishId)
    throw new PublishFailure('unknown_outcome', 'TikTok took the photo post without naming its publish id')
  await request.saveProgress?.({ publishId, kind: 'photo', initAt: String(ctx.deps.now()) })
  return afterInit(() => pollToEnd(ctx, pollInput(request, publishId, 'photo')))
}

/**
 * After the init, the job exists under its saved id: a refused token is no reason for the worker to start
 * over with fresh tokens (it would init again), so it is left to the lookup, which asks by the id.
 */
async function afterInit<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof PublishFailure && error.kind === 'auth_expired')
      throw new PublishFailure(
        'unknown_outcome',
        `${error.message}; Herald asks TikTok for the post with fresh tokens`,
      )
    throw error
  }
}

const savedOf = (job: SavedJob, kind: 'video' | 'photo'): Record<string, string> => ({
  publishId: job.publishId,
  kind,
  uploadUrl: job.uploadUrl,
  videoSize: String(job.videoSize),
  chunkSize: String(job.chunkSize),
  initAt: String(job.initAt),
})

const pollInput = (request: PublishRequest, publishId: string, kind: 'video' | 'photo') => ({
  credentials: request.credentials,
  profile: request.profile,
  publishId,
  kind,
  publicPost: isPublic(request),
  signal: request.signal,
})

const uploadIo = (ctx: TikTokContext, request: PublishRequest, publishId: string) => ({
  signal: request.signal,
  now: ctx.deps.now,
  uploaded: async () =>
    (await fetchStatus(ctx, request.credentials.accessToken, publishId, request.signal)).uploadedBytes,
})

/**
 * What the job an earlier attempt saved says: the post (finished, or polled to its end), the upload
 * carried on, or undefined when it can no longer make a post (it failed, or its upload's hour ran out) and
 * a new init is safe. A job TikTok does not answer about leaves the outcome unknown.
 */
async function resume(ctx: TikTokContext, request: PublishRequest, kind: 'video' | 'photo') {
  const progress = request.progress as Record<string, string>
  const publishId = progress.publishId as string
  let status: JobStatus
  try {
    status = await fetchStatus(ctx, request.credentials.accessToken, publishId, request.signal)
  } catch (error) {
    if (!(error instanceof PublishFailure)) throw error
    throw new PublishFailure(
      'unknown_outcome',
      `TikTok did not say what became of the earlier attempt's post (${error.message})`,
    )
  }
  // A failed job made nothing, whatever its reason (a cap since lifted, access since given back): a new
  // init is safe, and TikTok answers it afresh.
  if (status.status === 'FAILED') return undefined
  const job = savedJob(progress)
  const incomplete = status.status === 'PROCESSING_UPLOAD' && job && status.uploadedBytes < job.videoSize
  if (!incomplete) return afterInit(() => pollToEnd(ctx, pollInput(request, publishId, kind)))
  if (!uploadUrlLive(job, ctx.deps.now())) return undefined
  const media = await prepare(ctx, request, request.mediaUrls[0] as string)
  try {
    const file: VideoFile = { path: media.path, size: media.size, contentType: media.contentType }
    if (file.size !== job.videoSize)
      throw new PublishFailure(
        'unknown_outcome',
        'The video is not the file the earlier attempt started uploading',
      )
    return await afterInit(async () => {
      await uploadChunks(ctx, job, file, status.uploadedBytes, uploadIo(ctx, request, publishId))
      return pollToEnd(ctx, pollInput(request, publishId, 'video'))
    })
  } finally {
    await media.dispose()
  }
}

function savedJob(progress: Record<string, string>): SavedJob | undefined {
  const job = {
    publishId: progress.publishId ?? '',
    uploadUrl: progress.uploadUrl ?? '',
    videoSize: Number(progress.videoSize),
    chunkSize: Number(progress.chunkSize),
    initAt: Number(progress.initAt),
  }
  return job.uploadUrl && [job.videoSize, job.chunkSize, job.initAt].every(Number.isFinite) ? job : undefined
}
