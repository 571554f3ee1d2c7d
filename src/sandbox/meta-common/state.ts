/**
 * What every Meta simulator's state keeps (Facebook and Instagram, Threads): the mount prefix and clock,
 * the Meta fetcher's downloads, the calls that did not match Meta's own description, the injected faults,
 * the rolling 24-hour publishing allowance per account, and the numeric ids Meta hands out.
 */

const DAY_MS = 24 * 60 * 60 * 1000
const SIXTY_DAYS_S = 60 * 24 * 60 * 60

let counter = 0
/** A numeric id of the kind Meta hands out (digits only), starting with `prefix`. */
export const numericId = (prefix: string) =>
  `${prefix}${Date.now().toString().slice(-8)}${String(++counter).padStart(5, '0')}`

export interface MetaSimulatorOptions {
  prefix: string
  clock?: () => number
  /** Posts per account per rolling 24 hours (each simulator has its own default). */
  quotaTotal?: number
}

export abstract class MetaSimulatorState<O extends MetaSimulatorOptions, F extends { op: string }, C> {
  readonly prefix: string
  readonly now: () => number
  readonly options: O
  /** Every download the Meta fetcher made, in order. */
  readonly fetches: C[] = []
  /** Calls that did not match Meta's own description of the API (tests expect none). */
  readonly violations: string[] = []
  readonly faults: F[] = []
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
}
