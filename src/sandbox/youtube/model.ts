import type { Hash } from 'node:crypto'
import type { Clock } from '../../platform/clock.js'
import type { FaultInjector } from '../fault-injector.js'

/** The sandbox's options and the shapes of its world (accounts, channels, videos, uploads, faults). */

export const SCOPE = {
  upload: 'https://www.googleapis.com/auth/youtube.upload',
  readonly: 'https://www.googleapis.com/auth/youtube.readonly',
  youtube: 'https://www.googleapis.com/auth/youtube',
  forceSsl: 'https://www.googleapis.com/auth/youtube.force-ssl',
  partner: 'https://www.googleapis.com/auth/youtubepartner',
} as const

/** Scopes that authorise each operation: the discovery document's `scopes` lists of those methods. */
export const scopesFor = {
  'videos.insert': [SCOPE.upload, SCOPE.youtube, SCOPE.forceSsl, SCOPE.partner],
  'channels.list': [SCOPE.readonly, SCOPE.youtube, SCOPE.forceSsl, SCOPE.partner],
  'videos.list': [SCOPE.readonly, SCOPE.youtube, SCOPE.forceSsl, SCOPE.partner],
  // First comments: the discovery document lists youtube.force-ssl alone for both commentThreads methods.
  'commentThreads.insert': [SCOPE.forceSsl],
  'commentThreads.list': [SCOPE.forceSsl],
} as const

/** What Google's consent screen says for each scope (the discovery document's `auth.oauth2.scopes`). */
export const scopeDescriptions: Record<string, string> = {
  [SCOPE.upload]: 'Manage your YouTube videos',
  [SCOPE.readonly]: 'View your YouTube account',
  [SCOPE.youtube]: 'Manage your YouTube account',
  [SCOPE.forceSsl]: 'See, edit, and permanently delete your YouTube videos, ratings, comments and captions',
  [SCOPE.partner]: 'View and manage your assets and associated content on YouTube',
}

export interface YouTubeSandboxOptions {
  /** Where the routes are mounted, e.g. `/sandbox/google` ('' for the root). */
  prefix: string
  /**
   * Where the simulator is reached from outside (`{PUBLIC_BASE_URL}/sandbox/youtube`): a channel's thumbnail
   * is then served by the simulator itself, as YouTube serves it. Absent: a yt3-like address.
   */
  publicUrl?: string
  clock?: Clock
  /** Data API units per Pacific day for the whole app (default 10,000). */
  dailyQuota?: number
  /** Units one videos.insert costs (default 1,600). */
  uploadUnits?: number
  /** Videos one channel may upload per Pacific day before `uploadLimitExceeded` (default 15). */
  uploadLimitPerDay?: number
  /** When set, the token endpoint and the consent page accept only this OAuth client. */
  client?: { id: string; secret?: string }
  /** When set, redirect URIs must be one of these exactly (Google's registered redirect URIs). */
  redirectUris?: string[]
  /** An unaudited Google project: every upload is forced to private, as YouTube does. */
  unaudited?: boolean
  /** Largest upload accepted (default 256 GB, the discovery document's `maxSize`). */
  maxUploadBytes?: number
  /** Origin put in upload session `Location` headers; default: the request's own origin. */
  publicOrigin?: string
  /**
   * Asked about every call the simulator serves (see `youtubeCallKind`); default none. The
   * `/_sandbox/faults` queue keeps working beside it.
   */
  faults?: FaultInjector
}

export interface SandboxChannel {
  id: string
  title: string
  handle: string
  description: string
  thumbnailUrl: string
  subscriberCount: number
  hiddenSubscriberCount: boolean
  viewCount: number
  /** Videos that existed before the sandbox started; uploads add to it. */
  baseVideoCount: number
  publishedAt: string
}

export interface SandboxAccount {
  email: string
  name: string
  channel: SandboxChannel | null
}

export interface SandboxVideo {
  id: string
  channelId: string
  resource: Record<string, unknown> & { snippet: Record<string, unknown>; status: Record<string, unknown> }
  statistics: { viewCount: number; likeCount: number; commentCount: number; favoriteCount: number }
}

/** One completed upload, as the control surface lists it. */
export interface SandboxUpload {
  videoId: string
  channelId: string
  /** Bytes received on the session, counted as they streamed in. */
  bytes: number
  declaredLength: number | null
  contentType: string | null
  sha256: string
  /** The JSON body of the session POST, exactly as received. */
  metadata: unknown
  /** The `part` query parameter of the session POST. */
  part: string[]
  /** How many PUTs carried bytes (1 for a single transfer). */
  transfers: number
  receivedAt: number
}

export interface UploadSession {
  id: string
  email: string
  channelId: string
  metadata: Record<string, unknown>
  part: string[]
  declaredLength: number | null
  contentType: string | null
  received: number
  transfers: number
  hash: Hash
  /** The bytes received, while the file is small enough for the web pages to play (`kept`). */
  chunks?: Buffer[]
  videoId: string | null
  createdAt: number
}

export type FaultOp =
  | 'token'
  | 'channels.list'
  | 'videos.list'
  | 'videos.insert'
  | 'upload'
  | 'upload.status'
  | 'commentThreads.insert'
  | 'commentThreads.list'

/** A top-level comment (a comment thread) on a video: what a first comment makes. */
export interface SandboxComment {
  id: string
  videoId: string
  channelId: string
  text: string
  publishedAt: string
}

/**
 * A failure to inject into the next matching call(s):
 * - `error`: answer with Google's error body for `reason` (HTTP status from the table or `status`);
 * - `drop`: close the connection without answering (on `upload`, after `afterBytes` bytes arrived);
 * - `drop_after_complete` (`upload` only): take the whole file and create the video, then close the
 *   connection without answering, so only a status query can tell the client it worked.
 */
export interface Fault {
  op: FaultOp
  action: 'error' | 'drop' | 'drop_after_complete'
  reason?: string
  status?: number
  afterBytes?: number
  /** How many matching calls it applies to (default 1). */
  times?: number
}

export interface RequestRecord {
  op: FaultOp | 'authorize'
  method: string
  path: string
  at: number
  /** The grant type, for token calls. */
  grantType?: string
}

export interface TokenResponse {
  access_token: string
  expires_in: number
  refresh_token?: string
  scope: string
  token_type: 'Bearer'
}
