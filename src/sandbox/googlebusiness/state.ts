import { createHash } from 'node:crypto'
import { type Clock, systemClock } from '../../platform/clock.js'
import { listedAt } from '../fault-injector.js'
import { keptKey, sniff } from '../meta-common/state.js'
import { KeptMedia, sniffContentType } from '../web/kept-media.js'
import { type AccessGrant, GoogleOAuthStore } from '../youtube/oauth-store.js'
import type {
  BusinessAccount,
  ControlFault,
  GoogleBusinessSandboxOptions,
  GoogleUser,
  LocalPostState,
  MediaFetch,
  Service,
  SimLocalPost,
  SimLocation,
} from './model.js'

/**
 * The in-memory world of the Google Business Profile simulator: Google users, the business accounts they
 * manage and each account's locations (a business has two: a high-street shop and a second branch), the
 * local posts made to each location (PROCESSING until `processingMs` passed, then LIVE; REJECTED when the
 * moderation phrase is in the summary), the photos its "Google fetcher" downloaded, the project's API
 * access (none: every call meets a quota of 0) and its per-minute quota per API, and the daily figures
 * of each location. No HTTP here: routes call these methods, and so can tests.
 */

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000

let counter = 0
/** A numeric id of the kind Google hands out, starting with `prefix`. */
const numericId = (prefix: string) =>
  `${prefix}${Date.now().toString().slice(-7)}${String(++counter).padStart(5, '0')}`

/** The second location every simulated business has, beside its first. */
const BRANCHES = [
  { suffix: 'High Street', addressLines: ['12 High Street'], postalCode: 'LS1 4AB' },
  { suffix: 'Station Road', addressLines: ['3 Station Road'], postalCode: 'LS6 2QT' },
] as const

export class GoogleBusinessSandbox {
  readonly prefix: string
  readonly clock: Clock
  readonly options: GoogleBusinessSandboxOptions
  readonly oauth: GoogleOAuthStore
  readonly users = new Map<string, GoogleUser>()
  readonly accounts = new Map<string, BusinessAccount>()
  readonly locations = new Map<string, SimLocation>()
  readonly posts = new Map<string, SimLocalPost>()
  /** Every photo download the fetcher made, in order. */
  readonly fetches: MediaFetch[] = []
  /** The photos it downloaded, for the web pages (as Google keeps its copy). */
  readonly kept = new KeptMedia()
  /** Faults queued on the control surface (`/_sandbox/faults`), applied before the injector's. */
  readonly controlFaults: ControlFault[] = []
  /** False: Google has not granted the project access, so every API call meets a quota of 0. */
  accessGranted = true
  /** A summary holding this is refused by Google's moderation (the post is made, as REJECTED). */
  rejectPhrase: string | undefined = 'SANDBOX-REJECT'
  private readonly calls = new Map<Service, number[]>()
  private seq = 0

  constructor(options: GoogleBusinessSandboxOptions) {
    this.options = options
    this.prefix = options.prefix.replace(/\/+$/, '')
    this.clock = options.clock ?? systemClock
    this.oauth = new GoogleOAuthStore(this.clock)
    this.ensureBusiness('Corner Bakery')
  }

  now = () => this.clock.now()

