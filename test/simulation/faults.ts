import type { Fault, FaultInjector, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import type { Prng } from './prng.js'

/**
 * The network faults of one seed: every request any simulator serves is asked about here, and a PRNG
 * stream of its own per `network:operation` decides (so the n-th `createPosts` of a seed meets the same
 * fault on every replay, whatever the other operations did). The kinds are the list:
 * refused before the effect, 5xx or 429 after it, a late answer past the client timeout after it, a
 * connection cut before or after it; reads (the lookups) fail the same ways.
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

export class SimulatedFaults implements FaultInjector {
  /** Faults injected, by kind, since the process started. */
  readonly counts = new Map<FaultKind, number>()
  /** Faults injected in the current seed, in order (printed for a failing seed). */
  log: string[] = []
  private rng: Prng | undefined
  private rates: FaultRates = { publishing: 0, reads: 0, other: 0 }
  private readonly streams = new Map<string, Prng>()

  /** Starts a seed's schedule. */
  begin(rng: Prng, rates: FaultRates): void {
    this.rng = rng
    this.rates = rates
    this.streams.clear()
    this.log = []
  }

  /** No faults from here on (the drain at the end of a seed, connecting profiles). */
  end(): void {
    this.rng = undefined
  }

  decide(call: SimulatedCall): Fault | undefined {
    if (!this.rng) return undefined
    const key = `${call.network}:${call.operation}`
    let stream = this.streams.get(key)
    if (!stream) {
      stream = this.rng.fork(key)
      this.streams.set(key, stream)
    }
    const read = call.method === 'GET'
    const [rate, table] = call.effectful
      ? [this.rates.publishing, PUBLISHING]
      : read
        ? [this.rates.reads, READS]
        : [this.rates.other, OTHER]
    // Both draws are made on every call, so the stream advances the same way whatever is decided.
    const roll = stream.next()
    const which = stream.next()
    if (roll >= rate) return undefined
    const [kind, fault] = table[Math.floor(which * table.length)]!
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1)
    this.log.push(`${kind}: ${call.method} ${call.network} ${call.operation}`)
    return fault
  }
}
