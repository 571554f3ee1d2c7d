import type { FaultInjector } from '../fault-injector.js'
import { avatarPng } from '../web/avatar-png.js'
import { cidOf, newAppPassword, plcDidFor, tidAt } from './ids.js'
import { TokenSigner } from './tokens.js'

export interface BlueskySandboxOptions {
  /** Where the simulator is mounted, e.g. `/sandbox/bluesky`. */
  prefix: string
  /** The app clock (epoch ms): token expiry and record times follow it. */
  clock: () => number
  /**
   * The simulator's public address (`${PUBLIC_BASE_URL}${prefix}`), named as the PDS in every DID
   * document. Without it each DID document names the address the request came to.
   */
  publicUrl?: string
  /** atproto.openapi.json; the default is the copy in `../shared/reference/openapi/`. */
  specPath?: string
  /** Access token lifetime; the PDS gives two hours. */
  accessTtlMs?: number
  /** Refresh token lifetime; the PDS gives 90 days. */
  refreshTtlMs?: number
  /**
   * Asked about every call the simulator serves (see `blueskyCallKind`); default none. The
   * `/_sandbox/faults` queue keeps working beside it.
   */
  faults?: FaultInjector
}

export interface SandboxAccount {
  did: string
  handle: string
  email: string
  displayName: string
  /** App password → its name. Never shown by the control routes. */
  appPasswords: Map<string, string>
  followersCount: number
  followsCount: number
  createdAt: string
}

export interface StoredBlob {
  cid: string
  did: string
  mimeType: string
  size: number
  bytes: Buffer
}

export interface StoredRecord {
  uri: string
  cid: string
  did: string
  collection: string
  rkey: string
  value: Record<string, unknown>
  indexedAt: string
}

export interface Engagement {
  likeCount: number
  repostCount: number
  replyCount: number
  quoteCount: number
  bookmarkCount: number
}

export type FaultAction = 'error' | 'drop_before' | 'drop_after'

/** Fails the next call of `nsid`: an XRPC error answer, or a connection closed before or after the work. */
export interface Fault {
  nsid: string
  action: FaultAction
  status?: number
  error?: string
  message?: string
}

const HOUR = 3_600_000
const HANDLE_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/
/** Where handles of sandbox accounts live when the username names no domain. */
export const SANDBOX_HANDLE_DOMAIN = 'bsky.social'

/** The handle for a username: `maker` → `maker.bsky.social`; `maker.example.com` stays as it is. */
export function handleFor(username: string): string | undefined {
  const name = username.trim().replace(/^@/, '').toLowerCase()
  const handle = name.includes('.') ? name : `${name}.${SANDBOX_HANDLE_DOMAIN}`
  const labels = handle.split('.')
  if (handle.length > 253 || !labels.every((label) => HANDLE_LABEL.test(label))) return undefined
  return /^[a-z]/.test(labels.at(-1)!) ? handle : undefined
}

export class BlueskySandboxState {
  readonly prefix: string
  readonly clock: () => number
  readonly publicUrl: string | undefined
  readonly specPath: string | undefined
  readonly accessTtlMs: number
  readonly refreshTtlMs: number
  readonly signer: TokenSigner
  /** By DID. */
  readonly accounts = new Map<string, SandboxAccount>()
  /** By AT URI. */
  readonly records = new Map<string, StoredRecord>()
  /** By `${did} ${cid}`. */
  readonly blobs = new Map<string, StoredBlob>()
  /** Counts the AppView reports, by post URI. */
  readonly engagement = new Map<string, Engagement>()
  /** `jti` of every refresh token not yet used (a refresh rotates it). */
  readonly liveRefreshTokens = new Set<string>()
  readonly faults: Fault[] = []
  /** Requests (and answers) that did not match atproto.openapi.json. */
  readonly violations: string[] = []

  constructor(options: BlueskySandboxOptions) {
    this.prefix = options.prefix
    this.clock = options.clock
    this.publicUrl = options.publicUrl?.replace(/\/+$/, '')
    this.specPath = options.specPath
    this.accessTtlMs = options.accessTtlMs ?? 2 * HOUR
    this.refreshTtlMs = options.refreshTtlMs ?? 90 * 24 * HOUR
    this.signer = new TokenSigner('did:web:sandbox.bsky.invalid')
  }

