import { type FaultInjector, listedAt, refusesDuplicates } from '../fault-injector.js'
import { KeptMedia } from '../web/kept-media.js'
import { Faults, type SandboxEndpoint } from './faults.js'
import { type AccessGrant, OAuthGrants } from './grants.js'
import { type RenderedPost, tcoLink } from './text.js'

export type { InjectedFailure, SandboxEndpoint } from './faults.js'
export { defaultRateLimits, sandboxEndpoints } from './faults.js'
export type { AccessGrant, TokenSet } from './grants.js'

export type TwitterTier = 'standard' | 'premium'
/** Weighted characters per post: 280 on standard access, 25,000 for premium accounts (spec §8). */
export const textLimits: Record<TwitterTier, number> = { standard: 280, premium: 25_000 }

export type MediaKind = 'image' | 'gif' | 'video'
/** X's upload ceilings: image 5 MB, animated GIF 15 MB, video 512 MB. */
export const defaultMaxMediaBytes: Record<MediaKind, number> = {
  image: 5 * 1024 * 1024,
  gif: 15 * 1024 * 1024,
  video: 512 * 1024 * 1024,
}

/** Every scope X's OAuth 2.0 knows (OpenAPI `OAuth2UserToken`); the consent page refuses others. */
export const knownScopes = new Set([
  'block.read',
  'block.write',
  'bookmark.read',
  'bookmark.write',
  'dm.read',
  'dm.write',
  'follows.read',
  'follows.write',
  'like.read',
  'like.write',
  'list.read',
  'list.write',
  'media.write',
  'mute.read',
  'mute.write',
  'offline.access',
  'space.read',
  'tweet.moderate.write',
  'tweet.read',
  'tweet.write',
  'users.read',
])

export interface SandboxAccount {
  id: string
  username: string
  name: string
  tier: TwitterTier
  followersCount: number
  followingCount: number
  listedCount: number
  likeCount: number
  profileImageUrl: string
  createdAt: number
}

export interface SandboxClient {
  clientId: string
  /** Present for a confidential client, which must then authenticate with HTTP Basic. */
  clientSecret?: string
  /** `read` models an app whose access level does not permit writes: posting and uploads get 403. */
  access: 'read-write' | 'read'
}

export interface SandboxTweet {
  id: string
  /** The text as the author sent it. */
  text: string
  /** What X answers for it: t.co links, escaped `& < >`, a long post cut with its whole text in the note. */
  rendered: RenderedPost
  authorId: string
  username: string
  mediaIds: string[]
  clientId: string
  createdAt: number
  /** The post this one replies to (`reply.in_reply_to_tweet_id`), when it is a reply. */
  inReplyToId?: string
  /** The id of the conversation's first post (the post itself when it is not a reply). */
  conversationId: string
}

export interface SandboxMedia {
  id: string
  mediaKey: string
  ownerId: string
  mediaType: string
  category: string
  kind: MediaKind
  totalBytes: number
  segments: Map<number, number>
  /** The segments' bytes while the upload is open, for a file small enough to keep (see `kept`). */
  parts?: Map<number, Buffer>
  finalizedAt?: number
  /** Video and GIF are processed after FINALIZE; images are usable at once. */
  processed: boolean
  /** The alt text set by `POST /2/media/metadata`, when one was. */
  altText?: string
  processingFails: boolean
  createdAt: number
}

export interface StateOptions {
  clock: () => number
  processingDelayMs: number
  checkAfterSecs: number
  codeTtlMs: number
  accessTokenTtlSeconds: number
  rateLimitWindowMs: number
  rateLimits: Partial<Record<SandboxEndpoint, number>>
  maxMediaBytes: Partial<Record<MediaKind, number>>
  legacyFieldNames: boolean
  /** How long a new post takes to show in its author's timeline (`GET /2/users/:id/tweets`). */
  timelineLagMs: number
  /** The test's fault injector: its listing lag and duplicate-check switch apply here. */
  injector?: FaultInjector
  /** Where the simulator is reached from outside, for the pictures it serves. */
  publicUrl?: string
}

const TWITTER_EPOCH = 1288834974657n

/** Everything one sandbox instance remembers; nothing is shared between instances. */
export class TwitterSandboxState {
  readonly accounts = new Map<string, SandboxAccount>()
  readonly clients = new Map<string, SandboxClient>()
  readonly tweets = new Map<string, SandboxTweet>()
  readonly media = new Map<string, SandboxMedia>()
  /** The finalized uploads' bytes by media id, for the web pages. */
  readonly kept = new KeptMedia()
  readonly grants: OAuthGrants
  readonly faults: Faults
  private lastId = 0n
  private links = 0

  constructor(readonly options: StateOptions) {
    this.grants = new OAuthGrants(options)
    this.faults = new Faults(options)
  }

  now() {
    return this.options.clock()
  }

  /** True when a post made at `createdAt` shows in timelines yet (the injector's listing lag). */
  listed(createdAt: number): boolean {
    return listedAt(this.options.injector, 'twitter', createdAt, this.now())
  }

  /** False when the injector turned X's duplicate-content check off. */
  refusesDuplicates(): boolean {
    return refusesDuplicates(this.options.injector, 'twitter')
  }

  /** A decimal snowflake id of at most 19 digits, as X issues for users, posts and media; never repeats. */
  nextId(): string {
    const ms = BigInt(Math.max(0, Math.floor(this.now()))) - TWITTER_EPOCH
    const candidate = (ms > 0n ? ms : 0n) * 4194304n
    this.lastId = candidate > this.lastId ? candidate : this.lastId + 1n
    return this.lastId.toString()
  }

