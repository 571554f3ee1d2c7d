import { randomBytes } from 'node:crypto'
import type { FaultInjector } from '../fault-injector.js'
import { KeptMedia } from '../web/kept-media.js'

/**
 * The state of the Mastodon simulator: any number of instances, each made the first time its name is
 * used (any host name), with its own configuration, apps, accounts, tokens, attachments and statuses.
 * Ids are Mastodon's: decimal strings that grow with time (snowflakes), so newest first is highest id first.
 * Idempotency keys are remembered per account for the instance's window (an hour), on the simulator's clock.
 */

export interface InstanceSettings {
  title: string
  /** `4.5.0`, or a compatible server's `2.7.2 (compatible; Pleroma 2.5.0)`. */
  version: string
  maxCharacters: number
  maxMedia: number
  urlWeight: number
  imageSizeLimit: number
  videoSizeLimit: number
  descriptionLimit: number
  /** A server before 4.3: no authorization server metadata, no PKCE, no `api_versions`. */
  legacy: boolean
  /** How long an `Idempotency-Key` is remembered (ms); 0: keys are ignored, as some compatible servers do. */
  idempotencyMs: number
  /** Statuses an account may post per `statusWindowMs` (Mastodon: 300 per 3 hours). */
  statusLimit: number
  statusWindowMs: number
  /** Requests per account per 5 minutes (the `X-RateLimit-*` headers). */
  requestLimit: number
  /** Polls of `GET /api/v1/media/:id` a video (or large image) answers 206 before it is ready. */
  processingPolls: number
}

export const defaultInstanceSettings = (host: string): InstanceSettings => ({
  title: host,
  version: '4.5.0',
  maxCharacters: 500,
  maxMedia: 4,
  urlWeight: 23,
  imageSizeLimit: 16 * 1024 * 1024,
  videoSizeLimit: 103_809_024,
  descriptionLimit: 1_500,
  legacy: false,
  idempotencyMs: 3_600_000,
  statusLimit: 300,
  statusWindowMs: 3 * 3_600_000,
  requestLimit: 300,
  processingPolls: 2,
})

export interface SimApp {
  id: string
  name: string
  website: string | null
  clientId: string
  clientSecret: string
  redirectUris: string[]
  scopes: string[]
  createdAt: number
}

export interface SimAccount {
  id: string
  username: string
  displayName: string
  createdAt: number
  followers: number
  following: number
}

export interface SimToken {
  token: string
  appId: string
  /** Absent for an app's own (client credentials) token. */
  accountId?: string
  scopes: string[]
  createdAt: number
}

export interface SimCode {
  appId: string
  accountId: string
  redirectUri: string
  scopes: string[]
  challenge?: string
  expiresAt: number
}

export interface SimMedia {
  id: string
  accountId: string
  type: 'image' | 'video' | 'gifv' | 'audio' | 'unknown'
  contentType: string
  size: number
  description: string | null
  /** Polls left before it is processed (0: ready). */
  pollsLeft: number
  statusId?: string
  createdAt: number
  /** The key of its bytes in the kept media, when kept. */
  kept?: string
}

export interface SimStatus {
  id: string
  accountId: string
  /** As sent. */
  text: string
  /** Mastodon's HTML of the text. */
  content: string
  spoilerText: string
  visibility: 'public' | 'unlisted' | 'private' | 'direct'
  language: string | null
  inReplyToId: string | null
  mediaIds: string[]
  appId: string
  createdAt: number
  favourites: number
  reblogs: number
  /** The idempotency key it was created with, if any. */
  idempotencyKey?: string
}

export interface SimInstance {
  host: string
  settings: InstanceSettings
  apps: Map<string, SimApp>
  accounts: Map<string, SimAccount>
  tokens: Map<string, SimToken>
  codes: Map<string, SimCode>
  media: Map<string, SimMedia>
  statuses: Map<string, SimStatus>
  /** `<account id>:<key>` → the status and when the key was stored. */
  keys: Map<string, { statusId: string; storedAt: number }>
  /** Per account: request times (5-minute window) and status times (the posting window). */
  requests: Map<string, number[]>
  posted: Map<string, number[]>
}

export type FaultAction = 'error' | 'error_after' | 'drop_before' | 'drop_after'

