import { createHash, randomBytes, randomInt } from 'node:crypto'
import type { TikTokPrivacyLevel } from '../../core/tiktok-rules.js'
import { listedAt } from '../fault-injector.js'
import { KEPT_MEDIA_MAX_BYTES, KeptMedia, sniffContentType } from '../web/kept-media.js'
import type {
  InboxDraft,
  PublishJob,
  PullCheck,
  TikTokApp,
  TikTokPost,
  TikTokSandboxOptions,
  TikTokToken,
  TikTokUser,
  UploadTask,
} from './model.js'

/**
 * The in-memory world of the TikTok simulator: creators and their posting settings, the apps that may
 * sign them in (the built-in one, audited unless told otherwise), OAuth codes and rotating refresh tokens,
 * publish jobs (FILE_UPLOAD's chunked upload, PULL_FROM_URL's download), and the posts and inbox drafts
 * they end in. No HTTP here: the routes call these methods, and so can tests.
 */

export const SANDBOX_CLIENT_KEY = 'herald-sandbox'
export const SANDBOX_CLIENT_SECRET = 'herald-sandbox-secret'
const MINUTE = 60_000
const HOUR = 60 * MINUTE

/** Request budgets per minute (reference A.7): per user token, or per app for the Display API reads. */
export const RATE_LIMITS = {
  init: 6,
  status: 30,
  creator: 20,
  display: 600,
} as const

export class TikTokSandboxState {
  readonly prefix: string
  readonly options: TikTokSandboxOptions
  readonly users = new Map<string, TikTokUser>()
  readonly apps = new Map<string, TikTokApp>()
  readonly codes = new Map<
    string,
    {
      openId: string
      clientKey: string
      scopes: string[]
      redirectUri: string
      challenge?: string
      expiresAt: number
    }
  >()
  readonly tokens = new Map<string, TikTokToken>()
  readonly jobs = new Map<string, PublishJob>()
  readonly posts = new Map<string, TikTokPost>()
  readonly drafts = new Map<string, InboxDraft>()
  readonly pulls: PullCheck[] = []
  /** Requests that did not match TikTok's published shape (answered `invalid_params`). */
  readonly violations: string[] = []
  /** Every API call, tokens left out. */
  readonly calls: Array<{ method: string; path: string; at: number }> = []
  readonly kept = new KeptMedia()
  private readonly windows = new Map<string, number[]>()
  private lastCreatedAt = 0
  /** Status polls a job reports processing before its end (tests set 0 to skip the wait). */
  processingPolls: number

  constructor(options: TikTokSandboxOptions) {
    this.options = options
    this.prefix = options.prefix.replace(/\/+$/, '')
    this.processingPolls = options.processingPolls ?? 1
    this.apps.set(SANDBOX_CLIENT_KEY, {
      clientKey: SANDBOX_CLIENT_KEY,
      clientSecret: SANDBOX_CLIENT_SECRET,
      audited: options.audited ?? true,
      verified: options.publicUrl ? [new URL(options.publicUrl).hostname] : [],
    })
  }

  now(): number {
    return this.options.clock?.() ?? Date.now()
  }

  get accessTtlSeconds(): number {
    return this.options.accessTtlSeconds ?? 7_200
  }

  get refreshTtlSeconds(): number {
    return this.options.refreshTtlSeconds ?? 180 * 24 * 3_600
  }

  /** Where share URLs lead: the simulator's own pages when it knows its public address. */
  webUrl(): string {
    return this.options.publicUrl
      ? `${this.options.publicUrl.replace(/\/+$/, '')}/web`
      : 'https://www.tiktok.com'
  }

  /** The creator named `username` (letters, digits, `.` and `_`), made on first sight. */
  ensureUser(username: string): TikTokUser {
    const handle =
      username
        .toLowerCase()
        .replace(/[^a-z0-9._]/g, '')
        .slice(0, 24) || 'creator'
    const found = [...this.users.values()].find((user) => user.username === handle)
    if (found) return found
    const openId = `-000${createHash('sha256').update(`open:${handle}`).digest('hex').slice(0, 28)}`
    const user: TikTokUser = {
      openId,
      unionId: `c9${createHash('sha256').update(`union:${handle}`).digest('hex').slice(0, 30)}`,
      username: handle,
      displayName: username.trim() || handle,
      avatarUrl: `https://p16-sign.tiktokcdn.example/${handle}~c5_168x168.jpeg`,
      privateAccount: false,
      followers: 1_520,
      following: 180,
      likes: 24_300,
      commentsOff: false,
      duetOff: false,
      stitchOff: false,
      maxVideoSeconds: 600,
    }
    this.users.set(openId, user)
    return user
  }

  /** What the creator may choose (reference A.4.1): public accounts and private ones differ in one level. */
  privacyLevelsOf(user: TikTokUser): TikTokPrivacyLevel[] {
    return user.privateAccount
      ? ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']
      : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']
  }

  // OAuth

  issueCode(input: {
    openId: string
    clientKey: string
    scopes: string[]
    redirectUri: string
    challenge?: string
  }): string {
    const code = `code_${randomBytes(18).toString('base64url')}`
    this.codes.set(code, { ...input, expiresAt: this.now() + 5 * MINUTE })
    return code
  }

