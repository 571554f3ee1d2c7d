import { MediaError, type PreparedMedia } from '../../core/media-port.js'
import {
  type AdapterDeps,
  altTextOf,
  type LookupAnswer,
  type LookupRequest,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import { foundByKey, isDistinctive, lookUpRecent, normaliseCopy, toLookupAnswer } from '../lookup-scan.js'
import type { GraphClient, GraphRequest } from './graph.js'

/**
 * Meta's container flow, shared by Instagram (reference C.2) and Threads (reference D.2); what differs
 * between them is a {@link ContainerNetwork} (paths, field names, messages and a few small hooks):
 *
 * 1. The publishing allowance (`{user}/{allowanceEdge}`) is read first: a used-up 24-hour allowance is a
 *    rate limit, before anything is created.
 * 2. Containers (`POST /{user}/{containerEdge}`): one item, or carousel items and then the `CAROUSEL`
 *    container naming them, each media item as the URL of Herald's hosted copy. Each container id is
 *    saved as progress the moment Meta returns it.
 * 3. Each container's status is polled until `FINISHED` (`ERROR` / `EXPIRED` stop the attempt; the
 *    worker's heartbeat renews the target's lease meanwhile).
 * 4. `POST /{user}/{publishEdge}` with `creation_id`; a lost answer is an unknown outcome.
 * 5. The URL is the post's `permalink`.
 *
 * A retry with a saved container asks its status first: `PUBLISHED` means the earlier attempt went
 * through, so the post is looked up among the account's recent ones instead of posted again.
 */

/** Posts read per page of the account's recent posts (Meta serves at most 100). */
const LOOKUP_PAGE_SIZE = 100
const CLOCK_SKEW_MS = 2 * 60_000

type Params = Record<string, string | boolean | undefined>

export interface ContainerNetwork {
  /** The network id, as the media service and logs know it. */
  network: 'instagram' | 'threads'
  /** The network's name in messages. */
  label: string
  /** The Graph call with this network's failures classified. */
  call: (client: GraphClient, request: GraphRequest) => Promise<Record<string, unknown>>
  /** Edges under the user: containers (also its recent posts), publish, allowance. */
  containerEdge: string
  publishEdge: string
  allowanceEdge: string
  /** The parameter and field carrying the copy (`caption` / `text`). */
  captionKey: string
  /** What a published item is called in messages (`media` / `thread`). */
  noun: string
  /** A container's status: the fields asked for, the field with the code, the field with Meta's words. */
  status: { fields: string; codeKey: string; messageKey: string }
  permalinkFields: string
  recentWhat: string
  pollMs: number
  pollLimit: number
  /** Whether saved carousel children are asked for their status (and made again when Meta gave up). */
  recheckChildren: boolean
  /** Retries of the publish call for a failure that only needs a short wait (Threads' code 24). */
  lag?: {
    retries: number
    waitMs: number
    is: (error: unknown) => boolean
    /** Logged before each retry. */
    note: string
  }
  /** The text-only container, for a network that has one. */
  textContainer?: (content: string, caption: string | undefined) => Params
  /** The container of a post with one media item (with its alt text, if any), and its name in messages. */
  single: (
    file: PreparedMedia,
    caption: string | undefined,
    altText: string | undefined,
  ) => { params: Params; what: string }
  /** A carousel item's container (without `is_carousel_item`), with its alt text, if any. */
  item: (file: PreparedMedia, altText: string | undefined) => Params
  /** Parameters every post container carries besides its media (Threads' `reply_to_id` for a reply). */
  containerExtra?: Params
  /**
   * Finds what a saved container Meta reports `PUBLISHED` became, where that is not among the account's
   * recent posts (a Threads reply is listed with the profile's replies, never with its threads).
   */
  findPublished?: () => Promise<LookupAnswer>
  /** The account's page and a post's, under the network's web site (`webUrl` of the context). */
  profileUrl: (webUrl: string, username: string) => string
  postUrl: (webUrl: string, id: string) => string
  messages: {
    publishedNotFound: string
    processingFailed: (message: string | undefined) => string
    expired: string
    stopped: string
  }
}

export interface ContainerContext {
  graph: GraphClient
  deps: AdapterDeps
  /** Where people see posts (www.instagram.com, www.threads.net; the simulators' pages in sandbox mode). */
  webUrl: string
}

interface Call {
  graph: GraphClient
  token: string
  signal?: AbortSignal
}

interface Flow {
  net: ContainerNetwork
  deps: AdapterDeps
  call: Call
  webUrl: string
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

/** Publishes `request` through containers; the network has already checked what the post may hold. */
export async function publishThroughContainers(
  net: ContainerNetwork,
  ctx: ContainerContext,
  request: PublishRequest,
  userId: string,
): Promise<PublishResult> {
  const flow: Flow = {
    net,
    deps: ctx.deps,
    call: { graph: ctx.graph, token: request.credentials.accessToken, signal: request.signal },
    webUrl: ctx.webUrl,
  }
  const progress: Record<string, string> = { ...(request.progress ?? {}) }
  const save = async (entries: Record<string, string>) => {
    Object.assign(progress, entries)
    await request.saveProgress?.(entries)
  }
  if (progress.published)
    return { remoteId: progress.published, url: await permalinkOf(flow, progress.published, request) }

  let containerId = progress.container
  if (containerId) {
    const status = await containerStatus(flow, containerId)
    if (status.code === 'PUBLISHED') {
      // The earlier attempt's publish went through: find that post instead of posting again.
      const answer = net.findPublished
        ? await net.findPublished()
        : await findRecent(flow, userId, request, 0, undefined)
      if (answer.kind === 'found') return answer.result
      throw new PublishFailure(
        'unknown_outcome',
        answer.kind === 'ambiguous' ? answer.reason : net.messages.publishedNotFound,
      )
    }
    // A container Meta gave up on is made again.
    if (status.code === 'ERROR' || status.code === 'EXPIRED') containerId = undefined
  }
  await checkAllowance(flow, userId)
  if (!containerId) containerId = await createContainers(flow, request, userId, progress, save)
  await waitFinished(flow, containerId)
  const postId = await publishContainer(flow, userId, containerId)
  await save({ published: postId }).catch((error: unknown) => {
    ctx.deps.logger.warn(
      { network: net.network, err: (error as Error).message },
      `could not record the published ${net.noun} id`,
    )
  })
  return { remoteId: postId, url: await permalinkOf(flow, postId, request) }
}

/**
 * Resolves an unanswered publish with the container it was recorded with: a container Meta does not report
 * `PUBLISHED` was never published (and no container means the publish call was never made), so nothing was
 * posted; a `PUBLISHED` one is looked for among the account's posts since the attempt, by its copy and kind
 * (a carousel, or a single item). Meta links no container to its post, so copy that says nothing (an empty
 * caption, links only) or several matches is ambiguous; none yet is a lookup to repeat later.
 */
export async function findContainerPost(
  net: ContainerNetwork,
  ctx: ContainerContext,
  request: LookupRequest,
  userId: string,
): Promise<LookupAnswer> {
  const flow: Flow = {
    net,
    deps: ctx.deps,
    call: { graph: ctx.graph, token: request.credentials.accessToken, signal: request.signal },
    webUrl: ctx.webUrl,
  }
  if (request.progress?.published)
    return foundByKey(
      {
        remoteId: request.progress.published,
        url: await permalinkOf(flow, request.progress.published, request),
      },
      request.excludeRemoteIds,
    )
  const container = request.progress?.container
  if (!container) return { kind: 'absent' }
  const { code } = await containerStatus(flow, container)
  if (code !== 'PUBLISHED') return { kind: 'absent' }
  const answer = await findRecent(flow, userId, request, request.since, request.excludeRemoteIds)
  if (answer.kind === 'absent') throw new PublishFailure('unknown_outcome', net.messages.publishedNotFound)
  return answer
}

/** The allowance edge: posts used and allowed in the rolling window (`config.quota_duration`, 24 hours). */
export async function readContainerAllowance(net: ContainerNetwork, call: Call, userId: string) {
  const body = await net.call(call.graph, {
    ...call,
    method: 'GET',
    path: `/${userId}/${net.allowanceEdge}`,
    params: { fields: 'quota_usage,config' },
    what: 'the publishing allowance',
  })
  const row = Array.isArray(body.data) ? (body.data[0] as Record<string, unknown> | undefined) : undefined
  const used = typeof row?.quota_usage === 'number' ? row.quota_usage : undefined
  const config = row?.config as { quota_total?: unknown; quota_duration?: unknown } | undefined
  const total = config?.quota_total
  const windowMs =
    typeof config?.quota_duration === 'number' && config.quota_duration > 0
      ? config.quota_duration * 1000
      : DEFAULT_WINDOW_MS
  return used !== undefined && typeof total === 'number' ? { used, total, windowMs } : undefined
}

/** Meta's publishing allowance window when the answer does not say (both Instagram's and Threads' are a day). */
const DEFAULT_WINDOW_MS = 24 * 60 * 60_000

/**
 * When a used-up allowance frees a post: the window is rolling, so each post leaves it `windowMs` after it
 * was published, and the one that frees the allowance is the (used - total + 1)-th oldest post in the window,
 * read from the account's own posts since the window began. When they cannot be read (or do not account for
 * the usage), the latest it can be: a whole window from now.
 */
async function allowanceFreesAt(
  { net, deps, call }: Flow,
  userId: string,
  limit: { used: number; total: number; windowMs: number },
): Promise<number> {
  const now = deps.now()
  try {
    const body = await net.call(call.graph, {
      ...call,
      method: 'GET',
      path: `/${userId}/${net.containerEdge}`,
      params: {
        fields: 'id,timestamp',
        limit: LOOKUP_PAGE_SIZE,
        since: String(Math.floor((now - limit.windowMs) / 1000)),
      },
      what: net.recentWhat,
    })
    const times = (Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : [])
      .map(timestampOf)
      .filter((at) => Number.isFinite(at) && at > now - limit.windowMs)
      .sort((a, b) => a - b)
    const leaving = times[Math.max(0, limit.used - limit.total)]
    if (leaving !== undefined) return leaving + limit.windowMs
  } catch (error) {
    if (!(error instanceof PublishFailure)) throw error
  }
  return now + limit.windowMs
}

/** Refuses before creating anything when the publishing allowance is used up, until it frees a post. */
async function checkAllowance(flow: Flow, userId: string): Promise<void> {
  const { net, call } = flow
  const limit = await readContainerAllowance(net, call, userId)
  if (limit && limit.used >= limit.total)
    throw new PublishFailure(
      'rate_limited',
      `${net.label} publishing limit reached: ${limit.used} of ${limit.total} posts in the last ${Math.round(limit.windowMs / 3_600_000)} hours`,
      { code: net.allowanceEdge, resetAt: await allowanceFreesAt(flow, userId, limit) },
    )
}

/**
 * A publish call refused for the allowance (Instagram's code 9 / 2207042, Threads' code 9), when it was used
 * up between the check and the call: waits until the allowance frees a post, as {@link checkAllowance}.
 */
async function withAllowanceReset(
  flow: Flow,
  userId: string,
  failure: PublishFailure,
): Promise<PublishFailure> {
  const [code] = (failure.options.code ?? '').split('/')
  if (failure.kind !== 'rate_limited' || code !== '9') return failure
  const limit = await readContainerAllowance(flow.net, flow.call, userId).catch(() => undefined)
  if (!limit) return failure
  return new PublishFailure(failure.kind, failure.message, {
    ...failure.options,
    resetAt: await allowanceFreesAt(flow, userId, { ...limit, used: Math.max(limit.used, limit.total) }),
  })
}

/** The publish call, with the network's lag retries and its rule for a 5xx. */
async function publishContainer(flow: Flow, userId: string, containerId: string) {
  const { net, deps, call } = flow
  for (let attempt = 1; ; attempt++) {
    try {
      const published = await net.call(call.graph, {
        ...call,
        method: 'POST',
        path: `/${userId}/${net.publishEdge}`,
        params: { creation_id: containerId },
        what: net.publishEdge,
        mayHaveTakenEffect: true,
      })
      const id = str(published.id)
      if (!id)
        throw new PublishFailure(
          'unknown_outcome',
          `${net.label} accepted ${net.publishEdge} but its answer carried no ${net.noun} id`,
        )
      return id
    } catch (error) {
      // A failure of the publish call itself is already an unknown outcome unless Meta refused it
      // (`callGraph` with `mayHaveTakenEffect`); only a refusal that is propagation lag is tried again.
      if (error instanceof PublishFailure && error.kind === 'rate_limited')
        throw await withAllowanceReset(flow, userId, error)
      if (!net.lag?.is(error) || attempt > net.lag.retries) throw error
      deps.logger.info({ network: net.network, attempt }, net.lag.note)
      await pause(flow, net.lag.waitMs * attempt)
    }
  }
}

async function pause({ net, deps, call }: Flow, ms: number) {
  try {
    await deps.sleep(ms, call.signal)
  } catch {
    throw new PublishFailure('transient', net.messages.stopped)
  }
}

async function prepare(
  { net, deps }: Flow,
  url: string,
  request: Pick<PublishRequest, 'signal' | 'targetId'>,
): Promise<PreparedMedia> {
  try {
    const file = await deps.media.prepare(url, {
      network: net.network,
      signal: request.signal,
      targetId: request.targetId,
    })
    if (!file.publicUrl) {
      await file.dispose()
      throw new PublishFailure('invalid_content', `Herald could not host ${url} for ${net.label} to fetch`)
    }
    return file
  } catch (error) {
    if (error instanceof MediaError)
      throw new PublishFailure('invalid_content', `${net.label} media: ${error.message}`, {
        code: error.reason,
      })
    throw error
  }
}

async function createContainers(
  flow: Flow,
  request: PublishRequest,
  userId: string,
  progress: Record<string, string>,
  save: (entries: Record<string, string>) => Promise<void>,
): Promise<string> {
  const { net, call } = flow
  const create = async (params: Params, what: string) => {
    const body = await net.call(call.graph, {
      ...call,
      method: 'POST',
      path: `/${userId}/${net.containerEdge}`,
      params,
      what,
    })
    const id = str(body.id)
    if (!id) throw new PublishFailure('transient', `${net.label} answered ${what} without a container id`)
    return id
  }
  const caption = request.content || undefined
  if (request.mediaUrls.length === 0 && net.textContainer) {
    const id = await create(
      { ...net.textContainer(request.content, caption), ...net.containerExtra },
      'the text container',
    )
    await save({ container: id })
    return id
  }
  if (request.mediaUrls.length === 1) {
    const file = await prepare(flow, request.mediaUrls[0] as string, request)
    try {
      const { params, what } = net.single(file, caption, altTextOf(request, request.mediaUrls[0] ?? ''))
      const id = await create({ ...params, ...net.containerExtra }, what)
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
      const code = net.recheckChildren ? (await containerStatus(flow, saved)).code : undefined
      if (code !== 'ERROR' && code !== 'EXPIRED') {
        children.push(saved)
        continue
      }
    }
    const file = await prepare(flow, url, request)
    try {
      const id = await create(
        { ...net.item(file, altTextOf(request, url)), is_carousel_item: true },
        `carousel item ${index + 1}`,
      )
      children.push(id)
      await save({ [`child${index}`]: id })
    } finally {
      await file.dispose()
    }
  }
  for (const child of children) await waitFinished(flow, child)
  const id = await create(
    {
      media_type: 'CAROUSEL',
      children: children.join(','),
      [net.captionKey]: caption,
      ...net.containerExtra,
    },
    'the carousel container',
  )
  await save({ container: id })
  return id
}

/** A container's status code (`PUBLISHED`, `FINISHED`, `ERROR`, ...), asked with the given token. */
export const statusOfContainer = (
  net: ContainerNetwork,
  ctx: ContainerContext,
  token: string,
  id: string,
  signal?: AbortSignal,
) =>
  containerStatus(
    {
      net,
      deps: ctx.deps,
      call: { graph: ctx.graph, token, ...(signal ? { signal } : {}) },
      webUrl: ctx.webUrl,
    },
    id,
  )

async function containerStatus({ net, call }: Flow, id: string): Promise<{ code: string; message?: string }> {
  const body = await net.call(call.graph, {
    ...call,
    method: 'GET',
    path: `/${id}`,
    params: { fields: net.status.fields },
    what: 'the container status',
  })
  const message = str(body[net.status.messageKey])
  return { code: str(body[net.status.codeKey]) ?? 'IN_PROGRESS', ...(message ? { message } : {}) }
}

async function waitFinished(flow: Flow, id: string): Promise<void> {
  const { net } = flow
  for (let poll = 0; poll < net.pollLimit; poll++) {
    const { code, message } = await containerStatus(flow, id)
    if (code === 'FINISHED' || code === 'PUBLISHED') return
    if (code === 'ERROR')
      throw new PublishFailure('invalid_content', net.messages.processingFailed(message), { code: 'ERROR' })
    if (code === 'EXPIRED') throw new PublishFailure('transient', net.messages.expired, { code: 'EXPIRED' })
    await pause(flow, net.pollMs)
  }
  throw new PublishFailure(
    'transient',
    `${net.label} was still processing the media; it will be checked again`,
    { code: 'IN_PROGRESS' },
  )
}

async function permalinkOf(
  { net, call, webUrl }: Flow,
  postId: string,
  request: { profile: { username: string } },
): Promise<string> {
  try {
    const post = await net.call(call.graph, {
      ...call,
      method: 'GET',
      path: `/${postId}`,
      params: { fields: net.permalinkFields },
      what: 'the post link',
    })
    const link = str(post.permalink)
    if (link) return link
  } catch (error) {
    if (!(error instanceof PublishFailure)) throw error
  }
  return net.profileUrl(webUrl, request.profile.username)
}

/**
 * The account's post since `since` with this copy and kind: its posts since then (`since`, unix seconds,
 * less the clock margin) read page after page (`after` cursors), newest first (see `lookUpRecent`).
 */
async function findRecent(
  { net, call, webUrl }: Flow,
  userId: string,
  request: Pick<LookupRequest, 'content' | 'mediaUrls' | 'profile'>,
  since: number,
  exclude: readonly string[] | undefined,
): Promise<LookupAnswer> {
  const from = since - CLOCK_SKEW_MS
  const wanted = normaliseCopy(request.content)
  const carousel = request.mediaUrls.length > 1
  const answer = await lookUpRecent<Record<string, unknown>>({
    where: `${net.label} account @${request.profile.username}'s posts`,
    readPage: async (cursor) => {
      const body = await net.call(call.graph, {
        ...call,
        method: 'GET',
        path: `/${userId}/${net.containerEdge}`,
        params: {
          fields: `id,${net.captionKey},timestamp,permalink,media_type`,
          limit: LOOKUP_PAGE_SIZE,
          ...(from > 0 ? { since: String(Math.floor(from / 1000)) } : {}),
          ...(cursor ? { after: cursor } : {}),
        },
        what: net.recentWhat,
      })
      const rows = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : []
      const paging = body.paging as { cursors?: { after?: unknown }; next?: unknown } | undefined
      const after = paging?.cursors?.after
      // Meta leaves `next` out on the last page, even when it still names an `after` cursor.
      return { rows, next: typeof paging?.next === 'string' && typeof after === 'string' ? after : undefined }
    },
    idOf: (row) => str(row.id),
    urlOf: (row) => str(row.permalink) ?? net.postUrl(webUrl, String(row.id)),
    isMatch: (row) =>
      normaliseCopy(str(row[net.captionKey]) ?? '') === wanted &&
      (row.media_type === undefined || (row.media_type === 'CAROUSEL_ALBUM') === carousel) &&
      timestampOf(row) >= from,
    distinctive: isDistinctive(request.content),
    exclude,
    isOlder: (row) => timestampOf(row) < from,
  })
  return toLookupAnswer(answer, (row) => ({
    remoteId: String(row.id),
    url: str(row.permalink) ?? net.postUrl(webUrl, String(row.id)),
  }))
}

/** A post's `timestamp` (`2026-03-02T12:00:00+0000`) as epoch ms; NaN when absent. */
function timestampOf(row: Record<string, unknown>): number {
  return typeof row.timestamp === 'string' ? Date.parse(row.timestamp.replace(/\+0000$/, 'Z')) : Number.NaN
}
