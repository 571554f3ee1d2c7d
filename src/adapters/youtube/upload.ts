import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { MediaError, type PreparedMedia } from '../../core/media-port.js'
import {
  type Credentials,
  type LookupAnswer,
  type LookupRequest,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import { foundByKey } from '../lookup-scan.js'
import type { ApiContext } from './api.js'
import { refreshCredentials, withTimeout } from './auth.js'
import { classifyGoogleError } from './errors.js'
import {
  buildVideoInsertBody,
  isShortEligible,
  mediaRequired,
  shortsUrl,
  VIDEO_MAX_BYTES,
  videoContentType,
  youtubeMediaProblem,
} from './metadata.js'

/**
 * videos.insert through a resumable session (spec §1 rules 1-9, reference B.3):
 *
 * 1. the attachment and the title are checked first, so a post that cannot go out costs no quota, no
 *    token call and no download;
 * 2. the refresh token is exchanged for a fresh access token (spec §5 step 4: before every upload);
 * 3. the media pipeline downloads the file to a temporary path (256 MB cap), checked again here;
 * 4. `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` opens the session with the
 *    JSON metadata and answers a `Location`;
 * 5. one `PUT` streams the whole file from disk (never held in memory) and answers the Video resource.
 *
 * When the PUT ends without an answer (connection lost) or with a 5xx, the session is asked how much it
 * holds (`PUT` with `Content-Range: bytes *\/<size>`): a finished video is success; a partial one is
 * resumed once from where it stopped (a new session would spend another 1,600 quota units); no answer to
 * that question leaves the outcome unknown, which is never retried automatically.
 */

export interface YouTubePublishResult extends PublishResult {
  /** Vertical or square and at most 3 minutes (spec §1 rule 3); YouTube decides this itself, Herald only reports it. */
  isShort: boolean
}

/** Failures thrown before the upload session was requested: they cost no YouTube quota. */
const unmetered = new WeakSet<PublishFailure>()

/** False when a failed publish never reached videos.insert, so Herald's quota reservation can be released. */
export function failureSpentQuota(failure: PublishFailure): boolean {
  return !unmetered.has(failure)
}

export async function publishVideo(ctx: ApiContext, request: PublishRequest): Promise<YouTubePublishResult> {
  const state = { sessionRequested: false }
  try {
    return await publishSteps(ctx, request, state)
  } catch (error) {
    if (!state.sessionRequested && error instanceof PublishFailure) unmetered.add(error)
    throw error
  }
}

async function publishSteps(
  ctx: ApiContext,
  request: PublishRequest,
  state: { sessionRequested: boolean },
): Promise<YouTubePublishResult> {
  const { deps } = ctx
  const problem = youtubeMediaProblem(request.mediaUrls)
  if (problem) throw problem
  const metadata = buildVideoInsertBody(request.content, request.youtube)
  throwIfCancelled(request.signal)

  const credentials = await freshCredentials(ctx, request.credentials, request.signal)
  const mediaUrl = request.mediaUrls[0]!
  const media = await prepareMedia(ctx, mediaUrl, request.signal)
  try {
    // The pipeline's probe is the authority on the kind; the file on disk on the size sent.
    const size = (await stat(media.path)).size
    if (media.kind !== 'video' || size === 0) throw mediaRequired()
    if (size > VIDEO_MAX_BYTES)
      throw new PublishFailure('invalid_content', 'The video is over the 256 MB limit', {
        code: 'mediaTooLarge',
      })
    const contentType = videoContentType(mediaUrl, media.contentType)
    throwIfCancelled(request.signal)

    const started = deps.now()
    const file = {
      path: media.path,
      size,
      contentType,
      accessToken: credentials.accessToken,
      signal: request.signal,
    }
    // An earlier attempt's session says what became of its upload: finished, partly sent, or gone.
    const earlier = await earlierSession(ctx, request.progress, file)
    let video: { id: string }
    if (earlier?.kind === 'finished') video = earlier.video
    else if (earlier?.kind === 'partial')
      video = await transfer(ctx, { ...file, sessionUrl: earlier.url }, earlier.received)
    else {
      state.sessionRequested = true
      const sessionUrl = await openSession(
        ctx,
        credentials.accessToken,
        metadata,
        size,
        contentType,
        request.signal,
      )
      // Saved before any byte is sent: the session is the only way to learn later whether the video exists.
      await request.saveProgress?.({ session: sessionUrl, size: String(size) })
      video = await transfer(ctx, { ...file, sessionUrl }, 0)
    }
    const isShort = isShortEligible(media)
    deps.logger.info(
      { targetId: request.targetId, videoId: video.id, bytes: size, isShort, ms: deps.now() - started },
      'YouTube upload complete',
    )
    return { remoteId: video.id, url: shortsUrl(ctx.settings, video.id), isShort }
  } finally {
    await media.dispose()
  }
}

async function freshCredentials(ctx: ApiContext, credentials: Credentials, signal: AbortSignal) {
  // Without a refresh token (connected before offline access existed) the stored access token is tried as
  // is; an expired one is answered 401, which asks the user to reconnect.
  if (!credentials.refreshToken) return credentials
  return refreshCredentials(ctx.settings, ctx.deps, credentials, signal)
}

async function prepareMedia(ctx: ApiContext, url: string, signal: AbortSignal): Promise<PreparedMedia> {
  try {
    return await ctx.deps.media.prepare(url, { network: 'youtube', signal })
  } catch (error) {
    if (!(error instanceof MediaError)) throw error
    switch (error.reason) {
      case 'too_large':
        throw new PublishFailure('invalid_content', 'The video is over the 256 MB limit', {
          code: 'mediaTooLarge',
        })
      case 'unsupported_type':
        throw mediaRequired()
      case 'fetch_failed':
      case 'timeout':
        throw new PublishFailure('transient', error.message, { code: error.reason })
      default:
        throw new PublishFailure('invalid_content', error.message, { code: error.reason })
    }
  }
}

async function openSession(
  ctx: ApiContext,
  accessToken: string,
  metadata: unknown,
  size: number,
  contentType: string,
  signal: AbortSignal,
): Promise<string> {
  const url = new URL(`${ctx.settings.apiUrl}/upload/youtube/v3/videos`)
  url.searchParams.set('uploadType', 'resumable')
  url.searchParams.set('part', 'snippet,status')
  let response: Response
  try {
    response = await ctx.deps.http(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-length': String(size),
        'x-upload-content-type': contentType,
      },
      body: JSON.stringify(metadata),
      signal: withTimeout(signal, 60_000),
    })
  } catch (error) {
    // No bytes were sent and a session alone creates no video: safe to retry.
    throw new PublishFailure(
      'transient',
      `Could not open the YouTube upload session: ${(error as Error).message}`,
    )
  }
  if (!response.ok) {
    const body = await response.json().catch(() => undefined)
    throw classifyGoogleError(response.status, body, {
      now: ctx.deps.now(),
      retryAfter: response.headers.get('retry-after'),
    })
  }
  await response.body?.cancel()
  const location = response.headers.get('location')
  if (!location)
    throw new PublishFailure('transient', 'YouTube opened no upload session (no Location header)')
  const sessionUrl = new URL(location, ctx.settings.apiUrl)
  // The bearer token goes only to the API's own origin.
  if (sessionUrl.origin !== new URL(ctx.settings.apiUrl).origin)
    throw new PublishFailure('transient', 'YouTube answered an upload session on an unexpected host')
  return sessionUrl.toString()
}

