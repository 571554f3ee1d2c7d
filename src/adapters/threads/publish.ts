import {
  type ItemLookupRequest,
  type ItemRequest,
  type LookupAnswer,
  type LookupRequest,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import { foundByKey, isDistinctive, lookUpRecent, normaliseCopy, toLookupAnswer } from '../lookup-scan.js'
import {
  type ContainerContext,
  type ContainerNetwork,
  findContainerPost,
  publishThroughContainers,
  readContainerAllowance,
  statusOfContainer,
} from '../meta/containers.js'
import type { GraphClient } from '../meta/graph.js'
import { callThreads, HOSTED_MEDIA_UNREACHABLE, isFetchFailure, isPropagationLag } from './errors.js'

/**
 * Publishing to a Threads profile (reference D.2), on graph.threads.net, through Meta's container flow
 * (`src/adapters/meta/containers.ts`):
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
 * through, so the thread is looked up among the profile's recent ones instead of posted again. Saved
 * carousel items are asked too, and made again when Meta gave up on them.
 */

export const POLL_MS = 2_000
export const POLL_LIMIT = 150
export const LAG_RETRIES = 5
export const LAG_WAIT_MS = 2_000
export const MAX_ITEMS = 20

export type ThreadsContext = ContainerContext

export const threadsUserIdOf = (request: {
  profile: { profileId: string }
  credentials: { extra?: Record<string, string> }
}) => request.credentials.extra?.threadsUserId || request.profile.profileId

/** The first http(s) URL in the copy: Threads shows it as the link preview. */
export function firstLink(text: string): string | undefined {
  const match = /\bhttps?:\/\/[^\s<>"']+/i.exec(text)
  return match ? match[0].replace(/[.,;:!?)\]]+$/, '') : undefined
}

const THREADS: ContainerNetwork = {
  network: 'threads',
  label: 'Threads',
  call: callThreads,
  containerEdge: 'threads',
  publishEdge: 'threads_publish',
  allowanceEdge: 'threads_publishing_limit',
  captionKey: 'text',
  noun: 'thread',
  status: { fields: 'id,status,error_message', codeKey: 'status', messageKey: 'error_message' },
  permalinkFields: 'id,permalink',
  recentWhat: "the profile's recent threads",
  pollMs: POLL_MS,
  pollLimit: POLL_LIMIT,
  recheckChildren: true,
  lag: {
    retries: LAG_RETRIES,
    waitMs: LAG_WAIT_MS,
    is: isPropagationLag,
    note: 'threads_publish answered code 24 (container not visible yet); retrying',
  },
  textContainer: (content, text) => ({ media_type: 'TEXT', text, link_attachment: firstLink(content) }),
  // An image's alt text goes as `alt_text` on its container, single or carousel item.
  single: (file, text, altText) =>
    file.kind === 'video'
      ? { params: { media_type: 'VIDEO', video_url: file.publicUrl, text }, what: 'the video container' }
      : {
          params: { media_type: 'IMAGE', image_url: file.publicUrl, text, alt_text: altText },
          what: 'the image container',
        },
  item: (file, altText) =>
    file.kind === 'video'
      ? { media_type: 'VIDEO', video_url: file.publicUrl }
      : { media_type: 'IMAGE', image_url: file.publicUrl, alt_text: altText },
  profileUrl: (web, username) => `${web}/@${username}`,
  postUrl: (web, id) => `${web}/post/${id}`,
  messages: {
    publishedNotFound: 'Threads says the container was published but the thread was not found yet',
    processingFailed: (message) =>
      isFetchFailure(message)
        ? `${HOSTED_MEDIA_UNREACHABLE} (${message})`
        : `Threads could not process the post${message ? `: ${message}` : ''}`,
    expired: 'The Threads container expired (24 hours) before it was published; a new one is made on retry',
    stopped: 'Publishing to Threads was stopped while it waited',
  },
}

export async function publishToThreads(ctx: ThreadsContext, request: PublishRequest): Promise<PublishResult> {
  if (request.mediaUrls.length > MAX_ITEMS)
    throw new PublishFailure('invalid_content', `Threads takes at most ${MAX_ITEMS} items in a carousel`)
  if (request.mediaUrls.length === 0 && request.content.trim() === '')
    throw new PublishFailure('invalid_content', 'A Threads post needs text or media')
  return publishThroughContainers(THREADS, ctx, request, threadsUserIdOf(request))
}

/** `threads_publishing_limit`: posts used and allowed in the rolling 24 hours. */
export const readAllowance = (call: { graph: GraphClient; token: string }, userId: string) =>
  readContainerAllowance(THREADS, call, userId)

/** Resolves an unanswered `threads_publish` (see {@link findContainerPost}). */
export const findThreadsPost = (ctx: ThreadsContext, request: LookupRequest): Promise<LookupAnswer> =>
  findContainerPost(THREADS, ctx, request, threadsUserIdOf(request))