  /** A t.co link not handed out before by this simulator. */
  nextTco(): string {
    return tcoLink(++this.links)
  }

  reset() {
    this.accounts.clear()
    this.clients.clear()
    this.tweets.clear()
    this.media.clear()
    this.kept.clear()
    this.grants.reset()
    this.faults.reset()
  }

  // Accounts and clients

  findAccount(username: string): SandboxAccount | undefined {
    const wanted = username.replace(/^@/, '').toLowerCase()
    for (const account of this.accounts.values())
      if (account.username.toLowerCase() === wanted) return account
    return undefined
  }

  /** Creates the account, or updates the tier and counts of an existing one with that username. */
  upsertAccount(input: {
    username: string
    name?: string
    tier?: TwitterTier
    followersCount?: number
    followingCount?: number
  }): SandboxAccount {
    const username = input.username.replace(/^@/, '')
    const existing = this.findAccount(username)
    if (existing) {
      if (input.name !== undefined) existing.name = input.name
      if (input.tier !== undefined) existing.tier = input.tier
      if (input.followersCount !== undefined) existing.followersCount = input.followersCount
      if (input.followingCount !== undefined) existing.followingCount = input.followingCount
      return existing
    }
    const id = this.nextId()
    const account: SandboxAccount = {
      id,
      username,
      name: input.name ?? username,
      tier: input.tier ?? 'standard',
      followersCount: input.followersCount ?? 42,
      followingCount: input.followingCount ?? 7,
      listedCount: 1,
      likeCount: 3,
      profileImageUrl: `https://pbs.twimg.com/profile_images/${id}/avatar_normal.jpg`,
      createdAt: this.now(),
    }
    this.accounts.set(id, account)
    return account
  }

  /** A client seen for the first time is registered as a public read-write app (demo mode needs no setup). */
  client(clientId: string): SandboxClient {
    let client = this.clients.get(clientId)
    if (!client) {
      client = { clientId, access: 'read-write' }
      this.clients.set(clientId, client)
    }
    return client
  }

  registerClient(input: { clientId: string; clientSecret?: string; access?: SandboxClient['access'] }) {
    const client: SandboxClient = { clientId: input.clientId, access: input.access ?? 'read-write' }
    if (input.clientSecret) client.clientSecret = input.clientSecret
    this.clients.set(input.clientId, client)
    return client
  }

  /** The caller behind a bearer token, when the token is live and its account exists. */
  authenticate(token: string): { grant: AccessGrant; account: SandboxAccount } | undefined {
    const grant = this.grants.lookup(token)
    const account = grant && this.accounts.get(grant.userId)
    return grant && account ? { grant, account } : undefined
  }

  // Media

  maxBytes(kind: MediaKind): number {
    return this.options.maxMediaBytes[kind] ?? defaultMaxMediaBytes[kind]
  }

  receivedBytes(media: SandboxMedia): number {
    let total = 0
    for (const size of media.segments.values()) total += size
    return total
  }

  /** Where processing stands: pending at FINALIZE, in_progress until the delay passes, then done. */
  processingInfo(media: SandboxMedia) {
    if (media.finalizedAt === undefined) return undefined
    const elapsed = this.now() - media.finalizedAt
    const delay = this.options.processingDelayMs
    if (!media.processed || elapsed >= delay) {
      // v2.167's processing_info has no error member (additionalProperties: false), so none is sent.
      if (media.processingFails) return { state: 'failed', progress_percent: 100 }
      return { state: 'succeeded', progress_percent: 100 }
    }
    return {
      state: elapsed <= 0 ? 'pending' : 'in_progress',
      check_after_secs: this.options.checkAfterSecs,
      progress_percent: Math.floor((Math.max(0, elapsed) * 100) / Math.max(1, delay)),
    }
  }

  // Posts

  /**
   * Metrics that grow with the post's age, one step per minute on the sandbox clock, so readings taken
   * later are larger. Names follow the OpenAPI version the sandbox speaks (`repost_count` in v2.167,
   * `retweet_count` with `legacyFieldNames`).
   */
  tweetMetrics(tweet: SandboxTweet) {
    const minutes = Math.max(0, Math.floor((this.now() - tweet.createdAt) / 60_000))
    const reposts = 2 * minutes
    const likes = 3 * minutes
    const replies = minutes
    const quotes = Math.floor(minutes / 2)
    const bookmarks = Math.floor(minutes / 3)
    const impressions = 50 * minutes
    const linkClicks = 4 * minutes
    const profileClicks = minutes
    const repostName = this.options.legacyFieldNames ? 'retweet_count' : 'repost_count'
    return {
      public_metrics: {
        [repostName]: reposts,
        reply_count: replies,
        like_count: likes,
        quote_count: quotes,
        bookmark_count: bookmarks,
        impression_count: impressions,
      },
      non_public_metrics: {
        impression_count: impressions,
        url_link_clicks: linkClicks,
        user_profile_clicks: profileClicks,
        engagements: reposts + replies + likes + quotes + bookmarks + linkClicks + profileClicks,
      },
      organic_metrics: {
        impression_count: impressions,
        like_count: likes,
        reply_count: replies,
        retweet_count: reposts,
        url_link_clicks: linkClicks,
        user_profile_clicks: profileClicks,
      },
    }
  }

  postCount(userId: string): number {
    let count = 0
    for (const tweet of this.tweets.values()) if (tweet.authorId === userId) count++
    return count
  }
}