interface Transfer {
  sessionUrl: string
  path: string
  size: number
  contentType: string
  accessToken: string
  signal: AbortSignal
}

type Answer = Response | 'lost'

/**
 * What the session an earlier attempt saved holds, asked before anything is uploaded again: the finished
 * video, the bytes it kept (the transfer resumes from there), or nothing to go on (no session saved for this
 * file, or the session is gone: a new one is opened). A session that cannot be asked leaves the outcome
 * unknown: uploading again could make a second video.
 */
async function earlierSession(
  ctx: ApiContext,
  progress: Record<string, string> | undefined,
  file: Omit<Transfer, 'sessionUrl'>,
): Promise<
  { kind: 'finished'; video: { id: string } } | { kind: 'partial'; url: string; received: number } | undefined
> {
  const url = progress?.session
  if (!url || Number(progress?.size) !== file.size) return undefined
  const status = await queryStatus(ctx, { ...file, sessionUrl: url })
  if (status === 'lost')
    throw new PublishFailure('unknown_outcome', 'YouTube did not say what the earlier upload session holds')
  if (status.status === 200 || status.status === 201)
    return { kind: 'finished', video: await readVideo(status) }
  await status.body?.cancel()
  if (status.status === 308)
    return { kind: 'partial', url, received: receivedBytes(status.headers.get('range')) }
  if (status.status === 404 || status.status === 410) return undefined
  throw new PublishFailure(
    'unknown_outcome',
    `YouTube answered ${status.status} when asked what the earlier upload session holds`,
    { status: status.status },
  )
}

