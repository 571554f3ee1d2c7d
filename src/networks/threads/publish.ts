import { MediaError, type PreparedMedia } from '../../media/port.js'
import {
  type AdapterDeps,
  type LookupRequest,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import type { GraphClient } from '../meta/graph.js'
import { callThreads, HOSTED_MEDIA_UNREACHABLE, isFetchFailure, isPropagationLag } from './errors.js'

/**
 * Publishing to a Threads profile (reference D.2), on graph.threads.net:
 *
 * 1. `threads_publishing_limit` is read first: a used-up 250-post allowance is a rate limit, before
 *    anything is created.
 * 2. Containers (`POST /{user}/threads`): TEXT (the first URL in the copy as `link_attachment`, the link
 *    preview), one IMAGE or VIDEO (Herald's hosted copy as `image_url` / `video_url`), or 2-20 carousel
 *    items (`is_carousel_item=true`, images and videos mixed) and then the CAROUSEL container naming them.
 *    Each container id is saved as progress the moment Meta returns it.
 * 3. Each container's `status` is polled until `FINISHED` (`ERROR` / `EXPIRED` stop the attempt with the
 *    reason; the worker's heartbeat renews the target's lease meanwhile).
 * 4. `POST /{user}/threads_publish` with `creation_id`, retried while Meta answers code 24 (the container
 *    is not visible to the publisher yet); a lost answer or a 5xx is an unknown outcome.
 * 5. The URL is the thread's `permalink`.
 *
 * A retry with a saved container asks its status first: `PUBLISHED` means the earlier attempt went
 * through, so the thread is looked up among the profile's recent ones instead of posted again.
 */

export const POLL_MS = 2_000
export const POLL_LIMIT = 150
export const LAG_RETRIES = 5
export const LAG_WAIT_MS = 2_000
export const MAX_ITEMS = 20
const LOOKUP_LIMIT = 25
const CLOCK_SKEW_MS = 2 * 60_000

export interface ThreadsContext {
  graph: GraphClient
  deps: AdapterDeps
}

interface Call {
  graph: GraphClient
  token: string
  signal?: AbortSignal
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export const threadsUserIdOf = (request: {
  profile: { profileId: string }
  credentials: { extra?: Record<string, string> }
}) => request.credentials.extra?.threadsUserId || request.profile.profileId

/** The first http(s) URL in the copy: Threads shows it as the link preview. */
export function firstLink(text: string): string | undefined {
  const match = /\bhttps?:\/\/[^\s<>"']+/i.exec(text)
  return match ? match[0].replace(/[.,;:!?)\]]+$/, '') : undefined
}

export async function publishToThreads(ctx: ThreadsContext, request: PublishRequest): Promise<PublishResult> {
  const call: Call = { graph: ctx.graph, token: request.credentials.accessToken, signal: request.signal }
  const userId = threadsUserIdOf(request)
  const progress: Record<string, string> = { ...(request.progress ?? {}) }
  const save = async (entries: Record<string, string>) => {
    Object.assign(progress, entries)
    await request.saveProgress?.(entries)
  }
  if (request.mediaUrls.length > MAX_ITEMS)
    throw new PublishFailure('invalid_content', `Threads takes at most ${MAX_ITEMS} items in a carousel`)
  if (request.mediaUrls.length === 0 && request.content.trim() === '')
    throw new PublishFailure('invalid_content', 'A Threads post needs text or media')

  if (progress.published)
    return { remoteId: progress.published, url: await permalinkOf(call, progress.published, request) }

  let containerId = progress.container
  if (containerId) {
    const status = await containerStatus(call, containerId)
    if (status.status === 'PUBLISHED') {
      const found = await findRecentThread(call, userId, request.content, 0)
      if (found) return found
      throw new PublishFailure(
        'unknown_outcome',
        'Threads says the container was published but the thread was not found yet',
      )
    }
    // A container Meta gave up on is made again.
    if (status.status === 'ERROR' || status.status === 'EXPIRED') containerId = undefined
  }
  await checkAllowance(ctx, call, userId)
  if (!containerId) containerId = await createContainers(ctx, call, request, userId, progress, save)
  await waitFinished(ctx, call, containerId)
  const threadId = await publishContainer(ctx, call, userId, containerId)
  await save({ published: threadId }).catch((error: unknown) => {
    ctx.deps.logger.warn(
      { network: 'threads', err: (error as Error).message },
      'could not record the published thread id',
    )
  })
  return { remoteId: threadId, url: await permalinkOf(call, threadId, request) }
}

/** `threads_publish`, retried while Meta answers code 24 (the container is not visible to it yet). */
async function publishContainer(
  ctx: ThreadsContext,
  call: Call,
  userId: string,
  containerId: string,
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      const published = await callThreads(call.graph, {
        ...call,
        method: 'POST',
        path: `/${userId}/threads_publish`,
        params: { creation_id: containerId },
        what: 'threads_publish',
        mayHaveTakenEffect: true,
      })
      const id = str(published.id)
      if (!id)
        throw new PublishFailure(
          'unknown_outcome',
          'Threads accepted threads_publish but its answer carried no thread id',
        )
      return id
    } catch (error) {
      // A 5xx after the request was sent says nothing about whether the thread went out.
      if (error instanceof PublishFailure && error.kind === 'transient' && (error.options.status ?? 0) >= 500)
        throw new PublishFailure(
          'unknown_outcome',
          `${error.message}; the post may or may not have been published`,
          error.options,
        )
      if (!isPropagationLag(error) || attempt > LAG_RETRIES) throw error
      ctx.deps.logger.info(
        { network: 'threads', attempt },
        'threads_publish answered code 24 (container not visible yet); retrying',
      )
      await pause(ctx, LAG_WAIT_MS * attempt, call.signal)
    }
  }
}

