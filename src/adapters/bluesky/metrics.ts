import {
  type Credentials,
  emptyPostSummary,
  type PostMetricsReading,
  type ProfileMetricsReading,
  PublishFailure,
} from '../adapter.js'
import { parsePostUri } from './post.js'
import { sessionOf } from './session.js'
import type { Xrpc } from './xrpc.js'

/**
 * Counts come from Bluesky's AppView (`app.bsky.feed.getPosts`, `app.bsky.actor.getProfile`), reached
 * through the account's PDS, which proxies `app.bsky.*` reads to the AppView it is configured with.
 * A PDS without one (self-hosted for writing only, or the test PDS) cannot answer; that is a reading
 * with null numbers and an error saying so, not a thrown failure. Auth, rate-limit and transient
 * failures are thrown as usual so the caller can refresh or retry.
 */

const POSTS_SOURCE = 'app.bsky.feed.getPosts'
const PROFILE_SOURCE = 'app.bsky.actor.getProfile'

interface PostView {
  uri: string
  likeCount?: number
  repostCount?: number
  replyCount?: number
  quoteCount?: number
  bookmarkCount?: number
}

interface ProfileView {
  did: string
  followersCount?: number
  followsCount?: number
  postsCount?: number
}

const count = (value: unknown): number | null => (typeof value === 'number' ? value : null)

/**
 * The reading's error when the failure means the server has no such method to offer (an XRPC answer of
 * 501 or 404, or 400 InvalidRequest to a request Herald built well-formed, which is how a PDS without
 * an AppView answers: "No service configured for ..."); undefined for every other failure.
 */
function noCountsMessage(error: unknown, method: string, pdsUrl: string): string | undefined {
  if (!(error instanceof PublishFailure) || error.kind !== 'invalid_content') return undefined
  const { status, code } = error.options
  const unavailable =
    status === 501 ||
    status === 404 ||
    code === 'MethodNotImplemented' ||
    code === 'XRPCNotSupported' ||
    (status === 400 && code === 'InvalidRequest')
  if (!unavailable) return undefined
  return (
    `The Bluesky server ${new URL(pdsUrl).host} offers no counts: ${method} is not available there ` +
    `(counts come from an AppView, where the server offers them). ${error.message}`
  )
}

/** Post counts from a `postView` under Herald's summary names; Bluesky has no views or clicks. */
export function postReadingFrom(view: PostView): PostMetricsReading {
  const likes = count(view.likeCount)
  const reposts = count(view.repostCount)
  const replies = count(view.replyCount)
  const quotes = count(view.quoteCount)
  const bookmarks = count(view.bookmarkCount)
  const parts = [likes, reposts, replies, quotes, bookmarks].filter((n): n is number => n !== null)
  return {
    summary: {
      views: null,
      likes,
      comments: replies,
      shares: reposts === null && quotes === null ? null : (reposts ?? 0) + (quotes ?? 0),
      saves: bookmarks,
      clicks: null,
      engagements: parts.length > 0 ? parts.reduce((sum, n) => sum + n, 0) : null,
    },
    metrics: {
      likeCount: likes,
      repostCount: reposts,
      replyCount: replies,
      quoteCount: quotes,
      ...(bookmarks !== null ? { bookmarkCount: bookmarks } : {}),
    },
    source: POSTS_SOURCE,
  }
}

export async function readPostMetrics(
  xrpc: Xrpc,
  input: { credentials: Credentials; remoteId: string },
): Promise<PostMetricsReading> {
  const session = sessionOf(input.credentials)
  if (!parsePostUri(input.remoteId)) {
    return {
      summary: emptyPostSummary(),
      metrics: {},
      source: POSTS_SOURCE,
      error: `${input.remoteId} is not a Bluesky post URI`,
    }
  }
  let posts: PostView[]
  try {
    ;({ posts } = await xrpc<{ posts: PostView[] }>({
      service: session.pdsUrl,
      nsid: POSTS_SOURCE,
      params: { uris: [input.remoteId] },
      token: session.accessJwt,
    }))
  } catch (error) {
    const message = noCountsMessage(error, POSTS_SOURCE, session.pdsUrl)
    if (!message) throw error
    return { summary: emptyPostSummary(), metrics: {}, source: POSTS_SOURCE, error: message }
  }
  const view = posts?.find((post) => post.uri === input.remoteId)
  if (!view) {
    return {
      summary: emptyPostSummary(),
      metrics: {},
      source: POSTS_SOURCE,
      error: 'Bluesky returned no counts for this post: it was deleted or is not indexed yet',
    }
  }
  return postReadingFrom(view)
}

export function profileReadingFrom(view: ProfileView): ProfileMetricsReading {
  const followers = count(view.followersCount)
  const following = count(view.followsCount)
  const posts = count(view.postsCount)
  return {
    summary: { followers, following, posts, views: null },
    metrics: { followersCount: followers, followsCount: following, postsCount: posts },
    window: 'lifetime',
    source: PROFILE_SOURCE,
  }
}

export async function readProfileMetrics(
  xrpc: Xrpc,
  input: { credentials: Credentials },
): Promise<ProfileMetricsReading> {
  const session = sessionOf(input.credentials)
  try {
    const view = await xrpc<ProfileView>({
      service: session.pdsUrl,
      nsid: PROFILE_SOURCE,
      params: { actor: session.did },
      token: session.accessJwt,
    })
    return profileReadingFrom(view)
  } catch (error) {
    const message = noCountsMessage(error, PROFILE_SOURCE, session.pdsUrl)
    if (!message) throw error
    return {
      summary: { followers: null, following: null, posts: null, views: null },
      metrics: {},
      window: 'lifetime',
      source: PROFILE_SOURCE,
      error: message,
    }
  }
}