async function transfer(ctx: ApiContext, t: Transfer, from: number): Promise<{ id: string }> {
  let answer = await putBytes(ctx, t, from)
  for (let resumes = 0; ; resumes++) {
    if (answer !== 'lost') {
      if (answer.status === 200 || answer.status === 201) return readVideo(answer)
      if (answer.status === 404 || answer.status === 410) {
        await answer.body?.cancel()
        throw new PublishFailure(
          'transient',
          'The YouTube upload session expired before the upload finished',
          {
            status: answer.status,
          },
        )
      }
      // A 408 is the upload timing out part way: like a 5xx, only the session can say what it kept.
      if (answer.status >= 400 && answer.status < 500 && answer.status !== 408) {
        const body = await answer.json().catch(() => undefined)
        throw classifyGoogleError(answer.status, body, {
          now: ctx.deps.now(),
          retryAfter: answer.headers.get('retry-after'),
        })
      }
      await answer.body?.cancel()
    }
    if (t.signal.aborted) throw interrupted()
    // Lost, 5xx or 308: ask the session what it holds before deciding anything.
    const status = await queryStatus(ctx, t)
    if (status === 'lost' || ![200, 201, 308].includes(status.status)) {
      if (status !== 'lost') await status.body?.cancel()
      throw interrupted()
    }
    if (status.status !== 308) return readVideo(status)
    const received = receivedBytes(status.headers.get('range'))
    if (resumes >= 1)
      throw new PublishFailure(
        'transient',
        `The upload stopped after ${received} of ${t.size} bytes; YouTube created no video`,
      )
    ctx.deps.logger.warn({ received, size: t.size }, 'YouTube upload interrupted; resuming once')
    answer = await putBytes(ctx, t, received)
  }
}

/** The slowest upload Herald waits for: two minutes, plus the bytes at 128 KiB/s. */
export function uploadTimeoutMs(bytes: number): number {
  return 120_000 + Math.ceil((bytes / (128 * 1024)) * 1000)
}

