import type { AdapterDeps } from '../adapter.js'
import {
  type LookupAnswer,
  type LookupRequest,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import {
  type ContainerNetwork,
  findContainerPost,
  publishThroughContainers,
  readContainerAllowance,
} from '../meta/containers.js'
import { callGraph, type GraphClient } from '../meta/graph.js'

/**
 * Publishing to an Instagram professional account (reference C.2), on graph.facebook.com for accounts
 * connected through Facebook Login and graph.instagram.com for Instagram Login, through Meta's container
 * flow (`src/adapters/meta/containers.ts`):
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
 * A retry with a saved container asks its status first: `PUBLISHED` means the earlier attempt went
 * through, so the media is looked up among the account's recent ones; saved carousel items are reused.
 */

export const POLL_MS = 3_000
export const POLL_LIMIT = 200
const MAX_ITEMS = 10

export interface InstagramContext {
  /** graph.facebook.com (Facebook Login). */
  facebook: GraphClient
  /** graph.instagram.com (Instagram Login). */
  instagram: GraphClient
  deps: AdapterDeps
  /** Where people see posts (www.instagram.com; the simulator's pages in sandbox mode). */
  webUrl: string
}

/** The Graph host these credentials belong to. */
export const graphFor = (
  ctx: InstagramContext,
  credentials: { extra?: Record<string, string> },
): GraphClient => (credentials.extra?.host === 'instagram' ? ctx.instagram : ctx.facebook)

export const igUserIdOf = (request: {
  profile: { profileId: string }
  credentials: { extra?: Record<string, string> }
}) => request.credentials.extra?.igUserId ?? request.profile.profileId

const INSTAGRAM: ContainerNetwork = {
  network: 'instagram',
  label: 'Instagram',
  call: callGraph,
  containerEdge: 'media',
  publishEdge: 'media_publish',
  allowanceEdge: 'content_publishing_limit',
  captionKey: 'caption',
  noun: 'media',
  status: { fields: 'status_code,status', codeKey: 'status_code', messageKey: 'status' },
  permalinkFields: 'permalink',
  recentWhat: "the account's recent media",
  pollMs: POLL_MS,
  pollLimit: POLL_LIMIT,
  recheckChildren: false,
  single: (file, caption, altText) =>
    file.kind === 'video'
      ? {
          params: { media_type: 'REELS', video_url: file.publicUrl, caption, share_to_feed: true },
          what: 'the Reel container',
        }
      : { params: { image_url: file.publicUrl, caption, alt_text: altText }, what: 'the image container' },
  // `alt_text` is taken on image containers only (not Reels or stories), at most 1,000 characters.
  item: (file, altText) =>
    file.kind === 'video'
      ? { media_type: 'VIDEO', video_url: file.publicUrl }
      : { image_url: file.publicUrl, alt_text: altText },
  profileUrl: (web, username) => `${web}/${username}/`,
  postUrl: (web, id) => `${web}/p/${id}/`,
  messages: {
    publishedNotFound: 'Instagram says the container was published but its media was not found yet',
    processingFailed: (status) => `Instagram could not process the media${status ? `: ${status}` : ''}`,
    expired: 'The Instagram container expired before it was published; a new one is made on retry',
    stopped: 'Publishing to Instagram was stopped while the media processed',
  },
}

export async function publishToInstagram(
  ctx: InstagramContext,
  request: PublishRequest,
): Promise<PublishResult> {
  if (request.mediaUrls.length === 0)
    throw new PublishFailure('invalid_content', 'Instagram requires media: add an image or a video')
  if (request.mediaUrls.length > MAX_ITEMS)
    throw new PublishFailure('invalid_content', `Instagram takes at most ${MAX_ITEMS} items in a carousel`)
  const graph = graphFor(ctx, request.credentials)
  return publishThroughContainers(
    INSTAGRAM,
    { graph, deps: ctx.deps, webUrl: ctx.webUrl },
    request,
    igUserIdOf(request),
  )
}

/** `content_publishing_limit`: posts used and allowed in the rolling 24 hours. */
export const readAllowance = (call: { graph: GraphClient; token: string }, igUserId: string) =>
  readContainerAllowance(INSTAGRAM, call, igUserId)

/** Resolves an unanswered `media_publish` (see {@link findContainerPost}). */
export async function findInstagramPost(
  ctx: InstagramContext,
  request: LookupRequest,
): Promise<LookupAnswer> {
  const graph = graphFor(ctx, request.credentials)
  return findContainerPost(
    INSTAGRAM,
    { graph, deps: ctx.deps, webUrl: ctx.webUrl },
    request,
    igUserIdOf(request),
  )
}
