import type { ResolvedGoogleBusiness } from '../core/googlebusiness-details.js'
import type { MastodonOptions } from '../core/mastodon-options.js'
import type { MediaItem, MediaPort } from '../core/media-port.js'
import type { Network } from '../core/networks.js'
import type { PinterestDetails } from '../core/pinterest-details.js'
import type { TikTokCreator, TikTokDetailsInput } from '../core/tiktok-rules.js'
import type { Logger } from '../platform/logger.js'

/**
 * The one interface between Herald and a social network. An adapter talks HTTP to the network's real
 * endpoints (base URLs injected, so tests and demo mode point it at `src/sandbox/`), never touches the
 * database, the queue or the environment, and reports every failure as a {@link PublishFailure} of one
 * closed set of kinds.
 */

/** How a failed network call should be treated. */
export const failureKinds = [
  /** The token is expired, revoked or lacks a scope: refresh once, then the connection needs reconnecting. */
  'auth_expired',
  /** The network throttled us; `resetAt` says when to try again. */
  'rate_limited',
  /** The network refused the content (too long, duplicate, wrong media, policy): retrying will not help. */
  'invalid_content',
  /** A failure before the request was accepted (connection refused, 5xx): safe to retry. */
  'transient',
  /** The request may or may not have taken effect (timeout after sending): never retried automatically. */
  'unknown_outcome',
] as const

export type FailureKind = (typeof failureKinds)[number]

export class PublishFailure extends Error {
  override name = 'PublishFailure'
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly options: {
      /** Epoch ms when a rate limit resets (rate_limited). */
      resetAt?: number
      /** The network's own error code, e.g. `quotaExceeded`, or an HTTP status as a string. */
      code?: string
      /** HTTP status of the network's answer, when there was one. */
      status?: number
    } = {},
  ) {
    super(message)
  }
}

/** Token material as the network issued it. Sealed by the vault before it is stored; never logged. */
export interface Credentials {
  accessToken: string
  refreshToken?: string
  /** Epoch ms when the access token expires; undefined when it does not. */
  expiresAt?: number
  /** Anything else the network needs later (Bluesky's PDS URL and DID, a page token, ...). */
  extra?: Record<string, string>
}

/** The profile a set of credentials acts as. */
export interface Profile {
  profileId: string
  username: string
  name: string
  isOrganization: boolean
  avatarUrl?: string
}

export interface YouTubeDetails {
  title?: string
  description?: string
  privacyStatus?: 'public' | 'unlisted' | 'private'
}

export type { MediaItem }

/**
 * The attachments of a request as media items, each with its alt text where one was given; `mediaUrls`
 * without alt texts where the caller gave no `media` (a request built before alt texts, or by a test).
 */
export const mediaOf = (request: { mediaUrls: readonly string[]; media?: readonly MediaItem[] }) =>
  request.media ?? request.mediaUrls.map((url): MediaItem => ({ url }))

/** The alt text of `url` in a request, when one was given. */
export const altTextOf = (request: { media?: readonly MediaItem[] }, url: string) =>
  request.media?.find((item) => item.url === url)?.altText

/** One target to publish: the copy and media already resolved for this profile. */
export interface PublishRequest {
  /** Herald's target id; stable across retries (used as an idempotency hint where a network accepts one). */
  targetId: string
  profile: Profile
  credentials: Credentials
  content: string
  mediaUrls: string[]
  /**
   * The same attachments as `mediaUrls`, in the same order, each with its alt text (`altText`) when one was
   * given. The worker always sets it; absent, the attachments have no alt text.
   */
  media?: MediaItem[]
  youtube?: YouTubeDetails
  /** What a Google Business Profile post is (an update, an event, an offer) and its button. */
  googlebusiness?: ResolvedGoogleBusiness
  /** What the TikTok poster chose (privacy level, switches, disclosure, draft). */
  tiktok?: TikTokDetailsInput
  /** A Pinterest target's title, link and video cover (the copy is the pin's description). */
  pinterest?: PinterestDetails
  /** A Mastodon status's visibility, content warning and language (absent elsewhere, and when none given). */
  mastodon?: MastodonOptions
  signal: AbortSignal
  /**
   * What an earlier attempt of this target recorded through `saveProgress` (a container id, an upload id),
   * or undefined on a first attempt. An adapter resumes from it instead of creating the work again: a Meta
   * container that exists is published, not re-created.
   */
  progress?: Record<string, string>
  /**
   * Records network-side work the moment it exists, before the next network call, so that a crash after
   * it leaves a trail. Merged into `progress`; the worker writes it to the target only while it holds the
   * lease, and rejects (the attempt must stop) when the lease was lost.
   */
  saveProgress?(progress: Record<string, string>): Promise<void>
}

