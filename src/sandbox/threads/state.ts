import { randomBytes } from 'node:crypto'
import {
  type FetchCheck,
  type MetaSimulatorOptions,
  MetaSimulatorState,
  numericId,
  sniff,
} from '../meta-common/state.js'
import { avatarUrlUnder } from '../web/avatar-png.js'
import { loadThreadsContract, type ThreadsContract } from './contract.js'

/**
 * The state of the Threads simulator: profiles, tokens (1-hour, then 60-day), containers moving
 * IN_PROGRESS → FINISHED / ERROR / EXPIRED → PUBLISHED, threads, the rolling 24-hour allowance of 250
 * posts, injected faults, and the "Meta fetcher" that really downloads every media URL it is given and
 * checks the bytes are an image (JPEG/PNG up to 8 MB) or a video (MP4/MOV).
 */

export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_insights',
  'threads_manage_replies',
] as const

const MB = 1024 * 1024

export interface ThreadsUser {
  id: string
  username: string
  name: string
  followers: number
}
export interface ThreadsToken {
  token: string
  userId: string
  scopes: string[]
  expiresAt: number
  longLived: boolean
  issuedAt: number
}
export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED'
export interface ThreadsContainer {
  id: string
  userId: string
  mediaType: 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL'
  url?: string
  children: string[]
  text: string
  linkAttachment?: string
  isCarouselItem: boolean
  createdAt: number
  /** Status polls left before a fetched video reports FINISHED. */
  pollsLeft: number
  fetch?: Promise<FetchCheck>
  check?: FetchCheck
  status: ContainerStatus
  threadId?: string
  /** `reply_to_id`: the thread this container answers when published. */
  replyToId?: string
  /** An image's or video's `alt_text`. */
  altText?: string
}
export interface ThreadsPost {
  id: string
  userId: string
  text: string
  mediaType: 'TEXT_POST' | 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM'
  shortcode: string
  linkAttachment?: string
  children: string[]
  createdAt: number
  /** The thread this one replies to (`reply_to_id` of its container). */
  replyToId?: string
}
export type FaultOp = 'threads' | 'threads_publish' | 'container_status' | 'insights' | 'token' | 'any'
export interface Fault {
  op: FaultOp
  /**
   * `error`: Meta's envelope instead of the work. `error_after`: do the work, then answer with the envelope
   * (a 500 after the thread went out). `drop_before` / `drop_after`: close the connection before or after
   * the work.
   */
  action: 'error' | 'error_after' | 'drop_before' | 'drop_after'
  code?: number
  subcode?: number
  status?: number
  message?: string
  /** How many calls in a row fail this way (default 1). */
  times?: number
}

export type { FetchCheck } from '../meta-common/state.js'

export interface ThreadsSandboxOptions extends MetaSimulatorOptions {
  /** Posts per profile per rolling 24 hours (default 250). */
  quotaTotal?: number
  /** Check every call against Meta's Threads collection (default: when the file is present). */
  contract?: ThreadsContract | false
}

export class ThreadsSandboxState extends MetaSimulatorState<ThreadsSandboxOptions, Fault> {
  readonly contract: ThreadsContract | undefined
  readonly users = new Map<string, ThreadsUser>()
  readonly tokens = new Map<string, ThreadsToken>()
  readonly codes = new Map<
    string,
    { userId: string; scopes: string[]; redirectUri: string; expiresAt: number }
  >()
  readonly containers = new Map<string, ThreadsContainer>()
  readonly threads = new Map<string, ThreadsPost>()
  /** Every API call with its parameters (tokens left out). */
  readonly calls: { method: string; path: string; params: Record<string, string> }[] = []

  constructor(options: ThreadsSandboxOptions) {
    super(options, 250)
    this.contract = options.contract === false ? undefined : (options.contract ?? loadThreadsContract())
  }

  /** The profile named `username`, made on first sight. */
  ensureUser(username: string): ThreadsUser {
    const handle = username.toLowerCase().replace(/[^a-z0-9._]/g, '')
    const existing = [...this.users.values()].find((u) => u.username === handle)
    if (existing) return existing
    const user: ThreadsUser = { id: numericId('2584'), username: handle, name: username, followers: 870 }
    this.users.set(user.id, user)
    return user
  }