  /**
   * The business named `name` (its Google user, its account, its two locations), made on first sight.
   * The user's e-mail is `owner@<name>.example` unless given.
   */
  ensureBusiness(
    name: string,
    email?: string,
  ): { user: GoogleUser; account: BusinessAccount; locations: SimLocation[] } {
    const existing = [...this.accounts.values()].find(
      (a) => a.accountName.toLowerCase() === name.toLowerCase(),
    )
    if (existing)
      return {
        user: this.users.get(existing.owner) as GoogleUser,
        account: existing,
        locations: this.locationsOf(existing.name),
      }
    const slug =
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'business'
    const owner = (email ?? `owner@${slug}.example`).toLowerCase()
    const user = this.users.get(owner) ?? { email: owner, name: `${name} owner` }
    this.users.set(owner, user)
    const account: BusinessAccount = {
      name: `accounts/${numericId('10')}`,
      accountName: name,
      type: 'PERSONAL',
      owner,
    }
    this.accounts.set(account.name, account)
    for (const branch of BRANCHES) {
      const location: SimLocation = {
        name: `locations/${numericId('87')}`,
        account: account.name,
        title: `${name} – ${branch.suffix}`,
        addressLines: [...branch.addressLines],
        locality: 'Leeds',
        postalCode: branch.postalCode,
        regionCode: 'GB',
        phone: '+44 113 496 0000',
        websiteUri: `https://${slug}.example`,
        verified: true,
      }
      this.locations.set(location.name, location)
    }
    return { user, account, locations: this.locationsOf(account.name) }
  }

  accountsOf(email: string): BusinessAccount[] {
    return [...this.accounts.values()].filter((a) => a.owner === email)
  }

  locationsOf(account: string): SimLocation[] {
    return [...this.locations.values()].filter((l) => l.account === account)
  }

  /** The grant behind a bearer token, when it is live and carries the business scope. */
  grantOf(token: string | undefined): AccessGrant | undefined {
    return this.oauth.authenticate(token)
  }

  /**
   * Whether the project may call `service` now: without access every call meets a quota of 0; otherwise
   * each API allows `perMinute` calls in any minute of the clock. Answers the limit that refused, if any.
   */
  admit(service: Service): number | undefined {
    if (!this.accessGranted) return 0
    const limit = this.options.perMinute ?? 300
    const now = this.now()
    const recent = (this.calls.get(service) ?? []).filter((at) => now - at < MINUTE_MS)
    if (recent.length >= limit) {
      this.calls.set(service, recent)
      return limit
    }
    recent.push(now)
    this.calls.set(service, recent)
    return undefined
  }

  /** A new local post (the body already checked), LIVE after processing unless moderation rejects it. */
  addPost(location: SimLocation, post: Record<string, unknown>, photo?: SimLocalPost['photo']): SimLocalPost {
    const id = numericId('41')
    const summary = typeof post.summary === 'string' ? post.summary : ''
    const made: SimLocalPost = {
      name: `${location.account}/${location.name}/localPosts/${id}`,
      id,
      account: location.account,
      location: location.name,
      post,
      rejected: this.rejectPhrase !== undefined && summary.includes(this.rejectPhrase),
      createdAt: this.now(),
      seq: ++this.seq,
      ...(photo ? { photo } : {}),
    }
    this.posts.set(made.name, made)
    return made
  }

  stateOf(post: SimLocalPost): LocalPostState {
    if (post.rejected) return 'REJECTED'
    return this.now() - post.createdAt >= (this.options.processingMs ?? 30_000) ? 'LIVE' : 'PROCESSING'
  }

  /** A location's posts as its list shows them: newest first, those still behind the listing lag left out. */
  listed(location: string): SimLocalPost[] {
    const now = this.now()
    return [...this.posts.values()]
      .filter(
        (p) => p.location === location && listedAt(this.options.faults, 'googlebusiness', p.createdAt, now),
      )
      .sort((a, b) => b.seq - a.seq)
  }

  /** Where a post is seen: the simulator's page of it (sandbox mode), else Google's own local page. */
  searchUrl(post: SimLocalPost): string {
    const locationId = post.location.split('/')[1] ?? ''
    const base = this.options.publicUrl
      ? `${this.options.publicUrl.replace(/\/+$/, '')}/web`
      : 'https://local.google.com'
    return `${base}/place?id=${locationId}&use=posts&lpsid=${post.id}`
  }

