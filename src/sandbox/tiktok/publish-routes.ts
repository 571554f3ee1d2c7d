import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { chunkProblem, type TikTokPrivacyLevel, tiktokPrivacyLevels } from '../../core/tiktok-rules.js'
import { authorize, badParam, envelope, onlyKnown, TikTokApiError } from './errors.js'
import type { PublishJob, TikTokToken, TikTokUser } from './model.js'
import { RATE_LIMITS, type TikTokSandboxState } from './state.js'

/**
 * The Content Posting API under `/v2/post/publish/` (reference A.4, A.5): creator info, the three inits
 * (direct video, inbox video, photos), and the status of a publish job. Each call is checked against
 * TikTok's published fields (an unknown one is `invalid_params`), the creator's options and the app's
 * audit, and counted against TikTok's per-token budgets.
 */

const POST_INFO_VIDEO = [
  'title',
  'privacy_level',
  'disable_duet',
  'disable_comment',
  'disable_stitch',
  'video_cover_timestamp_ms',
  'brand_content_toggle',
  'brand_organic_toggle',
  'is_aigc',
] as const
const POST_INFO_PHOTO = [
  'title',
  'description',
  'privacy_level',
  'disable_comment',
  'auto_add_music',
  'brand_content_toggle',
  'brand_organic_toggle',
] as const
const SOURCE_VIDEO = ['source', 'video_size', 'chunk_size', 'total_chunk_count', 'video_url'] as const
const SOURCE_PHOTO = ['source', 'photo_cover_index', 'photo_images'] as const

/** The bearer token, its creator and the per-token budget of `bucket`; 429 when it is spent. */
function caller(
  state: TikTokSandboxState,
  request: FastifyRequest,
  scopes: readonly string[],
  bucket: keyof typeof RATE_LIMITS,
): { token: TikTokToken; user: TikTokUser } {
  const token = authorize(state, request, scopes)
  const user = state.users.get(token.openId)
  if (!user)
    throw new TikTokApiError(401, 'access_token_invalid', 'The access token does not belong to a user.')
  if (!state.allow(`${bucket}:${token.token}`, RATE_LIMITS[bucket]))
    throw new TikTokApiError(
      429,
      'rate_limit_exceeded',
      'Your request is blocked due to exceeding the API rate limit.',
    )
  return { token, user }
}

/** A creator TikTok will not let post now answers the same code the creator info query gives. */
function refuseCannotPost(user: TikTokUser) {
  if (user.cannotPost)
    throw new TikTokApiError(
      403,
      user.cannotPost,
      'The user cannot make more posts through the API right now.',
    )
}

function creatorInfo(state: TikTokSandboxState, request: FastifyRequest) {
  const { user } = caller(state, request, ['video.publish'], 'creator')
  onlyKnown(state, 'creator_info/query body', request.body, [])
  const data = {
    creator_avatar_url: user.avatarUrl,
    creator_username: user.username,
    creator_nickname: user.displayName,
    privacy_level_options: state.privacyLevelsOf(user),
    comment_disabled: user.commentsOff,
    duet_disabled: user.duetOff,
    stitch_disabled: user.stitchOff,
    max_video_post_duration_sec: user.maxVideoSeconds,
  }
  // TikTok answers 200 with the reason in `error` when the creator cannot post now (reference A.4.1).
  return user.cannotPost
    ? envelope(data, { code: user.cannotPost, message: 'The user cannot make more posts right now.' })
    : envelope(data)
}