/** What an adapter is given to look for a post whose publishing call went unanswered (an unknown outcome). */
export interface LookupRequest {
  targetId: string
  profile: Profile
  credentials: Credentials
  /** The copy that was sent (already resolved for this profile). */
  content: string
  mediaUrls: string[]
  /** The Google Business Profile details that were sent, on that network. */
  googlebusiness?: ResolvedGoogleBusiness
  /** What the TikTok poster chose: a lookup can only see what TikTok lists (public posts). */
  tiktok?: TikTokDetailsInput
  /** What a Pinterest attempt sent besides its copy (a pin is matched on its title and link too). */
  pinterest?: PinterestDetails
  /** Epoch ms when the unanswered attempt began: a match was created at or after it. */
  since: number
  /** What the attempt recorded through `saveProgress`. */
  progress?: Record<string, string>
  /** The Mastodon options the attempt sent (its content warning is part of what is matched). */
  mastodon?: MastodonOptions
  /**
   * Remote ids already held by other targets of the same connection: never a match, whatever their copy.
   */
  excludeRemoteIds?: readonly string[]
  signal: AbortSignal
}

/**
 * What a lookup concluded. `absent` is an answer with certainty (every post since the attempt was read and
 * none is ours); evidence that cannot decide (empty or non-distinctive copy, several candidates) is
 * `ambiguous`, with a reason a person can act on. A lookup that could not ask the network throws a
 * {@link PublishFailure} instead.
 */
export type LookupAnswer =
  | { kind: 'found'; result: PublishResult }
  | { kind: 'absent' }
  | { kind: 'ambiguous'; reason: string }

/**
 * One item delivered after a target's post (docs/adr/0017-threads-and-first-comments.md): a thread item, a
 * reply to the item before it, or a first comment, a comment on (or reply to) the post. Each is its own
 * network call, made once.
 */
export interface ItemRequest {
  targetId: string
  /** 0-based position among the target's items: stable across attempts (Bluesky derives its record key from it). */
  index: number
  role: 'thread' | 'firstComment'
  profile: Profile
  credentials: Credentials
  content: string
  mediaUrls: string[]
  /** The same attachments as `mediaUrls`, with their alt texts (see {@link PublishRequest.media}). */
  media?: MediaItem[]
  /** The target's own post. */
  root: { remoteId: string; url: string }
  /** What the item answers: the item before it (thread) or the post (first comment). */
  parent: { remoteId: string; url: string }
  /** The target's Mastodon options, which its items carry too (absent elsewhere). */
  mastodon?: MastodonOptions
  signal: AbortSignal
  /** What an earlier attempt of this item recorded (a Threads container), as for a target. */
  progress?: Record<string, string>
  /** Records the item's network-side work before the next call (see {@link PublishRequest.saveProgress}). */
  saveProgress?(progress: Record<string, string>): Promise<void>
}

/** What an adapter is given to look for an item whose call went unanswered: a reply found under its parent. */
export interface ItemLookupRequest extends ItemRequest {
  /** Epoch ms when the unanswered call was about to be made. */
  since: number
  /** Remote ids of the target's other items: never a match. */
  excludeRemoteIds: readonly string[]
}

export interface PublishResult {
  /** The network's id of the new post (tweet id, video id, at:// URI, ...). */
  remoteId: string
  /** Live URL of the published copy. */
  url: string
  /** A media upload that failed while the post still shipped (X rule 4): recorded on the target. */
  uploadError?: string
}

/** Spec §2 post analytics reading, before Herald stamps `fetchedAt`. */
export interface PostMetricsReading {
  summary: {
    views: number | null
    likes: number | null
    comments: number | null
    shares: number | null
    saves: number | null
    clicks: number | null
    engagements: number | null
  }
  metrics: Record<string, unknown>
  source: string
  error?: string
  unavailable?: boolean
}

/** A post reading's summary with no figures yet (every key present, every value null). */
export const emptyPostSummary = (): PostMetricsReading['summary'] => ({
  views: null,
  likes: null,
  comments: null,
  shares: null,
  saves: null,
  clicks: null,
  engagements: null,
})

/** Spec §2 profile analytics reading, before Herald stamps `fetchedAt`. */
export interface ProfileMetricsReading {
  summary: { followers: number | null; following: number | null; posts: number | null; views: number | null }
  metrics: Record<string, unknown>
  window: string
  source: string
  error?: string
  unavailable?: boolean
}

/**
 * One profile a grant can act as, for the choose-profiles page (a LinkedIn member and the pages they
 * administer; a Facebook user's Pages and the Instagram accounts linked to them).
 */
export interface GrantProfile {
  /** The network the profile publishes to (a Facebook grant also reaches `instagram` accounts). */
  network: Network
  profile: Profile
  /** The credentials that act as this profile (a Page's own token for a Facebook Page). */
  credentials: Credentials
  /** What the page calls it, in words: "Personal profile", "Page", "Instagram professional account". */
  kind: string
}

