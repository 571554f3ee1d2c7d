import { createHash, randomBytes } from 'node:crypto'
import { type FaultInjector, listedAt } from '../fault-injector.js'
import { sniff } from '../meta-common/state.js'
import { KeptMedia, sniffContentType } from '../web/kept-media.js'

/**
 * The Pinterest simulator's world: accounts (each with three boards, made on first consent), OAuth codes,
 * access tokens and continuous refresh tokens, pins (what Pinterest holds: title, description, link, alt
 * text, the media it took, when it was made), video uploads moving registered → processing → succeeded or
 * failed, every image download its fetcher made, write and read allowances per account and minute, and
 * every request that broke the contract.
 */

export interface PinterestSandboxOptions {
  prefix: string
  clock?: () => number
  /** Downloads `image_url` and `cover_image_url` media; defaults to the global fetch. */
  fetch?: typeof fetch
  /**
   * The simulator's public address (`${PUBLIC_BASE_URL}${prefix}`): upload addresses and pin images then
   * name it. Without it they name the address the request came in on.
   */
  publicUrl?: string
  /** How many status reads an uploaded video stays `processing` (default 1). */
  mediaPolls?: number
  /** Asked about every call the simulator serves (see `installFaultHooks`); default none. */
  faults?: FaultInjector
}

export interface Account {
  id: string
  username: string
  businessName: string
  followers: number
  following: number
  monthlyViews: number
}

export interface Board {
  id: string
  accountId: string
  name: string
  description: string
  privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET'
  followers: number
  createdAt: number
}

export interface PinImage {
  /** Where the simulator keeps the bytes (`kept`), when it kept them. */
  key?: string
  width?: number
  height?: number
}

export interface SandboxPin {
  id: string
  boardId: string
  accountId: string
  title: string | null
  description: string | null
  link: string | null
  altText: string | null
  mediaType: 'image' | 'multiple_images' | 'video'
  /** How the media came: `image_url`, `image_base64`, `multiple_image_urls`, ... */
  sourceType: string
  images: PinImage[]
  /** A video pin's upload and cover (`cover_image_key_frame_time` when Pinterest picked the frame). */
  mediaId?: string
  cover?: PinImage & { keyFrameTime?: number }
  createdAt: number
}

export interface SandboxMedia {
  id: string
  accountId: string
  status: 'registered' | 'processing' | 'succeeded' | 'failed'
  /** The signed key of its upload form (`upload_parameters.key`). */
  key: string
  /** Files received for it: exactly one when Herald uploads once. */
  uploads: number
  bytes: number
  videoCodec?: string
  problem?: string
  pollsLeft: number
  createdAt: number
}

export interface TokenGrant {
  accountId: string
  scopes: string[]
  expiresAt: number
  revoked?: boolean
}

export interface FetchRecord {
  url: string
  ok: boolean
  status?: number
  contentType?: string
  bytes: number
  width?: number
  height?: number
}

/** Pinterest's token lifetimes (reference B.2): 30-day access tokens, 60-day continuous refresh tokens. */
export const ACCESS_TTL_S = 2_592_000
export const REFRESH_TTL_S = 5_184_000
const MINUTE_MS = 60_000

export class PinterestSandboxState {
  readonly prefix: string
  readonly now: () => number
  readonly options: PinterestSandboxOptions
  readonly accounts = new Map<string, Account>()
  readonly boards = new Map<string, Board>()
  readonly pins = new Map<string, SandboxPin>()
  readonly media = new Map<string, SandboxMedia>()
  readonly codes = new Map<
    string,
    { accountId: string; scopes: string[]; redirectUri: string; expiresAt: number }
  >()
  readonly tokens = new Map<string, TokenGrant>()
  readonly refreshGrants = new Map<string, TokenGrant>()
  readonly fetches: FetchRecord[] = []
  readonly kept = new KeptMedia()
  readonly violations: { method: string; path: string; problems: string[] }[] = []
  readonly tokenCalls: Record<string, number> = {}
  /**
   * Settings a test or the control surface changes: an app with Trial access on the production host
   * (pins refused, code 29), and the per-minute allowances of writes (`org_write`) and reads (`org_read`).
   */
  settings = { trial: false, writesPerMinute: 100, readsPerMinute: 1000 }
  private readonly calls = new Map<string, number[]>()
  private sequence = 1_125_899_906_842_624n

  constructor(options: PinterestSandboxOptions) {
    this.options = options
    this.prefix = options.prefix
    this.now = options.clock ?? (() => Date.now())
  }

  /** A numeric id of the kind Pinterest hands out (digits only, 16 or more). */
  nextId(): string {
    this.sequence += 7n + BigInt(this.pins.size % 5)
    return this.sequence.toString()
  }

  /** True when a pin made at `createdAt` shows in the board's listing yet (the injector's listing lag). */
  listed(createdAt: number): boolean {
    return listedAt(this.options.faults, 'pinterest', createdAt, this.now())
  }