/** `post_info` of a direct post: fields TikTok describes, a privacy level the creator is offered, the audit. */
function checkPostInfo(
  state: TikTokSandboxState,
  where: string,
  raw: unknown,
  known: readonly string[],
  { token, user }: { token: TikTokToken; user: TikTokUser },
): Record<string, unknown> {
  const info = onlyKnown(state, where, raw, known)
  const level = info.privacy_level
  if (!(tiktokPrivacyLevels as readonly unknown[]).includes(level))
    throw badParam(state, where, 'privacy_level is required and must be one of TikTok’s levels')
  if (!state.privacyLevelsOf(user).includes(level as TikTokPrivacyLevel))
    throw new TikTokApiError(
      403,
      'privacy_level_option_mismatch',
      'privacy_level is not one of the creator’s options.',
    )
  if (typeof info.title === 'string' && info.title.length > (known === POST_INFO_PHOTO ? 90 : 2_200))
    throw badParam(state, where, 'title is too long')
  if (typeof info.description === 'string' && info.description.length > 4_000)
    throw badParam(state, where, 'description is too long')
  if (info.brand_content_toggle === true && level === 'SELF_ONLY')
    throw badParam(state, where, 'branded content cannot be SELF_ONLY')
  const app = state.apps.get(token.clientKey)
  if (app && !app.audited && !user.privateAccount)
    throw new TikTokApiError(
      403,
      'unaudited_client_can_only_post_to_private_accounts',
      'Unaudited clients can only post to a private account.',
    )
  return info
}

/** `source_info` of a video: FILE_UPLOAD within TikTok's chunk rules (the simulator takes no video pulls). */
function checkVideoSource(state: TikTokSandboxState, where: string, raw: unknown) {
  const source = onlyKnown(state, where, raw, SOURCE_VIDEO)
  if (source.source !== 'FILE_UPLOAD') throw badParam(state, where, 'source must be FILE_UPLOAD here')
  const size = {
    videoSize: Number(source.video_size),
    chunkSize: Number(source.chunk_size),
    totalChunkCount: Number(source.total_chunk_count),
  }
  const problem = chunkProblem(size)
  if (problem) throw badParam(state, where, problem)
  if (size.videoSize > 4 * 1024 ** 3) throw badParam(state, where, 'video_size is over 4 GB')
  return size
}

function initVideo(state: TikTokSandboxState, request: FastifyRequest, mode: PublishJob['mode']) {
  const direct = mode === 'DIRECT_POST'
  const who = caller(state, request, [direct ? 'video.publish' : 'video.upload'], 'init')
  const name = direct ? 'video/init' : 'inbox/video/init'
  const fields = direct ? ['post_info', 'source_info'] : ['source_info']
  const body = onlyKnown(state, `${name} body`, request.body, fields)
  refuseCannotPost(who.user)
  const postInfo = direct
    ? checkPostInfo(state, `${name} post_info`, body.post_info, POST_INFO_VIDEO, who)
    : {}
  const size = checkVideoSource(state, `${name} source_info`, body.source_info)
  const job = state.newJob({
    openId: who.user.openId,
    clientKey: who.token.clientKey,
    kind: 'video',
    mode,
    source: 'FILE_UPLOAD',
    postInfo,
    upload: state.newUpload(size),
  })
  const upload = job.upload!
  const origin = `${request.protocol}://${request.headers.host}`
  return envelope({
    publish_id: job.publishId,
    upload_url: `${origin}${state.prefix}/upload/video/?upload_id=${upload.uploadId}&upload_token=${upload.uploadToken}`,
  })
}

