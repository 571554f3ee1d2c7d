import type { Network } from '../../src/core/networks.js'
import type { Fault, FaultInjector, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { Prng } from './prng.js'

/**
 * The network faults of one seed: every request any simulator serves is asked about here, and a PRNG
 * stream of its own per `network:operation` decides (so the n-th `createPosts` of a seed meets the same
 * fault on every replay, whatever the other operations did). The kinds are DESIGN.md's list:
 * refused before the effect, 5xx or 429 after it, a late answer past the client timeout after it, a
 * connection cut before or after it; reads (the lookups) fail the same ways. Beside them, a seed's networks
 * have a listing lag, their duplicate checks on or off, and replies or comments they refuse for good
 * ({@link NetworkBehaviour}).
 */
export type FaultKind =
  | 'refused before effect (503)'
  | '429 before effect'
  | '5xx after effect'
  | '429 after effect'
  | 'late answer after effect'
  | 'reset before effect'
  | 'reset after effect'
  | 'read 5xx'
  | 'read 429'
  | 'read late'
  | 'read reset'
  | 'other call 5xx'
  | 'other call reset'
  | 'item refused for good (400)'
  | 'read 5xx (outage)'
  | '5xx after effect (outage)'
  | 'short page (cursor kept)'

const PUBLISHING: ReadonlyArray<[FaultKind, Fault]> = [
  ['refused before effect (503)', { timing: 'before', answer: { kind: 'status', status: 503 } }],
  ['429 before effect', { timing: 'before', answer: { kind: 'status', status: 429 } }],
  ['5xx after effect', { timing: 'after', answer: { kind: 'status', status: 500 } }],
  ['5xx after effect', { timing: 'after', answer: { kind: 'status', status: 503 } }],
  ['429 after effect', { timing: 'after', answer: { kind: 'status', status: 429 } }],
  ['late answer after effect', { timing: 'after', answer: { kind: 'hang' } }],
  ['reset before effect', { timing: 'before', answer: { kind: 'reset' } }],
  ['reset after effect', { timing: 'after', answer: { kind: 'reset' } }],
]
const READS: ReadonlyArray<[FaultKind, Fault]> = [
  ['read 5xx', { timing: 'before', answer: { kind: 'status', status: 503 } }],
  ['read 429', { timing: 'before', answer: { kind: 'status', status: 429 } }],
  ['read late', { timing: 'before', answer: { kind: 'hang' } }],
  ['read reset', { timing: 'before', answer: { kind: 'reset' } }],
]
const OTHER: ReadonlyArray<[FaultKind, Fault]> = [
  ['other call 5xx', { timing: 'before', answer: { kind: 'status', status: 502 } }],
  ['other call reset', { timing: 'after', answer: { kind: 'reset' } }],
]

export interface FaultRates {
  /** Chance that a call that can make a post public fails. */
  publishing: number
  /** Chance that a read (lookups, status polls, profile reads) fails. */
  reads: number
  /** Chance that any other call (uploads, containers, tokens) fails. */
  other: number
}

/** How one seed's networks behave besides their per-call faults. */
export interface NetworkBehaviour {
  rates: FaultRates
  /** How long a new post, reply or comment stays out of each network's listings (ms of simulated time). */
  listingLagMs: Partial<Record<Network, number>>
  /** Whether X, LinkedIn and Facebook refuse a repeated copy (off, a resend is a second post). */
  duplicateChecks: boolean
  /** Chance that a thread item or first comment is refused for good (the same copy every time it is sent). */
  itemRefusals: number
  /**
   * Whether the seed's listings serve short and empty pages that still carry a cursor, as a busy profile's
   * timeline does once other conversations are filtered out: then about half of the seed's list pages hold
   * none to two rows of what was asked, the cursor to the rest kept (`shortPage`).
   */
  shortPages: boolean
}

/** Told about every call any simulator serves, before it is handled (the publishing ledger). */
export type CallWatcher = (call: SimulatedCall) => void

/**
 * The operations that create a reply or a comment from the copy they carry: X's and Bluesky's post writes,
 * a Threads container (a reply's is made with `reply_to_id`), Meta's, LinkedIn's and YouTube's comments.
 */
const ITEM_WRITES = new Set([
  'createPosts',
  'com.atproto.repo.createRecord',
  'threads',
  'comments',
  'comments.create',
  'commentThreads.insert',
  'statuses',
])
/** A thread item's or first comment's tag, as the scenario makes them (`r<seed>n<post>i<item>[e<edit>]q`). */
const ITEM_TAG = /r\d+n\d+i\d+(?:e\d+)?q/g
const REFUSED: Fault = { timing: 'before', answer: { kind: 'status', status: 400 } }
const OUTAGE: Fault = { timing: 'before', answer: { kind: 'status', status: 503 } }
const OUTAGE_WRITE: Fault = { timing: 'after', answer: { kind: 'status', status: 503 } }

export class SimulatedFaults implements FaultInjector {
  /** Faults injected, by kind, since the process started. */
  readonly counts = new Map<FaultKind, number>()
  /** Faults injected in the current seed, in order (printed for a failing seed). */
  log: string[] = []
  /** The seed's publishing ledger, told about every call (faults on or off). */
  watch: CallWatcher | undefined
  /**
   * A network in trouble while set: its publishing calls take effect and answer 503, its reads all fail (an
   * outage long enough to exhaust its lookups).
   */
  outage: Network | undefined
  private rng: Prng | undefined
  private behaviour: NetworkBehaviour = {
    rates: { publishing: 0, reads: 0, other: 0 },
    listingLagMs: {},
    duplicateChecks: true,
    itemRefusals: 0,
    shortPages: false,
  }
  private readonly streams = new Map<string, Prng>()
  /** Item tags refused for good in this seed: the same copy is refused every time. */
  private readonly refused = new Map<string, boolean>()

  /** Starts a seed's schedule. */
  begin(rng: Prng, behaviour: NetworkBehaviour): void {
    this.rng = rng
    this.behaviour = behaviour
    this.streams.clear()
    this.refused.clear()
    this.outage = undefined
    this.log = []
  }

  /** No faults from here on (the drain at the end of a seed, connecting profiles); lags and refusals stay. */
  end(): void {
    this.rng = undefined
    this.outage = undefined
  }

  /** Back to networks with no lag and their duplicate checks on (between seeds, connecting profiles). */
  reset(): void {
    this.end()
    this.watch = undefined
    this.behaviour = { ...this.behaviour, listingLagMs: {}, duplicateChecks: true, itemRefusals: 0 }
  }

  listingLagMs(network: Network): number {
    return this.behaviour.listingLagMs[network] ?? 0
  }

  refusesDuplicates(): boolean {
    return this.behaviour.duplicateChecks
  }

  /** A list page cut short (none to two rows) with its cursor kept, on about half of a short-paged seed's pages. */
  shortPage(call: SimulatedCall): number | undefined {
    if (!this.rng || !this.behaviour.shortPages) return undefined
    const stream = this.streamOf(`${call.network}:${call.operation}:pages`)
    const roll = stream.next()
    const rows = stream.int(0, 2)
    if (roll >= 0.5) return undefined
    this.counts.set('short page (cursor kept)', (this.counts.get('short page (cursor kept)') ?? 0) + 1)
    this.log.push(`short page (${rows} rows): ${call.network} ${call.operation}`)
    return rows
  }

  private streamOf(key: string): Prng {
    let stream = this.streams.get(key)
    if (!stream) {
      stream = (this.rng as Prng).fork(key)
      this.streams.set(key, stream)
    }
    return stream
  }

  decide(call: SimulatedCall): Fault | undefined {
    this.watch?.(call)
    const refusal = this.refusal(call)
    if (refusal) return refusal
    if (!this.rng) return undefined
    const read = call.method === 'GET'
    if (call.network === this.outage && read) return this.injected('read 5xx (outage)', call, OUTAGE)
    if (call.network === this.outage && call.effectful)
      return this.injected('5xx after effect (outage)', call, OUTAGE_WRITE)
    const stream = this.streamOf(`${call.network}:${call.operation}`)
    const [rate, table] = call.effectful
      ? [this.behaviour.rates.publishing, PUBLISHING]
      : read
        ? [this.behaviour.rates.reads, READS]
        : [this.behaviour.rates.other, OTHER]
    // Both draws are made on every call, so the stream advances the same way whatever is decided.
    const roll = stream.next()
    const which = stream.next()
    if (roll >= rate) return undefined
    const [kind, fault] = table[Math.floor(which * table.length)]!
    return this.injected(kind, call, fault)
  }

  /**
   * A reply or comment refused for good: decided once per item copy (its tag) from a stream of its own, so
   * every send of the same copy meets the same answer, and an edited item (a new tag) is decided afresh.
   */
  private refusal(call: SimulatedCall): Fault | undefined {
    if (call.method !== 'POST' || !ITEM_WRITES.has(call.operation) || this.behaviour.itemRefusals === 0)
      return undefined
    const tags = carriedText(call).match(ITEM_TAG)
    if (!tags) return undefined
    const tag = tags[0]!
    let refused = this.refused.get(tag)
    if (refused === undefined) {
      refused = new Prng(hash(tag)).chance(this.behaviour.itemRefusals)
      this.refused.set(tag, refused)
    }
    return refused ? this.injected('item refused for good (400)', call, REFUSED) : undefined
  }

  private injected(kind: FaultKind, call: SimulatedCall, fault: Fault): Fault {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1)
    this.log.push(`${kind}: ${call.method} ${call.network} ${call.operation}`)
    return fault
  }
}

/**
 * The copy a call carries: its query and body as text, without links (Herald hosts media under the name of
 * the first file with the same bytes, so a link may name another post) or bytes (an upload carries no copy).
 */
export function carriedText(call: SimulatedCall): string {
  const part = (value: unknown) =>
    value === undefined || value === null || Buffer.isBuffer(value) || value instanceof Uint8Array
      ? ''
      : value instanceof URLSearchParams
        ? JSON.stringify(Object.fromEntries(value))
        : typeof value === 'string'
          ? value
          : typeof (value as { pipe?: unknown }).pipe === 'function'
            ? ''
            : JSON.stringify(value)
  return withoutLinks(`${part(call.query)} ${part(call.body)}`)
}

export const withoutLinks = (text: string) => text.replace(/https?:(?:\\?\/){2}[^"\s&]+/g, ' ')

const hash = (text: string) => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}
