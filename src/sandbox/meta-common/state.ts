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
  /** How many status polls a fetched video stays IN_PROGRESS (default 1). */
  videoPolls?: number
  /** Posts per account per rolling 24 hours (each simulator has its own default). */
  quotaTotal?: number
  /** Downloads media; defaults to the global fetch. */
  fetch?: typeof fetch
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

  /** Downloads `url` as Meta's crawler would: no credentials, no redirects followed. */
  protected async download(url: string): Promise<{ status: number; bytes: Buffer; contentType?: string }> {
    const http =
      this.options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => fetch(input, init))
    const response = await http(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) })
    const bytes = Buffer.from(await response.arrayBuffer())
    const contentType = response.headers.get('content-type') ?? undefined
    return { status: response.status, bytes, ...(contentType ? { contentType } : {}) }
  }
}
