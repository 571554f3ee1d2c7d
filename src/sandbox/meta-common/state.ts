import { createHash } from 'node:crypto'
import type { Network } from '../../core/networks.js'
import { type FaultInjector, listedAt, refusesDuplicates } from '../fault-injector.js'
import { KeptMedia, sniffContentType } from '../web/kept-media.js'

/**
 * What every Meta simulator's state keeps (Facebook and Instagram, Threads): the mount prefix and clock,
 * the Meta fetcher's downloads, the calls that did not match Meta's own description, the injected faults,
 * the rolling 24-hour publishing allowance per account, the numeric ids Meta hands out, and how the
 * fetcher reads the bytes it downloaded ({@link sniff}).
 */

const DAY_MS = 24 * 60 * 60 * 1000
const SIXTY_DAYS_S = 60 * 24 * 60 * 60

let counter = 0
/** A numeric id of the kind Meta hands out (digits only), starting with `prefix`. */
export const numericId = (prefix: string) =>
  `${prefix}${Date.now().toString().slice(-8)}${String(++counter).padStart(5, '0')}`

/** One download by the Meta fetcher and what it found. */
export interface FetchCheck {
  ok: boolean
  url: string
  status?: number
  contentType?: string
  bytes: number
  format?: 'jpeg' | 'png' | 'mp4' | 'mov' | 'other'
  width?: number
  height?: number
  /** Videos: the first video track's codec as read from the file (`avc1.64001f`). */
  videoCodec?: string
  /** Meta's subcode when the check failed. */
  subcode?: number
  message?: string
}

export interface MetaSimulatorOptions {
  prefix: string
  clock?: () => number
  /** How many status polls a fetched video stays IN_PROGRESS (default 1). */
  videoPolls?: number
  /** Posts per account per rolling 24 hours (each simulator has its own default). */
  quotaTotal?: number
  /** Downloads media; defaults to the global fetch. */
  fetch?: typeof fetch
  /**
   * The simulator's public address (`${PUBLIC_BASE_URL}${prefix}`): the permalinks it hands out then name
   * its own web pages under `/web`. Without it they name the network's real site, as the network would.
   */
  publicUrl?: string
  /**
   * Asked about every call the simulator serves (see `installFaultHooks`); default none. The `/_sandbox/faults`
   * queue keeps working beside it.
   */
  faults?: FaultInjector
}

export abstract class MetaSimulatorState<O extends MetaSimulatorOptions, F extends { op: string }> {
  readonly prefix: string
  readonly now: () => number
  readonly options: O
  /** Every download the Meta fetcher made, in order. */
  readonly fetches: FetchCheck[] = []
  /** Calls that did not match Meta's own description of the API (tests expect none). */
  readonly violations: string[] = []
  readonly faults: F[] = []
  /** Every file the fetcher downloaded, by {@link keptKey} of its URL, for the web pages (as Meta keeps its copy). */
  readonly kept = new KeptMedia()
  /** When each account published, for the rolling 24-hour allowance. */
  readonly publishTimes = new Map<string, number[]>()
  longLivedTtlSeconds = SIXTY_DAYS_S

  constructor(
    options: O,
    private readonly defaultQuota: number,
  ) {
    this.options = options
    this.prefix = options.prefix
    this.now = options.clock ?? (() => Date.now())
  }

  /** True when a record made at `createdAt` shows in `network`'s listings yet (the injector's listing lag). */
  listed(network: Network, createdAt: number): boolean {
    return listedAt(this.options.faults, network, createdAt, this.now())
  }

  /** False when the injector turned `network`'s duplicate-content check off. */
  refusesDuplicates(network: Network): boolean {
    return refusesDuplicates(this.options.faults, network)
  }

  /** The first queued fault for `op` (or for any call), taken off the queue. */
  takeFault(op: F['op']): F | undefined {
    const index = this.faults.findIndex((f) => f.op === op || f.op === 'any')
    return index < 0 ? undefined : this.faults.splice(index, 1)[0]
  }

  newId(prefix: string): string {
    return numericId(prefix)
  }

  /** Posts the account published in the last 24 hours. */
  quotaUsage(accountId: string): number {
    const since = this.now() - DAY_MS
    return (this.publishTimes.get(accountId) ?? []).filter((t) => t > since).length
  }

  get quotaTotal(): number {
    return this.options.quotaTotal ?? this.defaultQuota
  }

  recordPublish(accountId: string): void {
    this.publishTimes.set(accountId, [...(this.publishTimes.get(accountId) ?? []), this.now()])
  }

  /** Downloads `url` as Meta's crawler would: no credentials, no redirects followed. */
  protected async download(url: string): Promise<{ status: number; bytes: Buffer; contentType?: string }> {
    const http =
      this.options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => fetch(input, init))
    const response = await http(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) })
    const bytes = Buffer.from(await response.arrayBuffer())
    const contentType = response.headers.get('content-type') ?? undefined
    if (response.status === 200) this.kept.keep(keptKey(url), sniffContentType(bytes, contentType), bytes)
    return { status: response.status, bytes, ...(contentType ? { contentType } : {}) }
  }

  /** Where the simulator's web pages of `site` are, or the site itself when it knows no public address. */
  protected webBase(site: string, real: string): string {
    return this.options.publicUrl ? `${this.options.publicUrl.replace(/\/+$/, '')}/web${site}` : real
  }
}

/** The key a downloaded file is kept under: short, and the same for every object that names its URL. */
export const keptKey = (url: string) => createHash('sha256').update(url).digest('base64url').slice(0, 22)

/** The format and, for JPEG and PNG, the pixel size of some bytes. */
export function sniff(bytes: Buffer): { format: FetchCheck['format']; width?: number; height?: number } {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    let offset = 2
    while (offset + 9 < bytes.length) {
      if (bytes[offset] !== 0xff) {
        offset++
        continue
      }
      const marker = bytes[offset + 1] as number
      const length = bytes.readUInt16BE(offset + 2)
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return {
          format: 'jpeg',
          height: bytes.readUInt16BE(offset + 5),
          width: bytes.readUInt16BE(offset + 7),
        }
      offset += 2 + length
    }
    return { format: 'jpeg' }
  }
  if (
    bytes.length >= 24 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  )
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
  if (bytes.length >= 12 && bytes.subarray(4, 8).toString('latin1') === 'ftyp')
    return { format: bytes.subarray(8, 10).toString('latin1') === 'qt' ? 'mov' : 'mp4' }
  return { format: 'other' }
}
