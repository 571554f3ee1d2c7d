import { createHash, randomBytes } from 'node:crypto'
import { pacificDay } from '../../core/youtube-quota-day.js'
import { type Clock, systemClock } from '../../platform/clock.js'
import { listedAt } from '../fault-injector.js'
import { avatarUrlUnder } from '../web/avatar-png.js'
import { KEPT_MEDIA_MAX_BYTES, KeptMedia, sniffContentType } from '../web/kept-media.js'
import type {
  Fault,
  FaultOp,
  RequestRecord,
  SandboxAccount,
  SandboxChannel,
  SandboxComment,
  SandboxUpload,
  SandboxVideo,
  TokenResponse,
  UploadSession,
  YouTubeSandboxOptions,
} from './model.js'
import { type AccessGrant, GoogleOAuthStore, randomToken } from './oauth-store.js'

/**
 * The in-memory world of the Google/YouTube sandbox: Google accounts (some with a channel, one without),
 * OAuth codes and tokens, the app's daily Data API quota, each channel's daily upload count, upload
 * sessions and the videos they produced. No HTTP here: routes call these methods, and so can tests.
 */

export function channelIdFor(email: string): string {
  return `UC${createHash('sha256').update(email).digest('base64url').slice(0, 22)}`
}

export class YouTubeSandbox {
  readonly prefix: string
  readonly clock: Clock
  readonly dailyQuota: number
  readonly uploadUnits: number
  readonly uploadLimitPerDay: number
  readonly maxUploadBytes: number
  readonly options: YouTubeSandboxOptions

  accounts = new Map<string, SandboxAccount>()
  /** Codes, tokens and grants (Google's side of OAuth). */
  readonly oauth: GoogleOAuthStore
  private quota = new Map<string, number>()
  private channelUploads = new Map<string, number>()
  sessions = new Map<string, UploadSession>()
  videos = new Map<string, SandboxVideo>()
  /** Comment threads by id, in the order they were made. */
  comments = new Map<string, SandboxComment>()
  uploads: SandboxUpload[] = []
  /** The uploaded files' bytes by video id, for the web pages' player (small files only). */
  readonly kept = new KeptMedia()
  faults: Fault[] = []
  requests: RequestRecord[] = []

  constructor(options: YouTubeSandboxOptions) {
    this.options = options
    this.prefix = options.prefix.replace(/\/+$/, '')
    this.clock = options.clock ?? systemClock
    this.dailyQuota = options.dailyQuota ?? 10_000
    this.uploadUnits = options.uploadUnits ?? 1_600
    this.uploadLimitPerDay = options.uploadLimitPerDay ?? 15
    this.maxUploadBytes = options.maxUploadBytes ?? 274_877_906_944
    this.oauth = new GoogleOAuthStore(this.clock)
    this.reset()
  }

  /** True when a comment made at `createdAt` shows in listings yet (the injector's listing lag). */
  listed(createdAt: number): boolean {
    return listedAt(this.options.faults, 'youtube', createdAt, this.clock.now())
  }

  /** Back to the starting world: the two default accounts, no tokens, no uploads, an unused quota. */
  reset(): void {
    this.accounts.clear()
    this.oauth.clear()
    this.quota.clear()
    this.channelUploads.clear()
    this.sessions.clear()
    this.videos.clear()
    this.comments.clear()
    this.kept.clear()
    this.uploads = []
    this.faults = []
    this.requests = []
    this.createAccount({
      email: 'creator@example.com',
      name: 'Casey Creator',
      channel: {
        title: 'Herald Demo Channel',
        handle: '@heralddemo',
        subscriberCount: 1200,
        viewCount: 34_000,
      },
    })
    this.createAccount({ email: 'nochannel@example.com', name: 'Nadia No-Channel', channel: null })
  }

  today(): string {
    return pacificDay(this.clock.now())
  }

  // Accounts and channels