/**
 * A thread item or first comment on Threads is a thread whose container names the post it
 * answers (`reply_to_id`), published like any other (container, status, `threads_publish`), its container
 * id saved as the item's progress so a retry publishes that container instead of making another. A saved
 * container Meta already reports `PUBLISHED` is looked for among the profile's replies (a reply is never
 * listed with its threads).
 */
export async function publishThreadsReply(ctx: ThreadsContext, request: ItemRequest): Promise<PublishResult> {
  if (request.mediaUrls.length > MAX_ITEMS)
    throw new PublishFailure('invalid_content', `Threads takes at most ${MAX_ITEMS} items in a carousel`)
  if (request.mediaUrls.length === 0 && request.content.trim() === '')
    throw new PublishFailure('invalid_content', 'A Threads reply needs text or media')
  const net: ContainerNetwork = {
    ...THREADS,
    containerExtra: { reply_to_id: request.parent.remoteId },
    findPublished: () => findOwnReply(ctx, request, undefined, [request.root.remoteId]),
  }
  return publishThroughContainers(net, ctx, request as unknown as PublishRequest, threadsUserIdOf(request))
}

/**
 * An unanswered reply is resolved by its container (never published: absent, and the retry
 * publishes it) and otherwise looked for among the profile's own replies since the call.
 */
export async function findThreadsReply(
  ctx: ThreadsContext,
  request: ItemLookupRequest,
): Promise<LookupAnswer> {
  if (request.progress?.published)
    return foundByKey(
      { remoteId: request.progress.published, url: THREADS.postUrl(ctx.webUrl, request.progress.published) },
      request.excludeRemoteIds,
    )
  const container = request.progress?.container
  if (!container) return { kind: 'absent' }
  const { code } = await statusOfContainer(
    THREADS,
    ctx,
    request.credentials.accessToken,
    container,
    request.signal,
  )
  if (code !== 'PUBLISHED') return { kind: 'absent' }
  const answer = await findOwnReply(ctx, request, request.since, [
    request.root.remoteId,
    ...request.excludeRemoteIds,
  ])
  if (answer.kind === 'absent')
    throw new PublishFailure('unknown_outcome', THREADS.messages.publishedNotFound)
  return answer
}

/** Replies read per page of the profile's replies. */
const REPLIES_PAGE_SIZE = 100
/** How far Threads' clock may be behind Herald's when a reply is looked up. */
const REPLY_CLOCK_SLACK_MS = 2 * 60_000

/**
 * The profile's reply to the item's parent with the item's copy, among the profile's own replies
 * (`GET /{threads-user-id}/replies`, newest first, from `since` less a clock margin when given, page after
 * page with `after`): one match is found, several or copy that says nothing ambiguous, none absent. Replies
 * to other posts and other people's replies never match.
 */
async function findOwnReply(
  ctx: ThreadsContext,
  request: Pick<ItemRequest, 'profile' | 'credentials' | 'parent' | 'content' | 'signal'>,
  since: number | undefined,
  exclude: readonly string[],
): Promise<LookupAnswer> {
  const from = since === undefined ? undefined : since - REPLY_CLOCK_SLACK_MS
  const wanted = normaliseCopy(request.content)
  const timeOf = (row: Record<string, unknown>) =>
    typeof row.timestamp === 'string' ? Date.parse(row.timestamp.replace(/\+0000$/, 'Z')) : Number.NaN
  const url = (row: Record<string, unknown>) =>
    typeof row.permalink === 'string' ? row.permalink : THREADS.postUrl(ctx.webUrl, String(row.id))
  const answer = await lookUpRecent<Record<string, unknown>>({
    where: `@${request.profile.username}'s replies on Threads`,
    readPage: async (cursor) => {
      const body = await callThreads(ctx.graph, {
        method: 'GET',
        path: `/${threadsUserIdOf(request)}/replies`,
        params: {
          fields: 'id,text,timestamp,permalink,replied_to',
          limit: String(REPLIES_PAGE_SIZE),
          ...(from !== undefined ? { since: String(Math.floor(from / 1000)) } : {}),
          ...(cursor ? { after: cursor } : {}),
        },
        token: request.credentials.accessToken,
        signal: request.signal,
        what: "the profile's replies",
      })
      const rows = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : []
      const paging = body.paging as { cursors?: { after?: unknown }; next?: unknown } | undefined
      const after = paging?.cursors?.after
      // Meta leaves `next` out on the last page, even when it still names an `after` cursor.
      return { rows, next: typeof paging?.next === 'string' && typeof after === 'string' ? after : undefined }
    },
    idOf: (row) => (typeof row.id === 'string' ? row.id : undefined),
    urlOf: url,
    isMatch: (row) =>
      (row.replied_to as { id?: unknown } | undefined)?.id === request.parent.remoteId &&
      normaliseCopy(typeof row.text === 'string' ? row.text : '') === wanted,
    distinctive: isDistinctive(request.content),
    exclude,
    isOlder: (row) => from !== undefined && timeOf(row) < from,
  })
  return toLookupAnswer(answer, (row) => ({ remoteId: String(row.id), url: url(row) }))
}
