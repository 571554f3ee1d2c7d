import type { TikTokPrivacyLevel } from '../../core/tiktok-rules.js'
import type { FaultInjector } from '../fault-injector.js'

/**
 * The things the TikTok simulator holds, as TikTok's Login Kit, Content Posting API and Display API
 * describe them (reference A): creators, the apps that may sign them in, tokens, publish jobs and the posts
 * and inbox drafts they make.
 */

export const TIKTOK_SCOPES = [
  'user.info.basic',
  'user.info.profile',
  'user.info.stats',
  'video.publish',
  'video.upload',
  'video.list',
] as const

/** Why `creator_info/query` (and an init) says the creator cannot post now (reference A.4.1). */
export type CannotPost =
  | 'spam_risk_too_many_posts'
  | 'spam_risk_user_banned_from_posting'
  | 'reached_active_user_cap'

export interface TikTokUser {
  openId: string
  unionId: string
  username: string
  displayName: string
  avatarUrl: string
  /** A private account offers FOLLOWER_OF_CREATOR instead of PUBLIC_TO_EVERYONE. */
  privateAccount: boolean
  followers: number
  following: number
  likes: number
  commentsOff: boolean
  duetOff: boolean
  stitchOff: boolean
  maxVideoSeconds: number
  cannotPost?: CannotPost
}

export interface TikTokApp {
  clientKey: string
  clientSecret: string
  /** Until TikTok audits an app, everything it posts is private, and only private accounts may post. */
  audited: boolean
  /**
   * URL prefixes (`https://host/path/`) and domains (`host`, covering its subdomains) verified for
   * PULL_FROM_URL; any other media URL is `url_ownership_unverified`.
   */
  verified: string[]
}

export interface TikTokToken {
  token: string
  kind: 'access' | 'refresh'
  openId: string
  clientKey: string
  scopes: string[]
  expiresAt: number
}

export type PublishStatus =
  | 'PROCESSING_UPLOAD'
  | 'PROCESSING_DOWNLOAD'
  | 'SEND_TO_USER_INBOX'
  | 'PUBLISH_COMPLETE'
  | 'FAILED'

export interface UploadTask {
  uploadId: string
  uploadToken: string
  videoSize: number
  chunkSize: number
  totalChunkCount: number
  /** Bytes received so far, in order. */
  received: number
  /** The chunks' bytes, kept while the file is small enough for the web pages. */
  chunks?: Buffer[]
  contentType?: string
  /** The upload URL stops working an hour after init. */
  expiresAt: number
  /** PUTs received, failed ones included. */
  puts: number
}

export interface PublishJob {
  publishId: string
  openId: string
  clientKey: string
  kind: 'video' | 'photo'
  mode: 'DIRECT_POST' | 'MEDIA_UPLOAD'
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL'
  /** `post_info` as sent (empty for an inbox video). */
  postInfo: Record<string, unknown>
  photoUrls?: string[]
  upload?: UploadTask
  status: PublishStatus
  failReason: string
  /** Status polls left before a received upload or download reports its end. */
  pollsLeft: number
  downloaded: number
  postId?: string
  draftId?: string
  createdAt: number
}

export interface TikTokPost {
  /** An int64 above 2^53, as a string (TikTok sends it as a bare JSON number). */
  id: string
  openId: string
  publishId: string
  kind: 'video' | 'photo'
  title: string
  description: string
  privacyLevel: TikTokPrivacyLevel
  /** Epoch ms, distinct per post so a cursor never skips one. */
  createdAt: number
  /** When moderation let it be seen by others (public posts only); undefined until then, or never. */
  publicAt?: number
  disableComment: boolean
  disableDuet: boolean
  disableStitch: boolean
  brandContent: boolean
  brandOrganic: boolean
  durationSeconds: number
  mediaKeys: string[]
  counts: { views: number; likes: number; comments: number; shares: number }
}

/** A video or photo set waiting in the creator's TikTok inbox (an inbox upload). */
export interface InboxDraft {
  id: string
  openId: string
  publishId: string
  kind: 'video' | 'photo'
  title: string
  description: string
  createdAt: number
  mediaKeys: string[]
}

/** One media download of a PULL_FROM_URL job. */
export interface PullCheck {
  url: string
  ok: boolean
  status?: number
  bytes: number
  contentType?: string
  reason?: string
}

export interface TikTokSandboxOptions {
  prefix: string
  clock?: () => number
  /** The simulator's public address (`${PUBLIC_BASE_URL}${prefix}`): share URLs then name its web pages. */
  publicUrl?: string
  /** Asked about every call the simulator serves (see `installFaultHooks`). */
  faults?: FaultInjector
  /** Downloads PULL_FROM_URL media; defaults to the global fetch. */
  fetch?: typeof fetch
  /** Access token lifetime in seconds (default 7,200: the November 2026 pages). */
  accessTtlSeconds?: number
  /** Refresh token lifetime in seconds (default 15,552,000, 180 days). */
  refreshTtlSeconds?: number
  /** Status polls a job reports processing before its end (default 1). */
  processingPolls?: number
  /** How long moderation takes before a public post gets its id and is listed (ms, default 0). */
  moderationMs?: number
  /** Whether the built-in app is audited (default true). */
  audited?: boolean
}
