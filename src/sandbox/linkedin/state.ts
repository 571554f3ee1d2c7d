import { createHash, randomBytes } from 'node:crypto'
import { littleVisible } from '../../core/linkedin-little.js'
import { type FaultInjector, listedAt, refusesDuplicates } from '../fault-injector.js'
import { KeptMedia } from '../web/kept-media.js'

/**
 * The LinkedIn simulator's world: members (each administering two pages: the first as ADMINISTRATOR, the
 * second as CONTENT_ADMINISTRATOR), authorization codes and tokens, image and video uploads with their
 * processing states, posts (stored as LinkedIn stores them: the commentary as sent, and what a reader sees
 * of it, cut at the first unescaped reserved character), a daily post allowance per member reset at
 * midnight UTC, faults for tests, and every request that broke the contract.
 */

export interface LinkedInSandboxOptions {
  prefix: string
  clock: () => number
  /**
   * Where the simulator is reached from outside (`{PUBLIC_BASE_URL}/sandbox/linkedin`): a member's picture
   * (`userinfo.picture`) is then served by the simulator itself. Absent: no picture.
   */
  publicUrl?: string
  /** Whether the token endpoint issues refresh tokens (LinkedIn gives them only to approved apps). Default true. */
  refreshTokens?: boolean
  /** Bytes per video upload part (LinkedIn: 4 MiB). */
  videoPartBytes?: number
  /** How long an uploaded image or finalized video stays PROCESSING. */
  processingMs?: number
  /**
   * Asked about every call the simulator serves (see {@link linkedinCalls}); default none. The
   * `/_sandbox/faults` queue keeps working beside it.
   */
  faults?: FaultInjector
}

export interface Member {
  sub: string
  username: string
  name: string
  roles: Map<string, 'ADMINISTRATOR' | 'CONTENT_ADMINISTRATOR'>
}
export interface Organization {
  id: string
  localizedName: string
  vanityName: string
  followers: number
  pageViews: number
}
export interface TokenGrant {
  sub: string
  scopes: string[]
  expiresAt: number
  revoked?: boolean
}
export interface RefreshGrant {
  sub: string
  scopes: string[]
  expiresAt: number
}
export interface Asset {
  urn: string
  kind: 'image' | 'video'
  owner: string
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED'
  size?: number
  /** Video: byte ranges and the ETag each PUT received. */
  parts: { uploadId: string; firstByte: number; lastByte: number; etag?: string }[]
  readyAt?: number
  bytes: number
  /** Video: the codec found in the finalized file (`avc1.64001f`), or why LinkedIn's processing refused it. */
  videoCodec?: string
  problem?: string
}
export interface SandboxPost {
  id: string
  author: string
  commentary: string
  visibleText: string
  truncated: boolean
  content?: Record<string, unknown>
  createdAt: number
  /** The person whose token created it. */
  createdBy: string
}
export type FaultOp = 'posts' | 'userinfo' | 'token' | 'images' | 'videos' | 'statistics'
export interface Fault {
  op: FaultOp
  status: number
  body?: Record<string, unknown>
  /** For `posts`: create the post, then answer with the failure (an unknown outcome for the caller). */
  afterCreate?: boolean
}

const DAY_MS = 86_400_000
export const ACCESS_TTL_S = 5_183_999
export const REFRESH_TTL_S = 31_535_999

export class LinkedInSandboxState {
  readonly prefix: string
  readonly now: () => number
  refreshTokens: boolean
  readonly videoPartBytes: number
  readonly processingMs: number
  readonly members = new Map<string, Member>()
  readonly organizations = new Map<string, Organization>()
  readonly codes = new Map<
    string,
    { sub: string; scopes: string[]; redirectUri: string; expiresAt: number }
  >()
  readonly tokens = new Map<string, TokenGrant>()
  readonly refreshGrants = new Map<string, RefreshGrant>()
  readonly assets = new Map<string, Asset>()
  readonly uploads = new Map<string, { urn: string; part: number }>()
  /** Video parts' bytes by asset URN, kept until finalize checks the whole file. */
  readonly videoBytes = new Map<string, Buffer[]>()
  /** Uploaded images' and finalized videos' bytes by asset URN, for the web pages. */
  readonly kept = new KeptMedia()
  readonly posts = new Map<string, SandboxPost>()
  /** Comments by comment URN (`urn:li:comment:(<post urn>,<id>)`), in the order they were made. */
  readonly comments = new Map<
    string,
    { id: string; urn: string; object: string; actor: string; text: string; createdAt: number }
  >()
  readonly faults: Fault[] = []
  readonly violations: { method: string; path: string; problems: string[] }[] = []
  /** Calls of the token endpoint by grant type (`authorization_code`, `refresh_token`). */
  readonly tokenCalls: Record<string, number> = {}
  /** Posts a member may create per UTC day before 429 (LinkedIn does not publish its limits; ~150 [3p]). */
  postsPerDay = 150
  private readonly postsByDay = new Map<string, number>()
  private sequence = 7_300_000_000_000_000_000n

