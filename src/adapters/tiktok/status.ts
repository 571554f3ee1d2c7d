import { type Credentials, type Profile, PublishFailure, type PublishResult } from '../adapter.js'
import { tiktokCall } from './api.js'
import type { TikTokContext } from './settings.js'

/**
 * A publish job's status (`POST /v2/post/publish/status/fetch/`, reference A.5), polled to its end:
 * `PUBLISH_COMPLETE` (posted), `SEND_TO_USER_INBOX` (a draft delivered to the creator's inbox) or `FAILED`
 * with its reason. The public post id comes only for public posts once moderation passed, so a complete
 * public post is polled a little longer for it; one that never gets one (a private post, every post of an
 * unaudited app, a draft) is recorded by its publish id, and its URL is the creator's page.
 *
 * A status poll that fails is never a reason to init again: the job keeps its publish id, saved before the
 * first poll, and the lookup asks for that id later.
 */

export interface JobStatus {
  status: string
  failReason: string
  /** Post ids as strings (int64s above 2^53). */
  postIds: string[]
  uploadedBytes: number
}

/** Between polls; TikTok allows 30 status reads a minute per token. */
export const POLL_MS = 3_000
/** About ten minutes of processing (TikTok: a minute for 1 GB, more for 4 GB; no upper bound promised). */
export const POLL_LIMIT = 200
/** Extra polls for a complete public post's id (moderation usually takes under a minute). */
export const ID_POLLS = 20
/** Polls in a row that may fail before the attempt stops and leaves the job to the lookup. */
const FAILED_POLLS = 3

export async function fetchStatus(
  ctx: TikTokContext,
  token: string,
  publishId: string,
  signal?: AbortSignal,
): Promise<JobStatus> {
  const { data } = await tiktokCall(ctx, {
    method: 'POST',
    path: '/v2/post/publish/status/fetch/',
    body: { publish_id: publishId },
    token,
    what: 'the publish status',
    signal,
  })
  const ids = Array.isArray(data.publicaly_available_post_id) ? data.publicaly_available_post_id : []
  return {
    status: typeof data.status === 'string' ? data.status : '',
    failReason: typeof data.fail_reason === 'string' ? data.fail_reason : '',
    postIds: ids.map(String).filter((id) => /^\d+$/.test(id)),
    uploadedBytes: Number(data.uploaded_bytes) || 0,
  }
}

export const isDone = (status: JobStatus) =>
  status.status === 'PUBLISH_COMPLETE' || status.status === 'SEND_TO_USER_INBOX' || status.status === 'FAILED'

export interface PollInput {
  credentials: Credentials
  profile: Profile
  publishId: string
  kind: 'video' | 'photo'
  /** Public posts get an id after moderation: worth waiting a little for it. */
  publicPost: boolean
  signal: AbortSignal
}

/** Polls the job to its end and answers the post, or throws what became of it. */
export async function pollToEnd(ctx: TikTokContext, input: PollInput): Promise<PublishResult> {
  let failures = 0
  let idPolls = 0
  for (let poll = 0; poll < POLL_LIMIT + ID_POLLS; poll++) {
    if (input.signal.aborted) throw stopped()
    let status: JobStatus
    try {
      status = await fetchStatus(ctx, input.credentials.accessToken, input.publishId, input.signal)
      failures = 0
    } catch (error) {
      // A lost lease or a stop: the worker stops here, and the lookup takes the job up by its id.
      if (!(error instanceof PublishFailure)) throw error
      if (error.kind === 'auth_expired' || ++failures >= FAILED_POLLS) throw lostTrack(error)
      await ctx.deps.sleep(POLL_MS, input.signal)
      continue
    }
    if (status.status === 'FAILED') throw failureOf(status.failReason, ctx.deps.now())
    const complete = status.status === 'PUBLISH_COMPLETE'
    if (complete && (status.postIds.length > 0 || !input.publicPost || idPolls++ >= ID_POLLS))
      return resultOf(ctx, input, status)
    if (status.status === 'SEND_TO_USER_INBOX') return resultOf(ctx, input, status)
    if (!complete && poll >= POLL_LIMIT) break
    await ctx.deps.sleep(POLL_MS, input.signal)
  }
  throw new PublishFailure(
    'unknown_outcome',
    'TikTok was still processing the post when Herald stopped waiting; Herald asks for it again before anything is sent',
  )
}

/** What a finished job is in Herald: its post id and page, or the publish id and the creator's page. */
export function resultOf(
  ctx: TikTokContext,
  input: Pick<PollInput, 'profile' | 'publishId' | 'kind'>,
  status: JobStatus,
): PublishResult {
  const web = ctx.settings.webUrl
  const profileUrl = `${web}/@${input.profile.username}`
  const id = status.status === 'PUBLISH_COMPLETE' ? status.postIds[0] : undefined
  if (id) return { remoteId: id, url: `${profileUrl}/${input.kind}/${id}` }
  return { remoteId: input.publishId, url: profileUrl }
}

/** A failed job's reason as a failure kind (reference A.5): TikTok-side trouble is worth another try. */
export function failureOf(reason: string, now: number): PublishFailure {
  const options = { code: reason || 'failed' }
  switch (reason) {
    case 'internal':
    case 'video_pull_failed':
    case 'photo_pull_failed':
      return new PublishFailure(
        'transient',
        `TikTok could not finish the post (${reason}); nothing was posted`,
        options,
      )
    case 'auth_removed':
      return new PublishFailure(
        'auth_expired',
        'The creator removed Herald’s access while the post was being made',
        options,
      )
    case 'spam_risk_too_many_posts':
      return new PublishFailure(
        'rate_limited',
        'TikTok says this creator has posted too much through apps in the last 24 hours',
        {
          ...options,
          resetAt: now + 60 * 60_000,
        },
      )
    default:
      return new PublishFailure(
        'invalid_content',
        `TikTok refused the post: ${words[reason] ?? reason}`,
        options,
      )
  }
}

const words: Record<string, string> = {
  file_format_check_failed: 'its format is not one TikTok takes',
  duration_check_failed: 'the video is too long or too short for this creator',
  frame_rate_check_failed: 'the frame rate is outside 23 to 60 fps',
  picture_size_check_failed: 'the picture size is outside what TikTok takes',
  publish_cancelled: 'the post was cancelled',
  spam_risk_user_banned_from_posting: 'the account is banned from posting',
  spam_risk_text: 'TikTok judged the caption risky',
  spam_risk: 'TikTok judged the post risky',
}

/**
 * The job exists and its id is saved, so whatever stopped the polls (a refused token included: a retry
 * with fresh tokens could not know the job, and would make a second one) is left to the lookup.
 */
function lostTrack(error: PublishFailure): PublishFailure {
  return new PublishFailure(
    'unknown_outcome',
    `TikTok did not say what became of the post (${error.message}); Herald asks for it again before anything is sent`,
  )
}

const stopped = () =>
  new PublishFailure(
    'unknown_outcome',
    'Publishing to TikTok was stopped while it waited for the post to be processed',
  )