  nowIso(): string {
    return new Date(this.clock()).toISOString()
  }

  /**
   * Creates the account of `username` (or finds it) and a new app password for it. The account's
   * profile record carries `displayName`, as the Bluesky app writes it.
   */
  createAccount(input: { username: string; displayName?: string }): {
    account: SandboxAccount
    appPassword: string
  } {
    const handle = handleFor(input.username)
    if (!handle) throw new Error(`${input.username} cannot be a Bluesky handle`)
    const did = plcDidFor(handle)
    let account = this.accounts.get(did)
    if (!account) {
      account = {
        did,
        handle,
        email: `${handle}@example.com`,
        displayName: input.displayName?.trim() || handle.split('.')[0]!,
        appPasswords: new Map(),
        followersCount: 0,
        followsCount: 0,
        createdAt: this.nowIso(),
      }
      this.accounts.set(did, account)
      // The profile's picture is a blob of the account's repository, as the Bluesky app uploads it.
      const picture = avatarPng(did)
      const cid = cidOf(picture)
      this.blobs.set(`${did} ${cid}`, {
        cid,
        did,
        mimeType: 'image/png',
        size: picture.length,
        bytes: picture,
      })
      this.putRecord(did, 'app.bsky.actor.profile', 'self', {
        $type: 'app.bsky.actor.profile',
        displayName: account.displayName,
        avatar: { $type: 'blob', ref: { $link: cid }, mimeType: 'image/png', size: picture.length },
        createdAt: account.createdAt,
      })
    }
    const appPassword = newAppPassword()
    account.appPasswords.set(appPassword, `herald-${account.appPasswords.size + 1}`)
    return { account, appPassword }
  }

  /** The account a handle, DID or e-mail names. */
  findAccount(identifier: string): SandboxAccount | undefined {
    const key = identifier.trim().toLowerCase()
    if (key.startsWith('did:')) return this.accounts.get(identifier.trim())
    for (const account of this.accounts.values())
      if (account.handle === key || account.email === key) return account
    return undefined
  }

  /** A new session for `did`: an access token and a refresh token, as createSession answers. */
  openSession(account: SandboxAccount) {
    const now = this.clock()
    const access = this.signer.sign('access', account.did, now, this.accessTtlMs)
    const refresh = this.signer.sign('refresh', account.did, now, this.refreshTtlMs)
    this.liveRefreshTokens.add(refresh.claims.jti)
    return {
      accessJwt: access.token,
      refreshJwt: refresh.token,
      handle: account.handle,
      did: account.did,
      email: account.email,
      emailConfirmed: true,
      active: true,
    }
  }

  /** Writes a record; undefined when the key is taken (the repository refuses a second write there). */
  putRecord(did: string, collection: string, rkey: string, value: Record<string, unknown>) {
    const uri = `at://${did}/${collection}/${rkey}`
    if (this.records.has(uri)) return undefined
    const record: StoredRecord = {
      uri,
      cid: cidOf(Buffer.from(JSON.stringify(value)), 'dag-cbor'),
      did,
      collection,
      rkey,
      value,
      indexedAt: this.nowIso(),
    }
    this.records.set(uri, record)
    if (collection === 'app.bsky.feed.post')
      this.engagement.set(uri, {
        likeCount: 0,
        repostCount: 0,
        replyCount: 0,
        quoteCount: 0,
        bookmarkCount: 0,
      })
    return record
  }

  /** A record key for a write that names none, as the PDS makes it (a TID of now). */
  newRecordKey(): string {
    return tidAt(this.clock() * 1000)
  }

  /** A revision for a commit. */
  newRevision(): string {
    return tidAt(this.clock() * 1000 + 1)
  }

  postsOf(did: string): StoredRecord[] {
    return [...this.records.values()].filter((r) => r.did === did && r.collection === 'app.bsky.feed.post')
  }

  /** Queues a failure for the next call of `fault.nsid`. */
  failNext(fault: Fault): void {
    this.faults.push(fault)
  }

  takeFault(nsid: string): Fault | undefined {
    const index = this.faults.findIndex((fault) => fault.nsid === nsid)
    return index < 0 ? undefined : this.faults.splice(index, 1)[0]
  }
}