  /** The post as Google's `LocalPost` resource answers it. */
  view(post: SimLocalPost): Record<string, unknown> {
    const at = new Date(post.createdAt).toISOString()
    const { media, ...rest } = post.post
    return {
      name: post.name,
      ...rest,
      ...(post.photo
        ? {
            media: [
              {
                name: `${post.account}/${post.location}/media/${post.photo.key}`,
                mediaFormat: 'PHOTO',
                sourceUrl: post.photo.url,
                googleUrl: this.mediaUrl(post.photo.key),
              },
            ],
          }
        : {}),
      state: this.stateOf(post),
      createTime: at,
      updateTime: at,
      searchUrl: this.searchUrl(post),
    }
  }

  private mediaUrl(key: string): string {
    const base = this.options.publicUrl
      ? this.options.publicUrl.replace(/\/+$/, '')
      : 'https://lh3.googleusercontent.com'
    return `${base}/web/_media/${key}`
  }

  /** The Google fetcher: downloads a post's photo (no credentials, no redirects) and checks it is JPEG or PNG. */
  async fetchPhoto(
    url: string,
  ): Promise<{ ok: true; photo: NonNullable<SimLocalPost['photo']> } | { ok: false; message: string }> {
    const record: MediaFetch = { url, ok: false, bytes: 0 }
    this.fetches.push(record)
    try {
      const http =
        this.options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => fetch(input, init))
      const response = await http(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) })
      const bytes = Buffer.from(await response.arrayBuffer())
      const { format } = sniff(bytes)
      Object.assign(record, { status: response.status, bytes: bytes.length, ...(format ? { format } : {}) })
      if (response.status !== 200)
        record.message = `Google could not fetch the photo at ${url} (HTTP ${response.status})`
      else if (format !== 'jpeg' && format !== 'png') record.message = 'The photo must be a JPEG or a PNG.'
      else if (bytes.length > 5 * 1024 * 1024) record.message = 'The photo is larger than 5 MB.'
      else {
        const key = keptKey(url)
        this.kept.keep(key, sniffContentType(bytes, response.headers.get('content-type') ?? undefined), bytes)
        record.ok = true
        return { ok: true, photo: { url, key, bytes: bytes.length, format } }
      }
    } catch (error) {
      record.message = `Google could not fetch the photo at ${url} (${(error as Error).message})`
    }
    return { ok: false, message: record.message ?? 'The photo could not be fetched.' }
  }

  /**
   * A location's figure for one day: the same on every read (derived from the location, the metric and
   * the date), and 0 on about one day in seven, which Google's answer leaves out.
   */
  dailyValue(location: string, metric: string, day: number): number {
    const digest = createHash('sha256').update(`${location}|${metric}|${day}`).digest()
    if ((digest[0] as number) % 7 === 0) return 0
    const scale = metric.startsWith('BUSINESS_IMPRESSIONS') ? 120 : metric === 'BUSINESS_FOOD_ORDERS' ? 3 : 12
    return 1 + (digest.readUInt16BE(1) % scale)
  }

  /** Day numbers (UTC days since 1970) of a `{year, month, day}`. */
  static dayNumber(date: { year: number; month: number; day: number }): number {
    return Math.floor(Date.UTC(date.year, date.month - 1, date.day) / DAY_MS)
  }

  /** The next control fault queued for `op`, taken off the queue. */
  takeControlFault(op: string): ControlFault | undefined {
    const index = this.controlFaults.findIndex((f) => f.op === op)
    return index < 0 ? undefined : this.controlFaults.splice(index, 1)[0]
  }

  /** Everything the simulator holds, for `/_sandbox/state` (no token ever). */
  snapshot() {
    return {
      access: { granted: this.accessGranted, perMinute: this.options.perMinute ?? 300 },
      rejectPhrase: this.rejectPhrase ?? null,
      users: [...this.users.values()],
      accounts: [...this.accounts.values()],
      locations: [...this.locations.values()],
      localPosts: [...this.posts.values()].map((post) => ({
        ...this.view(post),
        location: post.location,
        id: post.id,
        ...(post.photo ? { photo: post.photo } : {}),
      })),
      fetches: this.fetches,
    }
  }
}