async function putBytes(ctx: ApiContext, t: Transfer, from: number): Promise<Answer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${t.accessToken}`,
    'content-type': t.contentType,
    'content-length': String(t.size - from),
  }
  if (from > 0) headers['content-range'] = `bytes ${from}-${t.size - 1}/${t.size}`
  const body = Readable.toWeb(createReadStream(t.path, { start: from })) as ReadableStream<Uint8Array>
  try {
    return await ctx.deps.http(t.sessionUrl, {
      method: 'PUT',
      headers,
      body,
      duplex: 'half',
      // With redirect mode 'follow' or 'manual', Node's fetch (undici 6) keeps every chunk of a streamed
      // body to be able to replay it: the whole file in memory. Mode 'error' keeps nothing, but turns a
      // 308 Resume Incomplete into a network error; that lands on the "lost" path, and the status query
      // below (no body, so 'manual' is harmless there) reads the 308 and its Range.
      redirect: 'error',
      // A network that took the bytes and never answers must not hold the send (and its lease) for ever:
      // past this the answer counts as lost and the session is asked what it holds.
      signal: withTimeout(t.signal, uploadTimeoutMs(t.size - from)),
    } as RequestInit)
  } catch {
    return 'lost'
  }
}

async function queryStatus(
  ctx: ApiContext,
  t: Pick<Transfer, 'sessionUrl' | 'size' | 'accessToken' | 'signal'>,
): Promise<Answer> {
  try {
    return await ctx.deps.http(t.sessionUrl, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${t.accessToken}`,
        'content-length': '0',
        'content-range': `bytes */${t.size}`,
      },
      // 308 is the answer expected here, not a redirect to follow.
      redirect: 'manual',
      signal: withTimeout(t.signal, 30_000),
    })
  } catch {
    return 'lost'
  }
}

async function readVideo(response: Response): Promise<{ id: string }> {
  const body = (await response.json().catch(() => undefined)) as { id?: unknown } | undefined
  if (!body || typeof body.id !== 'string' || !body.id) throw interrupted()
  return { id: body.id }
}

/** `Range: bytes=0-N` of a 308 answer as a byte count (N + 1); no header means nothing was kept. */
export function receivedBytes(range: string | null): number {
  const match = range?.match(/bytes=0-(\d+)/)
  return match ? Number(match[1]) + 1 : 0
}

function interrupted(): PublishFailure {
  return new PublishFailure(
    'unknown_outcome',
    'The upload to YouTube was interrupted and YouTube did not say whether it kept the video',
  )
}

function throwIfCancelled(signal: AbortSignal) {
  if (signal.aborted)
    throw new PublishFailure('transient', 'Publishing was cancelled before the upload began')
}

/**
 * Resolves an unknown outcome by asking the upload session the attempt saved (`PUT` with `Content-Range:
 * bytes *\/<size>`): the finished video is found; a session holding part of the file (308) means no video
 * exists, and the next publish resumes it; no session saved means no byte was ever sent. A session YouTube
 * no longer knows (404/410) cannot say whether it finished: ambiguous. No answer at all throws.
 */
export async function findUploadedVideo(ctx: ApiContext, request: LookupRequest): Promise<LookupAnswer> {
  const sessionUrl = request.progress?.session
  const size = Number(request.progress?.size)
  if (!sessionUrl || !Number.isFinite(size)) return { kind: 'absent' }
  const credentials = await freshCredentials(ctx, request.credentials, request.signal)
  const status = await queryStatus(ctx, {
    sessionUrl,
    size,
    accessToken: credentials.accessToken,
    signal: request.signal,
  })
  if (status === 'lost')
    throw new PublishFailure('transient', 'YouTube did not say what the upload session holds')
  if (status.status === 200 || status.status === 201) {
    const video = await readVideo(status)
    return foundByKey(
      { remoteId: video.id, url: shortsUrl(ctx.settings, video.id) },
      request.excludeRemoteIds,
    )
  }
  await status.body?.cancel()
  if (status.status === 308) return { kind: 'absent' }
  if (status.status === 404 || status.status === 410)
    return {
      kind: 'ambiguous',
      reason: `YouTube no longer knows the upload session of this attempt (${status.status}), so Herald cannot tell whether the upload finished. Check the channel's videos for it; if it is not there, reset the post (reset_stuck_post) and publish it again.`,
    }
  throw new PublishFailure(
    'transient',
    `YouTube answered ${status.status} when asked what the upload session holds`,
    {
      status: status.status,
    },
  )
}