export interface ControlFault {
  /** `statuses`, `media`, `media.get`, `accounts.statuses`, `token`, `apps`, `instance`. */
  operation: string
  action: FaultAction
  status?: number
}

export interface MastodonSandboxOptions {
  /** The mount prefix, e.g. `/sandbox/mastodon`: each instance lives under `${prefix}/<host>`. */
  prefix: string
  clock(): number
  /** Where the simulator is reachable from outside (its statuses' `url` name its own web pages). */
  publicUrl?: string
  faults?: FaultInjector
  /** Check every call against mastodon.openapi.json (default: when the file is present). */
  contract?: boolean
  /** Also serve one instance at the prefix itself (no host segment), as real clients expect an origin. */
  rootInstance?: string
}

/** A valid instance name: a host name with at least one dot (any name; the sandbox makes it). */
export const isInstanceName = (host: string) =>
  host.length <= 253 &&
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?$/.test(host)

export class MastodonSandboxState {
  readonly prefix: string
  readonly instances = new Map<string, SimInstance>()
  readonly kept = new KeptMedia()
  readonly violations: string[] = []
  readonly faults: ControlFault[] = []
  private sequence = 0

  constructor(readonly options: MastodonSandboxOptions) {
    this.prefix = options.prefix.replace(/\/+$/, '')
  }

  now(): number {
    return this.options.clock()
  }

  /** A new snowflake-like id: milliseconds shifted left 16 bits, a sequence in the low bits. */
  nextId(): string {
    this.sequence = (this.sequence + 1) % 65_536
    return (BigInt(this.now()) * 65_536n + BigInt(this.sequence)).toString()
  }

  secret(prefix = ''): string {
    return `${prefix}${randomBytes(24).toString('base64url')}`
  }

  /** The instance named `host`, made with Mastodon's defaults the first time. */
  instance(host: string): SimInstance {
    const name = host.toLowerCase()
    let instance = this.instances.get(name)
    if (!instance) {
      instance = {
        host: name,
        settings: defaultInstanceSettings(name),
        apps: new Map(),
        accounts: new Map(),
        tokens: new Map(),
        codes: new Map(),
        media: new Map(),
        statuses: new Map(),
        keys: new Map(),
        requests: new Map(),
        posted: new Map(),
      }
      this.instances.set(name, instance)
    }
    return instance
  }

  /** The account `username` of the instance, made on first sight (the consent page signs anyone in). */
  ensureAccount(instance: SimInstance, username: string): SimAccount {
    const name = username.trim().replace(/^@/, '').toLowerCase()
    const existing = [...instance.accounts.values()].find((a) => a.username === name)
    if (existing) return existing
    const account: SimAccount = {
      id: this.nextId(),
      username: name,
      displayName: name.replace(/[._-]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
      createdAt: this.now(),
      followers: 128,
      following: 64,
    }
    instance.accounts.set(account.id, account)
    return account
  }

  private get publicUrl(): string | undefined {
    return this.options.publicUrl?.replace(/\/+$/, '')
  }

  /** Where people read a status: the simulator's page when it knows its address, else the instance's own. */
  statusUrl(instance: SimInstance, account: SimAccount, statusId: string): string {
    const base = this.publicUrl ? `${this.publicUrl}/web/${instance.host}` : `https://${instance.host}`
    return `${base}/@${account.username}/${statusId}`
  }

  /**
   * The base URL an instance's own links name (its OAuth endpoints, accounts, attachments): under the
   * simulator's address (the root instance at the address itself), else `https://<host>`.
   */
  instanceUrl(instance: SimInstance): string {
    if (!this.publicUrl) return `https://${instance.host}`
    return instance.host === this.options.rootInstance ? this.publicUrl : `${this.publicUrl}/${instance.host}`
  }

  /** Forgets every app of the instance and the tokens they issued, as an admin removing them would. */
  forgetApps(instance: SimInstance): number {
    const count = instance.apps.size
    instance.apps.clear()
    instance.tokens.clear()
    instance.codes.clear()
    return count
  }

  /** The control fault queued for this operation, taken off the queue. */
  takeFault(operation: string): ControlFault | undefined {
    const index = this.faults.findIndex((fault) => fault.operation === operation)
    return index < 0 ? undefined : this.faults.splice(index, 1)[0]
  }
}