  /** A new access token and refresh token for a grant: the pair TikTok's token endpoint answers. */
  issuePair(openId: string, clientKey: string, scopes: string[]) {
    const now = this.now()
    const access: TikTokToken = {
      token: `act.${randomBytes(24).toString('base64url')}`,
      kind: 'access',
      openId,
      clientKey,
      scopes,
      expiresAt: now + this.accessTtlSeconds * 1000,
    }
    const refresh: TikTokToken = {
      ...access,
      token: `rft.${randomBytes(24).toString('base64url')}`,
      kind: 'refresh',
      expiresAt: now + this.refreshTtlSeconds * 1000,
    }
    this.tokens.set(access.token, access)
    this.tokens.set(refresh.token, refresh)
    return {
      access_token: access.token,
      expires_in: this.accessTtlSeconds,
      open_id: openId,
      refresh_expires_in: this.refreshTtlSeconds,
      refresh_token: refresh.token,
      scope: scopes.join(','),
      token_type: 'Bearer',
    }
  }

  /** A live token of `kind`; undefined when unknown, expired or revoked. */
  tokenOf(token: string | undefined, kind: TikTokToken['kind']): TikTokToken | undefined {
    const found = token ? this.tokens.get(token) : undefined
    return found && found.kind === kind && found.expiresAt > this.now() ? found : undefined
  }

  /** Every token of the grant (the user removed the app, or an access token was revoked). */
  revokeGrant(openId: string, clientKey: string): number {
    let n = 0
    for (const [key, token] of this.tokens)
      if (token.openId === openId && token.clientKey === clientKey) {
        this.tokens.delete(key)
        n++
      }
    return n
  }

  // Rate limits

  /** Counts a request against a per-minute budget; false (nothing counted) when the budget is spent. */
  allow(key: string, limit: number): boolean {
    const since = this.now() - MINUTE
    const recent = (this.windows.get(key) ?? []).filter((at) => at > since)
    if (recent.length >= limit) {
      this.windows.set(key, recent)
      return false
    }
    recent.push(this.now())
    this.windows.set(key, recent)
    return true
  }

  /** Every per-minute budget full again, as a minute later (tests that post more than TikTok allows a minute). */
  refillBudgets(): void {
    this.windows.clear()
  }

  /** Spends a budget, as if `count` requests had just been made (tests of the 429 path). */
  spend(key: string, count: number): void {
    this.windows.set(key, [
      ...(this.windows.get(key) ?? []),
      ...Array.from({ length: count }, () => this.now()),
    ])
  }

  // Publish jobs

  newJob(
    input: Omit<PublishJob, 'publishId' | 'status' | 'failReason' | 'pollsLeft' | 'downloaded' | 'createdAt'>,
  ) {
    const id = bigId()
    const prefix =
      input.kind === 'video'
        ? input.mode === 'DIRECT_POST'
          ? 'v_pub_file~v2-1.'
          : 'v_inbox_file~v2.'
        : input.mode === 'DIRECT_POST'
          ? 'p_pub_url~v2.'
          : 'p_inbox_url~v2.'
    const job: PublishJob = {
      ...input,
      publishId: `${prefix}${id}`,
      status: input.source === 'FILE_UPLOAD' ? 'PROCESSING_UPLOAD' : 'PROCESSING_DOWNLOAD',
      failReason: '',
      pollsLeft: this.processingPolls,
      downloaded: 0,
      createdAt: this.now(),
    }
    this.jobs.set(job.publishId, job)
    return job
  }

  newUpload(size: { videoSize: number; chunkSize: number; totalChunkCount: number }): UploadTask {
    return {
      ...size,
      uploadId: bigId(),
      uploadToken: randomBytes(16).toString('hex'),
      received: 0,
      ...(size.videoSize <= KEPT_MEDIA_MAX_BYTES ? { chunks: [] } : {}),
      expiresAt: this.now() + HOUR,
      puts: 0,
    }
  }

  jobOfUpload(uploadId: string): PublishJob | undefined {
    return [...this.jobs.values()].find((job) => job.upload?.uploadId === uploadId)
  }