async function pause(ctx: ThreadsContext, ms: number, signal: AbortSignal | undefined) {
  try {
    await ctx.deps.sleep(ms, signal)
  } catch {
    throw new PublishFailure('transient', 'Publishing to Threads was stopped while it waited')
  }
}

/** Refuses before creating anything when the 24-hour publishing allowance is used up. */
async function checkAllowance(ctx: ThreadsContext, call: Call, userId: string): Promise<void> {
  const limit = await readAllowance(call, userId)
  if (limit && limit.used >= limit.total)
    throw new PublishFailure(
      'rate_limited',
      `Threads publishing limit reached: ${limit.used} of ${limit.total} posts in the last 24 hours`,
      { code: 'threads_publishing_limit', resetAt: ctx.deps.now() + 60 * 60_000 },
    )
}

/** `threads_publishing_limit`: posts used and allowed in the rolling 24 hours. */
export async function readAllowance(call: Call, userId: string) {
  const body = await callThreads(call.graph, {
    ...call,
    method: 'GET',
    path: `/${userId}/threads_publishing_limit`,
    params: { fields: 'quota_usage,config' },
    what: 'the publishing allowance',
  })
  const row = Array.isArray(body.data) ? (body.data[0] as Record<string, unknown> | undefined) : undefined
  const used = typeof row?.quota_usage === 'number' ? row.quota_usage : undefined
  const total = (row?.config as { quota_total?: unknown } | undefined)?.quota_total
  return used !== undefined && typeof total === 'number' ? { used, total } : undefined
}

async function prepare(
  ctx: ThreadsContext,
  url: string,
  request: Pick<PublishRequest, 'signal' | 'targetId'>,
): Promise<PreparedMedia> {
  try {
    const file = await ctx.deps.media.prepare(url, {
      network: 'threads',
      signal: request.signal,
      targetId: request.targetId,
    })
    if (!file.publicUrl) {
      await file.dispose()
      throw new PublishFailure('invalid_content', `Herald could not host ${url} for Threads to fetch`)
    }
    return file
  } catch (error) {
    if (error instanceof MediaError)
      throw new PublishFailure('invalid_content', `Threads media: ${error.message}`, { code: error.reason })
    throw error
  }
}

async function createContainers(
  ctx: ThreadsContext,
  call: Call,
  request: PublishRequest,
  userId: string,
  progress: Record<string, string>,
  save: (entries: Record<string, string>) => Promise<void>,
): Promise<string> {
  const create = async (params: Record<string, string | boolean | undefined>, what: string) => {
    const body = await callThreads(call.graph, {
      ...call,
      method: 'POST',
      path: `/${userId}/threads`,
      params,
      what,
    })
    const id = str(body.id)
    if (!id) throw new PublishFailure('transient', `Threads answered ${what} without a container id`)
    return id
  }
  const text = request.content || undefined
  if (request.mediaUrls.length === 0) {
    const id = await create(
      { media_type: 'TEXT', text, link_attachment: firstLink(request.content) },
      'the text container',
    )
    await save({ container: id })
    return id
  }
  if (request.mediaUrls.length === 1) {
    const file = await prepare(ctx, request.mediaUrls[0] as string, request)
    try {
      const id =
        file.kind === 'video'
          ? await create({ media_type: 'VIDEO', video_url: file.publicUrl, text }, 'the video container')
          : await create({ media_type: 'IMAGE', image_url: file.publicUrl, text }, 'the image container')
      await save({ container: id })
      return id
    } finally {
      await file.dispose()
    }
  }
  const children: string[] = []
  for (const [index, url] of request.mediaUrls.entries()) {
    const saved = progress[`child${index}`]
    if (saved) {
      // A child Meta gave up on (expired after 24 hours, or failed) is made again; any other is reused.
      const { status } = await containerStatus(call, saved)
      if (status !== 'ERROR' && status !== 'EXPIRED') {
        children.push(saved)
        continue
      }
    }
    const file = await prepare(ctx, url, request)
    try {
      const id =
        file.kind === 'video'
          ? await create(
              { media_type: 'VIDEO', video_url: file.publicUrl, is_carousel_item: true },
              `carousel item ${index + 1}`,
            )
          : await create(
              { media_type: 'IMAGE', image_url: file.publicUrl, is_carousel_item: true },
              `carousel item ${index + 1}`,
            )
      children.push(id)
      await save({ [`child${index}`]: id })
    } finally {
      await file.dispose()
    }
  }
  for (const child of children) await waitFinished(ctx, call, child)
  const id = await create(
    { media_type: 'CAROUSEL', children: children.join(','), text },
    'the carousel container',
  )
  await save({ container: id })
  return id
}