  /** The account with this username, made with three boards (one of them protected) on first use. */
  ensureAccount(username: string): Account {
    const key = username.toLowerCase()
    const found = [...this.accounts.values()].find((a) => a.username.toLowerCase() === key)
    if (found) return found
    const seed = createHash('sha256').update(key).digest()
    const account: Account = {
      id: (BigInt(`0x${seed.subarray(0, 7).toString('hex')}`) + 1_000_000_000_000_000n).toString(),
      username,
      businessName: `${username} studio`,
      followers: 1000 + (seed[8] ?? 0) * 7,
      following: 100 + (seed[9] ?? 0),
      monthlyViews: 20_000 + (seed[10] ?? 0) * 97,
    }
    this.accounts.set(account.id, account)
    for (const [name, privacy] of [
      ['Spring recipes', 'PUBLIC'],
      ['Shop window', 'PUBLIC'],
      ['Drafts', 'PROTECTED'],
    ] as const)
      this.addBoard(account, name, privacy)
    return account
  }

  addBoard(account: Account, name: string, privacy: Board['privacy'] = 'PUBLIC'): Board {
    const board: Board = {
      id: this.nextId(),
      accountId: account.id,
      name,
      description: `${name} by ${account.username}`,
      privacy,
      followers: 40 + this.boards.size * 3,
      createdAt: this.now(),
    }
    this.boards.set(board.id, board)
    return board
  }

  issueCode(accountId: string, scopes: string[], redirectUri: string): string {
    const code = randomBytes(20).toString('hex')
    this.codes.set(code, { accountId, scopes, redirectUri, expiresAt: this.now() + 10 * MINUTE_MS })
    return code
  }

  issueTokens(accountId: string, scopes: string[]) {
    const access = `pina_${randomBytes(30).toString('base64url')}`
    const refresh = `pinr_${randomBytes(30).toString('base64url')}`
    this.tokens.set(access, { accountId, scopes, expiresAt: this.now() + ACCESS_TTL_S * 1000 })
    const refreshEnd = this.now() + REFRESH_TTL_S * 1000
    this.refreshGrants.set(refresh, { accountId, scopes, expiresAt: refreshEnd })
    return { access, refresh, refreshEnd }
  }

  /** Every token of the account refused from now on (the person removed the app on pinterest.com). */
  revoke(accountId: string): void {
    for (const grant of [...this.tokens.values(), ...this.refreshGrants.values()])
      if (grant.accountId === accountId) grant.revoked = true
  }

  /** Counts one call against the account's per-minute allowance; false when the minute's is used. */
  allow(accountId: string, category: 'org_write' | 'org_read'): boolean {
    const key = `${accountId}:${category}`
    const since = this.now() - MINUTE_MS
    const recent = (this.calls.get(key) ?? []).filter((t) => t > since)
    const limit = category === 'org_write' ? this.settings.writesPerMinute : this.settings.readsPerMinute
    if (recent.length >= limit) {
      this.calls.set(key, recent)
      return false
    }
    recent.push(this.now())
    this.calls.set(key, recent)
    return true
  }

  /** The media's status as a read sees it: an upload stays `processing` for `mediaPolls` reads. */
  readMedia(media: SandboxMedia): SandboxMedia['status'] {
    if (media.status === 'processing') {
      if (media.pollsLeft > 0) media.pollsLeft -= 1
      else media.status = media.problem ? 'failed' : 'succeeded'
    }
    return media.status
  }

  /** Downloads an image as Pinterest's crawler would (no credentials, no redirects) and keeps it. */
  async download(url: string): Promise<FetchRecord & { key?: string }> {
    const http = this.options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init))
    try {
      const response = await http(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) })
      const bytes = Buffer.from(await response.arrayBuffer())
      const record: FetchRecord = {
        url,
        ok: response.status === 200 && bytes.length > 0,
        status: response.status,
        contentType: sniffContentType(bytes, response.headers.get('content-type') ?? undefined),
        bytes: bytes.length,
        ...sizeOf(bytes),
      }
      this.fetches.push(record)
      return record.ok ? { ...record, key: this.keep(bytes) } : record
    } catch {
      const record: FetchRecord = { url, ok: false, bytes: 0 }
      this.fetches.push(record)
      return record
    }
  }

  /** Keeps bytes for the pin pages; answers their key. */
  keep(bytes: Buffer): string {
    const key = createHash('sha256').update(bytes).digest('base64url').slice(0, 22)
    this.kept.keep(key, sniffContentType(bytes), bytes)
    return key
  }
}

/** The pixel size of JPEG or PNG bytes, when they say. */
export function sizeOf(bytes: Buffer): { width?: number; height?: number } {
  const { width, height } = sniff(bytes)
  return { ...(width ? { width } : {}), ...(height ? { height } : {}) }
}