  issueToken(userId: string, scopes: string[], ttlSeconds: number, longLived: boolean): ThreadsToken {
    const token: ThreadsToken = {
      token: `THQ${randomBytes(24).toString('base64url')}`,
      userId,
      scopes,
      longLived,
      issuedAt: this.now(),
      expiresAt: this.now() + ttlSeconds * 1000,
    }
    this.tokens.set(token.token, token)
    return token
  }

  issueCode(userId: string, scopes: string[], redirectUri: string): string {
    const code = `AQ${randomBytes(18).toString('base64url')}`
    this.codes.set(code, { userId, scopes, redirectUri, expiresAt: this.now() + 10 * 60_000 })
    return code
  }

  /** The token if it is known and not expired. */
  tokenInfo(token: string | undefined): ThreadsToken | undefined {
    const info = token ? this.tokens.get(token) : undefined
    return info && info.expiresAt > this.now() ? info : undefined
  }

  /** Where permalinks lead: the simulator's own pages when it knows its public address (sandbox mode). */
  /** A profile's picture: served by the simulator when it knows where it is reached, else a CDN-like address. */
  pictureUrl(id: string): string {
    return this.options.publicUrl
      ? avatarUrlUnder(this.webUrl(), id)
      : `https://scontent.cdninstagram.invalid/threads/${id}.jpg`
  }

  webUrl(): string {
    return this.webBase('', 'https://www.threads.com')
  }

  failNext(fault: Fault): void {
    for (let i = 0; i < (fault.times ?? 1); i++) this.faults.push({ ...fault, times: 1 })
  }

  /** The profile's own threads, newest first (replies are under `/me/replies` and `/{thread}/replies`). */
  threadsOf(userId: string): ThreadsPost[] {
    return [...this.threads.values()]
      .filter((t) => t.userId === userId && !t.replyToId)
      .sort((a, b) => b.createdAt - a.createdAt)
  }

  /** The profile's own replies, newest first (`/me/replies`). */
  repliesOf(userId: string): ThreadsPost[] {
    return [...this.threads.values()]
      .filter((t) => t.userId === userId && t.replyToId !== undefined)
      .sort((a, b) => b.createdAt - a.createdAt)
  }

  /** The thread that opens the conversation a reply belongs to (`root_post`). */
  rootOf(thread: ThreadsPost): ThreadsPost {
    let at = thread
    while (at.replyToId) {
      const parent = this.threads.get(at.replyToId)
      if (!parent) break
      at = parent
    }
    return at
  }

  /**
   * The Meta fetcher: downloads `url` as Meta's crawler would (no credentials, no redirects followed) and
   * checks the bytes. Recorded in {@link fetches}.
   */
  async fetchMedia(url: string, expect: 'image' | 'video'): Promise<FetchCheck> {
    let check: FetchCheck
    try {
      const response = await this.download(url)
      const { bytes, contentType } = response
      const { format } = sniff(bytes)
      check = {
        ok: response.status === 200,
        url,
        status: response.status,
        bytes: bytes.length,
        format,
        ...(contentType ? { contentType } : {}),
      }
      if (!check.ok)
        check.message = `The media could not be fetched from this URI: ${url} (HTTP ${response.status})`
      else if (expect === 'image' && format !== 'jpeg' && format !== 'png')
        Object.assign(check, { ok: false, message: 'The image format is not supported: use JPEG or PNG.' })
      else if (expect === 'image' && bytes.length > 8 * MB)
        Object.assign(check, { ok: false, message: 'The image is larger than 8 MB.' })
      else if (expect === 'video' && format !== 'mp4' && format !== 'mov')
        Object.assign(check, { ok: false, message: 'The video format is not supported: use MP4 or MOV.' })
      else if (expect === 'video' && bytes.length > 1024 * MB)
        Object.assign(check, { ok: false, message: 'The video is larger than 1 GB.' })
    } catch (error) {
      check = {
        ok: false,
        url,
        bytes: 0,
        message: `The media could not be fetched from this URI: ${url} (${(error as Error).message})`,
      }
    }
    this.fetches.push(check)
    return check
  }
}