async function containerStatus(call: Call, id: string): Promise<{ status: string; errorMessage?: string }> {
  const body = await callThreads(call.graph, {
    ...call,
    method: 'GET',
    path: `/${id}`,
    params: { fields: 'id,status,error_message' },
    what: 'the container status',
  })
  return {
    status: str(body.status) ?? 'IN_PROGRESS',
    ...(str(body.error_message) ? { errorMessage: body.error_message as string } : {}),
  }
}

async function waitFinished(ctx: ThreadsContext, call: Call, id: string): Promise<void> {
  for (let poll = 0; poll < POLL_LIMIT; poll++) {
    const { status, errorMessage } = await containerStatus(call, id)
    if (status === 'FINISHED' || status === 'PUBLISHED') return
    if (status === 'ERROR')
      throw new PublishFailure(
        'invalid_content',
        isFetchFailure(errorMessage)
          ? `${HOSTED_MEDIA_UNREACHABLE} (${errorMessage})`
          : `Threads could not process the post${errorMessage ? `: ${errorMessage}` : ''}`,
        { code: 'ERROR' },
      )
    if (status === 'EXPIRED')
      throw new PublishFailure(
        'transient',
        'The Threads container expired (24 hours) before it was published; a new one is made on retry',
        { code: 'EXPIRED' },
      )
    await pause(ctx, POLL_MS, call.signal)
  }
  throw new PublishFailure('transient', 'Threads was still processing the media; it will be checked again', {
    code: 'IN_PROGRESS',
  })
}

async function permalinkOf(
  call: Call,
  threadId: string,
  request: { profile: { username: string } },
): Promise<string> {
  try {
    const thread = await callThreads(call.graph, {
      ...call,
      method: 'GET',
      path: `/${threadId}`,
      params: { fields: 'id,permalink' },
      what: 'the post link',
    })
    const link = str(thread.permalink)
    if (link) return link
  } catch (error) {
    if (!(error instanceof PublishFailure)) throw error
  }
  return `https://www.threads.net/@${request.profile.username}`
}

/** The profile's newest thread with this text, created at or after `since`. */
async function findRecentThread(
  call: Call,
  userId: string,
  text: string,
  since: number,
): Promise<PublishResult | null> {
  const body = await callThreads(call.graph, {
    ...call,
    method: 'GET',
    path: `/${userId}/threads`,
    params: { fields: 'id,text,timestamp,permalink', limit: LOOKUP_LIMIT },
    what: "the profile's recent threads",
  })
  const rows = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : []
  const match = rows.find((row) => {
    const at =
      typeof row.timestamp === 'string' ? Date.parse(row.timestamp.replace(/\+0000$/, 'Z')) : Number.NaN
    return (str(row.text) ?? '').trim() === text.trim() && at >= since - CLOCK_SKEW_MS
  })
  if (!match || typeof match.id !== 'string') return null
  return { remoteId: match.id, url: str(match.permalink) ?? `https://www.threads.net/post/${match.id}` }
}

/**
 * Resolves an unanswered `threads_publish`: a saved container that Threads reports `PUBLISHED` (or no
 * container at all) is looked for among the profile's recent threads; a container still `FINISHED` was
 * never published, so nothing was posted.
 */
export async function findThreadsPost(
  ctx: ThreadsContext,
  request: LookupRequest,
): Promise<PublishResult | null> {
  const call: Call = { graph: ctx.graph, token: request.credentials.accessToken, signal: request.signal }
  if (request.progress?.published)
    return {
      remoteId: request.progress.published,
      url: await permalinkOf(call, request.progress.published, request),
    }
  const container = request.progress?.container
  if (container) {
    const { status } = await containerStatus(call, container)
    if (status !== 'PUBLISHED') return null
  }
  return findRecentThread(call, threadsUserIdOf(request), request.content, request.since)
}