  createAccount(input: {
    email: string
    name?: string
    channel?: Partial<Omit<SandboxChannel, 'id' | 'publishedAt'>> | null
  }): SandboxAccount {
    const email = input.email.trim().toLowerCase()
    const name = input.name ?? email.split('@')[0]!
    const channel =
      input.channel === null
        ? null
        : {
            id: channelIdFor(email),
            title: input.channel?.title ?? `${name}'s channel`,
            handle: input.channel?.handle ?? `@${email.split('@')[0]!.replace(/[^a-z0-9._-]/g, '')}`,
            description: input.channel?.description ?? '',
            thumbnailUrl:
              input.channel?.thumbnailUrl ??
              (this.options.publicUrl
                ? avatarUrlUnder(`${this.options.publicUrl}/web`, channelIdFor(email))
                : `https://yt3.ggpht.example/${channelIdFor(email)}=s800-c-k-c0x00ffffff-no-rj`),
            subscriberCount: input.channel?.subscriberCount ?? 0,
            hiddenSubscriberCount: input.channel?.hiddenSubscriberCount ?? false,
            viewCount: input.channel?.viewCount ?? 0,
            baseVideoCount: input.channel?.baseVideoCount ?? 0,
            publishedAt: new Date(this.clock.now()).toISOString(),
          }
    const account: SandboxAccount = { email, name, channel }
    this.accounts.set(email, account)
    return account
  }

  channelById(id: string): SandboxChannel | undefined {
    for (const account of this.accounts.values()) if (account.channel?.id === id) return account.channel
    return undefined
  }

  updateChannel(id: string, patch: Partial<Omit<SandboxChannel, 'id'>>): SandboxChannel | undefined {
    const channel = this.channelById(id)
    if (channel) Object.assign(channel, patch)
    return channel
  }

  videoCount(channelId: string): number {
    const channel = this.channelById(channelId)
    let uploaded = 0
    for (const video of this.videos.values()) if (video.channelId === channelId) uploaded++
    return (channel?.baseVideoCount ?? 0) + uploaded
  }

  // OAuth shortcuts for tests and the control surface

  /** Tokens as if the account had consented (no consent page), with a refresh token. */
  issueTokens(email: string, clientId: string, scopes: string[], withRefreshToken = true): TokenResponse {
    return this.oauth.issueTokens(email, clientId, scopes, withRefreshToken)
  }

  /** Revokes every token of an account (the user removed the app), or one token. Returns how many. */
  revoke(input: { email?: string; token?: string }): number {
    return this.oauth.revoke(input)
  }

  /** The account and scopes behind a bearer token; undefined when unknown, expired or revoked. */
  authenticate(accessToken: string | undefined): AccessGrant | undefined {
    return this.oauth.authenticate(accessToken)
  }

  // Quota and limits

  quotaUsed(day = this.today()): number {
    return this.quota.get(day) ?? 0
  }

  setQuotaUsed(used: number, day = this.today()): void {
    this.quota.set(day, used)
  }

  /** Charges `units` when they fit in today's quota; false (nothing charged) when they do not. */
  chargeQuota(units: number): boolean {
    const day = this.today()
    const used = this.quotaUsed(day)
    if (used + units > this.dailyQuota) return false
    this.quota.set(day, used + units)
    return true
  }

  uploadsToday(channelId: string): number {
    return this.channelUploads.get(`${channelId}\n${this.today()}`) ?? 0
  }

  setUploadsToday(channelId: string, count: number): void {
    this.channelUploads.set(`${channelId}\n${this.today()}`, count)
  }

  // Upload sessions and videos

  openSession(
    input: Omit<UploadSession, 'id' | 'received' | 'transfers' | 'hash' | 'chunks' | 'videoId' | 'createdAt'>,
  ): UploadSession {
    const session: UploadSession = {
      ...input,
      id: randomToken('ABPtcPq', 36),
      received: 0,
      transfers: 0,
      hash: createHash('sha256'),
      ...(input.declaredLength === null || input.declaredLength <= KEPT_MEDIA_MAX_BYTES
        ? { chunks: [] }
        : {}),
      videoId: null,
      createdAt: this.clock.now(),
    }
    this.sessions.set(session.id, session)
    return session
  }