  /** Where the simulator is reached from outside, when known. */
  get publicUrl(): string | undefined {
    return this.options.publicUrl?.replace(/\/+$/, '')
  }

  constructor(private readonly options: LinkedInSandboxOptions) {
    this.prefix = options.prefix
    this.now = options.clock
    this.refreshTokens = options.refreshTokens ?? true
    this.videoPartBytes = options.videoPartBytes ?? 4 * 1024 * 1024
    this.processingMs = options.processingMs ?? 200
  }

  /** True when a post or comment made at `createdAt` shows in listings yet (the injector's listing lag). */
  listed(createdAt: number): boolean {
    return listedAt(this.options.faults, 'linkedin', createdAt, this.now())
  }

  /** False when the injector turned LinkedIn's duplicate-post check off. */
  refusesDuplicates(): boolean {
    return refusesDuplicates(this.options.faults, 'linkedin')
  }

  nextId(): string {
    this.sequence += 1n
    return this.sequence.toString()
  }

  /** The member with this user name, created with two pages on first use. */
  ensureMember(username: string): Member {
    const key = username.toLowerCase()
    const found = this.members.get(key)
    if (found) return found
    const sub = createHash('sha256').update(key).digest('base64url').slice(0, 10)
    const member: Member = { sub, username, name: username, roles: new Map() }
    this.members.set(key, member)
    const slug = key.replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'member'
    this.addOrganization(member, `${username} Studio`, `${slug}-studio`, 'ADMINISTRATOR')
    this.addOrganization(member, `${username} Labs`, `${slug}-labs`, 'CONTENT_ADMINISTRATOR')
    return member
  }

  addOrganization(
    member: Member,
    name: string,
    vanityName: string,
    role: 'ADMINISTRATOR' | 'CONTENT_ADMINISTRATOR',
  ): Organization {
    const id = String(10_000_000 + this.organizations.size * 7 + 3)
    const org: Organization = {
      id,
      localizedName: name,
      vanityName,
      followers: 1200 + this.organizations.size * 17,
      pageViews: 3400,
    }
    this.organizations.set(id, org)
    member.roles.set(id, role)
    return org
  }

  memberBySub(sub: string): Member | undefined {
    for (const member of this.members.values()) if (member.sub === sub) return member
    return undefined
  }

  issueCode(sub: string, scopes: string[], redirectUri: string): string {
    const code = `AQ${randomBytes(18).toString('base64url')}`
    this.codes.set(code, { sub, scopes, redirectUri, expiresAt: this.now() + 30 * 60_000 })
    return code
  }

  issueToken(sub: string, scopes: string[]): string {
    const token = `AQV${randomBytes(24).toString('base64url')}`
    this.tokens.set(token, { sub, scopes, expiresAt: this.now() + ACCESS_TTL_S * 1000 })
    return token
  }

  issueRefresh(sub: string, scopes: string[]): string {
    const token = `AQW${randomBytes(24).toString('base64url')}`
    this.refreshGrants.set(token, { sub, scopes, expiresAt: this.now() + REFRESH_TTL_S * 1000 })
    return token
  }

  /** Revokes every access token of a member (as removing the app in LinkedIn's settings does), and with `refresh` the refresh tokens too. */
  revokeTokens(sub: string, refresh = false): void {
    for (const grant of this.tokens.values()) if (grant.sub === sub) grant.revoked = true
    if (refresh)
      for (const [token, grant] of this.refreshGrants) if (grant.sub === sub) this.refreshGrants.delete(token)
  }

  takeFault(op: FaultOp): Fault | undefined {
    const index = this.faults.findIndex((f) => f.op === op)
    return index === -1 ? undefined : this.faults.splice(index, 1)[0]
  }

  /** The asset's status now (uploads move PROCESSING → AVAILABLE after `processingMs`). */
  statusOf(asset: Asset): Asset['status'] {
    if (asset.status === 'PROCESSING' && asset.readyAt !== undefined && this.now() >= asset.readyAt)
      asset.status = 'AVAILABLE'
    return asset.status
  }

  /** Counts a post against the member's day; false when the day's allowance is used. */
  countPost(sub: string): boolean {
    const key = `${sub}:${Math.floor(this.now() / DAY_MS)}`
    const used = this.postsByDay.get(key) ?? 0
    if (used >= this.postsPerDay) return false
    this.postsByDay.set(key, used + 1)
    return true
  }

  nextMidnight(): number {
    return Math.floor(this.now() / DAY_MS) * DAY_MS + DAY_MS
  }

  createPost(input: Omit<SandboxPost, 'id' | 'visibleText' | 'truncated' | 'createdAt'>): SandboxPost {
    const kind =
      input.content && ('multiImage' in input.content || 'media' in input.content) ? 'ugcPost' : 'share'
    const id = `urn:li:${kind}:${this.nextId()}`
    const visible = littleVisible(input.commentary)
    const post: SandboxPost = {
      ...input,
      id,
      visibleText: visible.text,
      truncated: visible.truncated,
      createdAt: this.now(),
    }
    this.posts.set(id, post)
    return post
  }
}