  /**
   * The job has all its media: a direct post becomes a post, an inbox upload a draft in the creator's
   * inbox. Made at once (what the network holds from here on); the status polls report the end after
   * {@link PublishJob.pollsLeft} more polls.
   */
  finishMedia(job: PublishJob, mediaKeys: string[]): void {
    const user = this.users.get(job.openId)
    const app = this.apps.get(job.clientKey)
    const title = String(job.postInfo.title ?? '')
    const description = String(job.postInfo.description ?? '')
    if (job.mode === 'MEDIA_UPLOAD') {
      const draft: InboxDraft = {
        id: bigId(),
        openId: job.openId,
        publishId: job.publishId,
        kind: job.kind,
        title,
        description,
        createdAt: this.now(),
        mediaKeys,
      }
      this.drafts.set(draft.id, draft)
      job.draftId = draft.id
      return
    }
    const asked = String(job.postInfo.privacy_level) as TikTokPrivacyLevel
    // Everything an unaudited app posts is private to the creator.
    const privacyLevel: TikTokPrivacyLevel = app?.audited === false ? 'SELF_ONLY' : asked
    const post: TikTokPost = {
      id: bigId(),
      openId: job.openId,
      publishId: job.publishId,
      kind: job.kind,
      title,
      description,
      privacyLevel,
      createdAt: this.distinctNow(),
      disableComment: job.postInfo.disable_comment === true || user?.commentsOff === true,
      disableDuet: job.postInfo.disable_duet === true || user?.duetOff === true,
      disableStitch: job.postInfo.disable_stitch === true || user?.stitchOff === true,
      brandContent: job.postInfo.brand_content_toggle === true,
      brandOrganic: job.postInfo.brand_organic_toggle === true,
      durationSeconds: 0,
      mediaKeys,
      counts: { views: 0, likes: 0, comments: 0, shares: 0 },
    }
    if (privacyLevel === 'PUBLIC_TO_EVERYONE')
      post.publicAt = post.createdAt + (this.options.moderationMs ?? 0)
    this.posts.set(post.id, post)
    job.postId = post.id
  }

  /** The media of a finished upload, kept for the web pages under the job's id. */
  keepUpload(job: PublishJob): string[] {
    const upload = job.upload
    if (!upload?.chunks) return []
    const bytes = Buffer.concat(upload.chunks)
    delete upload.chunks
    return this.kept.keep(job.publishId, sniffContentType(bytes, upload.contentType ?? 'video/mp4'), bytes)
      ? [job.publishId]
      : []
  }

  /**
   * TikTok's download of a PULL_FROM_URL job: each URL fetched as TikTok's ingress would (no credentials,
   * no redirects), checked to be a JPEG or WebP photo of at most 20 MB, kept for the web pages.
   */
  async pull(job: PublishJob): Promise<{ keys: string[]; failed?: string }> {
    const keys: string[] = []
    for (const [index, url] of (job.photoUrls ?? []).entries()) {
      const { check, bytes } = await this.download(url)
      this.pulls.push(check)
      if (!check.ok) return { keys, failed: 'photo_pull_failed' }
      if (check.contentType !== 'image/jpeg' && check.contentType !== 'image/webp')
        return { keys, failed: 'file_format_check_failed' }
      const key = `${job.publishId}.${index}`
      if (this.kept.keep(key, check.contentType, bytes)) keys.push(key)
      job.downloaded += check.bytes
    }
    return { keys }
  }

  private async download(url: string): Promise<{ check: PullCheck; bytes: Buffer }> {
    const http =
      this.options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => fetch(input, init))
    try {
      const response = await http(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) })
      const bytes = Buffer.from(await response.arrayBuffer())
      const contentType = sniffContentType(bytes, response.headers.get('content-type') ?? '')
      const ok = response.status === 200 && bytes.length > 0 && bytes.length <= 20 * 1024 * 1024
      const check: PullCheck = { url, ok, status: response.status, bytes: bytes.length, contentType }
      if (!ok) check.reason = `HTTP ${response.status}, ${bytes.length} bytes`
      return { check, bytes }
    } catch (error) {
      return { check: { url, ok: false, bytes: 0, reason: (error as Error).message }, bytes: Buffer.alloc(0) }
    }
  }

  /** True when `url` is under one of the app's verified prefixes or domains (reference A.4.6). */
  verifiedFor(app: TikTokApp, url: string): boolean {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return false
    }
    return app.verified.some((entry) =>
      entry.includes('/')
        ? url.startsWith(entry)
        : parsed.hostname === entry || parsed.hostname.endsWith(`.${entry}`),
    )
  }

  /** The creator's posts others can see, newest first, as the Display API lists them. */
  listed(openId: string): TikTokPost[] {
    const now = this.now()
    return [...this.posts.values()]
      .filter(
        (post) =>
          post.openId === openId &&
          post.publicAt !== undefined &&
          post.publicAt <= now &&
          listedAt(this.options.faults, 'tiktok', post.createdAt, now),
      )
      .sort((a, b) => b.createdAt - a.createdAt)
  }

  /** An epoch ms later than every post's so far, so cursors (ms) never fall between two posts. */
  private distinctNow(): number {
    this.lastCreatedAt = Math.max(this.now(), this.lastCreatedAt + 1)
    return this.lastCreatedAt
  }

  /** The share URL of a post, as the Display API gives it. */
  shareUrl(post: TikTokPost): string {
    const user = this.users.get(post.openId)
    return `${this.webUrl()}/@${user?.username ?? 'tiktok'}/${post.kind === 'photo' ? 'photo' : 'video'}/${post.id}`
  }
}

/** A 19-digit id above 2^53, as TikTok's post ids are: only a string keeps it exact in JavaScript. */
export const bigId = (): string =>
  `7${String(randomInt(1, 10)).padStart(1, '0')}${String(randomInt(0, 1e9)).padStart(9, '0')}${String(randomInt(0, 1e8)).padStart(8, '0')}`