  /** Turns a session that holds all its bytes into a video and records the upload. */
  completeSession(session: UploadSession): SandboxVideo {
    const existing = session.videoId ? this.videos.get(session.videoId) : undefined
    if (existing) return existing
    const account = this.accounts.get(session.email)
    const channel = account?.channel
    const snippetIn = (session.part.includes('snippet') ? session.metadata.snippet : undefined) as
      | Record<string, unknown>
      | undefined
    const statusIn = (session.part.includes('status') ? session.metadata.status : undefined) as
      | Record<string, unknown>
      | undefined
    const id = randomBytes(8).toString('base64url').slice(0, 11)
    const now = new Date(this.clock.now()).toISOString()
    const title = typeof snippetIn?.title === 'string' ? snippetIn.title : 'unknown'
    const description = typeof snippetIn?.description === 'string' ? snippetIn.description : ''
    const requestedPrivacy = typeof statusIn?.privacyStatus === 'string' ? statusIn.privacyStatus : 'public'
    const video: SandboxVideo = {
      id,
      channelId: session.channelId,
      statistics: { viewCount: 0, likeCount: 0, commentCount: 0, favoriteCount: 0 },
      resource: {
        kind: 'youtube#video',
        etag: randomToken('', 18),
        id,
        snippet: {
          publishedAt: now,
          channelId: session.channelId,
          title,
          description,
          thumbnails: {
            default: { url: `https://i.ytimg.example/vi/${id}/default.jpg`, width: 120, height: 90 },
          },
          channelTitle: channel?.title ?? '',
          ...(Array.isArray(snippetIn?.tags) ? { tags: snippetIn.tags } : {}),
          categoryId: typeof snippetIn?.categoryId === 'string' ? snippetIn.categoryId : '22',
          liveBroadcastContent: 'none',
          localized: { title, description },
        },
        status: {
          uploadStatus: 'uploaded',
          privacyStatus: this.options.unaudited ? 'private' : requestedPrivacy,
          license: 'youtube',
          embeddable: true,
          publicStatsViewable: true,
          ...(typeof statusIn?.selfDeclaredMadeForKids === 'boolean'
            ? {
                selfDeclaredMadeForKids: statusIn.selfDeclaredMadeForKids,
                madeForKids: statusIn.selfDeclaredMadeForKids,
              }
            : {}),
        },
      },
    }
    this.videos.set(id, video)
    if (session.chunks)
      this.kept.keep(id, sniffContentType(session.chunks[0] ?? Buffer.alloc(0), 'video/mp4'), session.chunks)
    delete session.chunks
    session.videoId = id
    this.setUploadsToday(session.channelId, this.uploadsToday(session.channelId) + 1)
    this.uploads.push({
      videoId: id,
      channelId: session.channelId,
      bytes: session.received,
      declaredLength: session.declaredLength,
      contentType: session.contentType,
      sha256: session.hash.digest('hex'),
      metadata: session.metadata,
      part: session.part,
      transfers: session.transfers,
      receivedAt: this.clock.now(),
    })
    return video
  }

  setVideoStatistics(id: string, statistics: Partial<SandboxVideo['statistics']>): SandboxVideo | undefined {
    const video = this.videos.get(id)
    if (video) Object.assign(video.statistics, statistics)
    return video
  }

  // Faults and the request log

  addFault(fault: Fault): void {
    this.faults.push({ ...fault, times: fault.times ?? 1 })
  }

  /** The fault to apply to this call, consuming one of its uses. */
  takeFault(op: FaultOp): Fault | undefined {
    const index = this.faults.findIndex((fault) => fault.op === op)
    if (index < 0) return undefined
    const fault = this.faults[index]!
    fault.times = (fault.times ?? 1) - 1
    if (fault.times <= 0) this.faults.splice(index, 1)
    return fault
  }

  record(entry: Omit<RequestRecord, 'at'>): void {
    this.requests.push({ ...entry, at: this.clock.now() })
  }

  /** Token endpoint calls by grant type. */
  tokenCalls(): Record<string, number> {
    const counts: Record<string, number> = {}
    for (const entry of this.requests)
      if (entry.op === 'token' && entry.grantType)
        counts[entry.grantType] = (counts[entry.grantType] ?? 0) + 1
    return counts
  }
}
