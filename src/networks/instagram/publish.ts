import { MediaError, type PreparedMedia } from '../../media/port.js'
import {
  type AdapterDeps,
  type LookupRequest,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import { callGraph, type GraphClient } from '../meta/graph.js'

/**
 * Publishing to an Instagram professional account (reference C.2), on graph.facebook.com for accounts
 * connected through Facebook Login and graph.instagram.com for Instagram Login:
 *
 * 1. `content_publishing_limit` is read first: an exhausted 24-hour allowance is a rate limit, before
 *    anything is created.
 * 2. Containers (`POST /{ig-user}/media`): one image (`image_url`, Herald's JPEG copy within 4:5..1.91:1
 *    and 8 MB), one video as a Reel (`media_type=REELS`, `share_to_feed=true`), or 2-10 carousel items
 *    (`is_carousel_item=true`, images and `media_type=VIDEO` videos) and then the `CAROUSEL` container
 *    naming them. Each container id is saved as progress the moment Meta returns it.
 * 3. Each container's `status_code` is polled until `FINISHED` (`ERROR`/`EXPIRED` stop the attempt; the
 *    worker's heartbeat renews the target's lease meanwhile).
 * 4. `POST /{ig-user}/media_publish` with `creation_id`; a lost answer is an unknown outcome.
 * 5. The URL is the media's `permalink`.
 *
 * A retry with a saved container publishes that container instead of creating another.
 */

export const POLL_MS = 3_000
export const POLL_LIMIT = 200
const MAX_ITEMS = 10
const LOOKUP_LIMIT = 25
const CLOCK_SKEW_MS = 2 * 60_000

export interface InstagramContext {
  /** graph.facebook.com (Facebook Login). */
  facebook: GraphClient
  /** graph.instagram.com (Instagram Login). */
  instagram: GraphClient
  deps: AdapterDeps
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

/** The Graph host these credentials belong to. */
export const graphFor = (
  ctx: InstagramContext,
  credentials: { extra?: Record<string, string> },
): GraphClient => (credentials.extra?.host === 'instagram' ? ctx.instagram : ctx.facebook)

export const igUserIdOf = (request: {
  profile: { profileId: string }
  credentials: { extra?: Record<string, string> }
}) => request.credentials.extra?.igUserId ?? request.profile.profileId

interface Call {
  graph: GraphClient
  token: string
  signal: AbortSignal
}

export async function publishToInstagram(
  ctx: InstagramContext,
  request: PublishRequest,
): Promise<PublishResult> {
  const call: Call = {
    graph: graphFor(ctx, request.credentials),
    token: request.credentials.accessToken,
    signal: request.signal,
  }
  const igUserId = igUserIdOf(request)
  const progress: Record<string, string> = { ...(request.progress ?? {}) }
  const save = async (entries: Record<string, string>) => {
    Object.assign(progress, entries)
    await request.saveProgress?.(entries)
  }
  if (request.mediaUrls.length === 0)
    throw new PublishFailure('invalid_content', 'Instagram requires media: add an image or a video')
  if (request.mediaUrls.length > MAX_ITEMS)
    throw new PublishFailure('invalid_content', `Instagram takes at most ${MAX_ITEMS} items in a carousel`)

  if (progress.published)
    return { remoteId: progress.published, url: await permalinkOf(call, progress.published, request) }

  let containerId = progress.container
  if (containerId) {
    const status = await containerStatus(call, containerId)
    if (status.code === 'PUBLISHED') {
      // The earlier attempt's media_publish went through: find that media instead of posting again.
      const found = await findRecentMedia(call, igUserId, request.content, 0)
      if (found) return found
      throw new PublishFailure(
        'unknown_outcome',
        'Instagram says the container was published but its media was not found yet',
      )
    }
    if (status.code === 'ERROR' || status.code === 'EXPIRED') containerId = undefined
  }
  await checkAllowance(ctx, call, igUserId)
  if (!containerId) containerId = await createContainers(ctx, call, request, igUserId, progress, save)
  await waitFinished(ctx, call, containerId, request.signal)

  const published = await callGraph(call.graph, {
    ...call,
    method: 'POST',
    path: `/${igUserId}/media_publish`,
    params: { creation_id: containerId },
    what: 'media_publish',
    mayHaveTakenEffect: true,
  })
  const mediaId = str(published.id)
  if (!mediaId)
    throw new PublishFailure(
      'unknown_outcome',
      'Instagram accepted media_publish but its answer carried no media id',
    )
  await save({ published: mediaId }).catch((error: unknown) => {
    ctx.deps.logger.warn(
      { network: 'instagram', err: (error as Error).message },
      'could not record the published media id',
    )
  })
  return { remoteId: mediaId, url: await permalinkOf(call, mediaId, request) }
}

/** Refuses before creating anything when the 24-hour publishing allowance is used up. */
async function checkAllowance(ctx: InstagramContext, call: Call, igUserId: string): Promise<void> {
  const limit = await readAllowance(call, igUserId)
  if (limit && limit.used >= limit.total)
    throw new PublishFailure(
      'rate_limited',
      `Instagram publishing limit reached: ${limit.used} of ${limit.total} posts in the last 24 hours`,
      {
        code: 'content_publishing_limit',
        resetAt: ctx.deps.now() + 60 * 60_000,
      },
    )
}

/** `content_publishing_limit`: posts used and allowed in the rolling 24 hours. */
export async function readAllowance(call: Omit<Call, 'signal'> & { signal?: AbortSignal }, igUserId: string) {
  const body = await callGraph(call.graph, {
    ...call,
    method: 'GET',
    path: `/${igUserId}/content_publishing_limit`,
    params: { fields: 'quota_usage,config' },
    what: 'the publishing allowance',
  })
  const row = Array.isArray(body.data) ? (body.data[0] as Record<string, unknown> | undefined) : undefined
  const used = typeof row?.quota_usage === 'number' ? row.quota_usage : undefined
  const total = (row?.config as { quota_total?: unknown } | undefined)?.quota_total
  return used !== undefined && typeof total === 'number' ? { used, total } : undefined
}

async function prepare(
  ctx: InstagramContext,
  url: string,
  request: Pick<PublishRequest, 'signal' | 'targetId'>,
): Promise<PreparedMedia> {
  try {
    const file = await ctx.deps.media.prepare(url, {
      network: 'instagram',
      signal: request.signal,
      targetId: request.targetId,
    })
    if (!file.publicUrl) {
      await file.dispose()
      throw new PublishFailure('invalid_content', `Herald could not host ${url} for Instagram to fetch`)
    }
    return file
  } catch (error) {
    if (error instanceof MediaError)
      throw new PublishFailure('invalid_content', `Instagram media: ${error.message}`, { code: error.reason })
    throw error
  }
}

async function createContainers(
  ctx: InstagramContext,
  call: Call,
  request: PublishRequest,
  igUserId: string,
  progress: Record<string, string>,
  save: (entries: Record<string, string>) => Promise<void>,
): Promise<string> {
  const create = async (params: Record<string, string | boolean | undefined>, what: string) => {
    const body = await callGraph(call.graph, {
      ...call,
      method: 'POST',
      path: `/${igUserId}/media`,
      params,
      what,
    })
    const id = str(body.id)
    if (!id) throw new PublishFailure('transient', `Instagram answered ${what} without a container id`)
    return id
  }
  const caption = request.content || undefined
  if (request.mediaUrls.length === 1) {
    const file = await prepare(ctx, request.mediaUrls[0] as string, request)
    try {
      const id =
        file.kind === 'video'
          ? await create(
              { media_type: 'REELS', video_url: file.publicUrl, caption, share_to_feed: true },
              'the Reel container',
            )
          : await create({ image_url: file.publicUrl, caption }, 'the image container')
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
      children.push(saved)
      continue
    }
    const file = await prepare(ctx, url, request)
    try {
      const id =
        file.kind === 'video'
          ? await create(
              { media_type: 'VIDEO', video_url: file.publicUrl, is_carousel_item: true },
              `carousel item ${index + 1}`,
            )
          : await create({ image_url: file.publicUrl, is_carousel_item: true }, `carousel item ${index + 1}`)
      children.push(id)
      await save({ [`child${index}`]: id })
    } finally {
      await file.dispose()
    }
  }
  for (const child of children) await waitFinished(ctx, call, child, request.signal)
  const id = await create(
    { media_type: 'CAROUSEL', children: children.join(','), caption },
    'the carousel container',
  )
  await save({ container: id })
  return id
}

async function containerStatus(call: Call, id: string): Promise<{ code: string; status?: string }> {
  const body = await callGraph(call.graph, {
    ...call,
    method: 'GET',
    path: `/${id}`,
    params: { fields: 'status_code,status' },
    what: 'the container status',
  })
  return {
    code: str(body.status_code) ?? 'IN_PROGRESS',
    ...(str(body.status) ? { status: body.status as string } : {}),
  }
}

async function waitFinished(
  ctx: InstagramContext,
  call: Call,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  for (let poll = 0; poll < POLL_LIMIT; poll++) {
    const { code, status } = await containerStatus(call, id)
    if (code === 'FINISHED' || code === 'PUBLISHED') return
    if (code === 'ERROR')
      throw new PublishFailure(
        'invalid_content',
        `Instagram could not process the media${status ? `: ${status}` : ''}`,
        { code: 'ERROR' },
      )
    if (code === 'EXPIRED')
      throw new PublishFailure(
        'transient',
        'The Instagram container expired before it was published; a new one is made on retry',
        {
          code: 'EXPIRED',
        },
      )
    try {
      await ctx.deps.sleep(POLL_MS, signal)
    } catch {
      throw new PublishFailure('transient', 'Publishing to Instagram was stopped while the media processed')
    }
  }
  throw new PublishFailure(
    'transient',
    'Instagram was still processing the media; it will be checked again',
    { code: 'IN_PROGRESS' },
  )
}

async function permalinkOf(
  call: Call,
  mediaId: string,
  request: { profile: { username: string } },
): Promise<string> {
  try {
    const media = await callGraph(call.graph, {
      ...call,
      method: 'GET',
      path: `/${mediaId}`,
      params: { fields: 'permalink' },
      what: 'the post link',
    })
    const link = str(media.permalink)
    if (link) return link
  } catch (error) {
    if (!(error instanceof PublishFailure)) throw error
  }
  return `https://www.instagram.com/${request.profile.username}/`
}

/** The account's newest media with this caption, created at or after `since`. */
async function findRecentMedia(
  call: Call,
  igUserId: string,
  caption: string,
  since: number,
): Promise<PublishResult | null> {
  const body = await callGraph(call.graph, {
    ...call,
    method: 'GET',
    path: `/${igUserId}/media`,
    params: { fields: 'id,caption,timestamp,permalink', limit: LOOKUP_LIMIT },
    what: "the account's recent media",
  })
  const rows = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : []
  const match = rows.find((row) => {
    const at =
      typeof row.timestamp === 'string' ? Date.parse(row.timestamp.replace(/\+0000$/, 'Z')) : Number.NaN
    return (str(row.caption) ?? '').trim() === caption.trim() && at >= since - CLOCK_SKEW_MS
  })
  if (!match || typeof match.id !== 'string') return null
  return { remoteId: match.id, url: str(match.permalink) ?? `https://www.instagram.com/p/${match.id}/` }
}

/**
 * Resolves an unanswered `media_publish`: a saved container that Instagram reports `PUBLISHED` (or no
 * container at all) is looked for among the account's recent media; a container still `FINISHED` was
 * never published, so nothing was posted.
 */
export async function findInstagramPost(
  ctx: InstagramContext,
  request: LookupRequest,
): Promise<PublishResult | null> {
  const call: Call = {
    graph: graphFor(ctx, request.credentials),
    token: request.credentials.accessToken,
    signal: request.signal,
  }
  if (request.progress?.published)
    return {
      remoteId: request.progress.published,
      url: await permalinkOf(call, request.progress.published, request),
    }
  const container = request.progress?.container
  if (container) {
    const status = await containerStatus(call, container)
    if (status.code !== 'PUBLISHED') return null
  }
  return findRecentMedia(call, igUserIdOf(request), request.content, request.since)
}