/** What the connect flow needs from an OAuth network. */
export interface OAuthFlow {
  /** Scopes requested, exactly as the network spells them. */
  scopes: readonly string[]
  /** The authorize URL for this state, PKCE S256 challenge and callback. */
  authorizeUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string
  /** Exchanges the callback code; `grantedScopes` as the network reported them. */
  exchangeCode(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<{
    credentials: Credentials
    grantedScopes: string[]
  }>
  /**
   * Present when one grant can act as several profiles: every profile it reaches, listed on the
   * choose-profiles page, each ticked one becoming its own connection. Absent: the grant is one profile
   * (`resolveProfile`).
   */
  listProfiles?(credentials: Credentials): Promise<GrantProfile[]>
}

export interface NetworkCapabilities {
  /** How many sends to this network may run at once in one worker. */
  concurrency: number
  /** Present when the network meters publishing against an app-wide daily quota (YouTube). */
  quota?: NetworkQuota
}

/**
 * An app-wide daily quota that Herald keeps its own ledger of (`quota_usage`), so a publish that would
 * exceed it is refused before any transfer. The worker reserves `unitsPerPublish` under `key` for
 * `dayOf(now)` with `reserveQuota` before calling publish; when the reservation fails it records
 * `exceeded(now)` instead of publishing; when publish fails and `spent(failure)` is false (the network's
 * metered call was never made) it releases the reservation.
 */
export interface NetworkQuota {
  /** `quota_usage.key`; one per network, because the quota belongs to the app, not a profile. */
  key: string
  unitsPerPublish: number
  dailyLimit: number
  /** The quota day an instant falls in (`quota_usage.day`). */
  dayOf(ms: number): string
  /** The failure to record when the day's quota would be exceeded (rate_limited, with its reset time). */
  exceeded(ms: number): PublishFailure
  /** Whether a failed publish consumed the network's quota. */
  spent(failure: PublishFailure): boolean
}

export interface NetworkAdapter {
  readonly network: Network
  readonly capabilities: NetworkCapabilities
  /** Present for networks connected through OAuth (absent for Bluesky's app passwords). */
  readonly oauth?: OAuthFlow
  /** New credentials from the refresh token; throws `auth_expired` when the network refuses. */
  refresh(credentials: Credentials): Promise<Credentials>
  /** The profile these credentials act as (called at connect time). */
  resolveProfile(credentials: Credentials): Promise<Profile>
  publish(request: PublishRequest): Promise<PublishResult>
  /**
   * Resolves an unknown outcome by asking the network: the post an unanswered attempt made (same copy,
   * created at or after `since`, among the profile's recent posts), `absent` when the network certainly
   * shows none, `ambiguous` when it cannot tell.
   * Throws a {@link PublishFailure} when the network could not be asked. Absent where the network offers
   * no way to look: such targets stay stuck until reset_stuck_post.
   */
  findPublished?(request: LookupRequest): Promise<LookupAnswer>
  /**
   * Publishes a thread item (a reply to `parent`) or a first comment (a comment on, or reply
   * to, the post). Absent where the network takes neither.
   */
  publishItem?(request: ItemRequest): Promise<PublishResult>
  /**
   * Resolves an item's unknown outcome by looking under its parent for a reply or comment with
   * the item's copy made since the call: found, absent with certainty, or ambiguous. Throws a
   * {@link PublishFailure} when the network could not be asked.
   */
  findItem?(request: ItemLookupRequest): Promise<LookupAnswer>
  /**
   * Present where the network meters posts per profile over a rolling window it reports (Instagram's
   * `content_publishing_limit`): posts used and allowed now, for preflight's "nearly used" warning.
   */
  publishingAllowance?(input: {
    credentials: Credentials
    profile: Profile
  }): Promise<{ used: number; total: number; windowHours: number } | undefined>
  /**
   * Present where the network says per creator what a post may choose, and requires it to be chosen
   * (TikTok's creator info: privacy levels, switches turned off, longest video). Read by preflight and
   * create_post; the adapter asks again before every post and honours the answer.
   */
  creatorOptions?(input: { credentials: Credentials; profile: Profile }): Promise<TikTokCreator>
  /**
   * Present while the network's app is limited in a way every post should be told of, without being
   * refused (TikTok before it audits the app: every post is private to the creator). Preflight warns
   * with it; the network apps page shows it.
   */
  readonly appLimit?: string
  /**
   * Present where the network documents an endpoint that withdraws a token Herald holds (the connection's
   * access stops working at the network, and the app leaves the person's connected apps where the network
   * ties the two). Called before Herald deletes a connection's tokens; resolves once the network confirmed,
   * throws a {@link PublishFailure} when it refused or could not be asked. Absent where the network offers
   * none: the person removes Herald in the network's settings.
   */
  revokeAccess?(credentials: Credentials, signal: AbortSignal): Promise<void>
  postMetrics(input: {
    credentials: Credentials
    profile: Profile
    remoteId: string
  }): Promise<PostMetricsReading>
  profileMetrics(input: { credentials: Credentials; profile: Profile }): Promise<ProfileMetricsReading>
}

/** What every adapter is built with. */
export interface AdapterDeps {
  /** fetch, injected so tests can observe and validate every request the adapter sends. */
  http: typeof fetch
  logger: Logger
  /** Epoch ms; injected for tests with a fake clock. */
  now(): number
  /** Sleeps (injected so processing waits do not slow tests). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
  /** Fetches and converts media; adapters never fetch user-supplied URLs themselves. */
  media: MediaPort
}