async function initPhotos(state: TikTokSandboxState, request: FastifyRequest) {
  const asked = (request.body as { post_mode?: unknown } | undefined)?.post_mode
  const mode = asked === 'MEDIA_UPLOAD' ? 'MEDIA_UPLOAD' : 'DIRECT_POST'
  const who = caller(state, request, [mode === 'DIRECT_POST' ? 'video.publish' : 'video.upload'], 'init')
  const body = onlyKnown(state, 'content/init body', request.body, [
    'media_type',
    'post_mode',
    'post_info',
    'source_info',
  ])
  if (body.media_type !== 'PHOTO') throw badParam(state, 'content/init', 'media_type must be PHOTO')
  if (body.post_mode !== 'DIRECT_POST' && body.post_mode !== 'MEDIA_UPLOAD')
    throw badParam(state, 'content/init', 'post_mode must be DIRECT_POST or MEDIA_UPLOAD')
  refuseCannotPost(who.user)
  const postInfo =
    mode === 'DIRECT_POST'
      ? checkPostInfo(state, 'content/init post_info', body.post_info, POST_INFO_PHOTO, who)
      : onlyKnown(state, 'content/init post_info', body.post_info, POST_INFO_PHOTO)
  const source = onlyKnown(state, 'content/init source_info', body.source_info, SOURCE_PHOTO)
  const images = source.photo_images
  if (source.source !== 'PULL_FROM_URL') throw badParam(state, 'content/init', 'source must be PULL_FROM_URL')
  if (
    !Array.isArray(images) ||
    images.length < 1 ||
    images.length > 35 ||
    !images.every((u) => typeof u === 'string')
  )
    throw badParam(state, 'content/init', 'photo_images takes 1 to 35 URLs')
  const cover = source.photo_cover_index
  if (!Number.isInteger(cover) || (cover as number) < 0 || (cover as number) >= images.length)
    throw badParam(state, 'content/init', 'photo_cover_index is required and must name one of the photos')
  const app = state.apps.get(who.token.clientKey)
  const unverified = (images as string[]).find((url) => !app || !state.verifiedFor(app, url))
  if (unverified)
    throw new TikTokApiError(
      403,
      'url_ownership_unverified',
      'The media URL is not on a verified domain or URL prefix.',
    )
  const job = state.newJob({
    openId: who.user.openId,
    clientKey: who.token.clientKey,
    kind: 'photo',
    mode,
    source: 'PULL_FROM_URL',
    postInfo,
    photoUrls: images as string[],
  })
  // TikTok accepts the job and downloads the photos itself; the simulator finishes the download before it
  // answers, so the post (or its failure) exists by the time the answer goes out.
  const pulled = await state.pull(job)
  if (pulled.failed) {
    job.status = 'FAILED'
    job.failReason = pulled.failed
  } else state.finishMedia(job, pulled.keys)
  return envelope({ publish_id: job.publishId })
}

function statusOf(state: TikTokSandboxState, request: FastifyRequest, reply: FastifyReply) {
  const { token } = caller(state, request, ['video.publish', 'video.upload'], 'status')
  const body = onlyKnown(state, 'status/fetch body', request.body, ['publish_id'])
  const job = typeof body.publish_id === 'string' ? state.jobs.get(body.publish_id) : undefined
  if (!job) throw new TikTokApiError(400, 'invalid_publish_id', 'The publish_id does not exist.')
  if (job.openId !== token.openId || job.clientKey !== token.clientKey)
    throw new TikTokApiError(
      400,
      'token_not_authorized_for_specified_publish_id',
      'The access token is not allowed to read this publish_id.',
    )
  advance(job)
  const post = job.postId ? state.posts.get(job.postId) : undefined
  const publicId =
    post?.publicAt !== undefined && post.publicAt <= state.now() && job.status === 'PUBLISH_COMPLETE'
  // The post id is an int64 sent as a bare number: written into the text, never through a double.
  const text = JSON.stringify(
    envelope({
      status: job.status,
      fail_reason: job.failReason,
      publicaly_available_post_id: publicId ? ['@@POST_ID@@'] : [],
      uploaded_bytes: job.upload?.received ?? 0,
      downloaded_bytes: job.downloaded,
    }),
  ).replace('"@@POST_ID@@"', post?.id ?? '0')
  return reply.type('application/json; charset=UTF-8').send(text)
}

/** A job whose media are all in reports processing for a poll or more, then its end. */
function advance(job: PublishJob) {
  if (job.status === 'FAILED' || job.status === 'PUBLISH_COMPLETE' || job.status === 'SEND_TO_USER_INBOX')
    return
  const mediaIn = job.postId !== undefined || job.draftId !== undefined
  if (!mediaIn) return
  if (job.pollsLeft > 0) {
    job.pollsLeft -= 1
    return
  }
  job.status = job.mode === 'MEDIA_UPLOAD' ? 'SEND_TO_USER_INBOX' : 'PUBLISH_COMPLETE'
}

export function registerPublishRoutes(app: FastifyInstance, state: TikTokSandboxState): void {
  app.post('/v2/post/publish/creator_info/query/', async (request) => creatorInfo(state, request))
  app.post('/v2/post/publish/video/init/', async (request) => initVideo(state, request, 'DIRECT_POST'))
  app.post('/v2/post/publish/inbox/video/init/', async (request) => initVideo(state, request, 'MEDIA_UPLOAD'))
  app.post('/v2/post/publish/content/init/', async (request) => initPhotos(state, request))
  app.post('/v2/post/publish/status/fetch/', async (request, reply) => statusOf(state, request, reply))
}
