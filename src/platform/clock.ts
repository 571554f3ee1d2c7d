/** Time as an injectable dependency, so tests can drive schedules and backoff with a fake clock. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

export class FakeClock implements Clock {
  constructor(private current: number) {}
  now() {
    return this.current
  }
  set(ms: number) {
    this.current = ms
  }
  advance(ms: number) {
    this.current += ms
  }
}

/**
 * The clock lease times are written and compared with. Leases are compared across processes, so in
 * production they use the database's own clock (`null`: each lease statement reads it), which every
 * worker shares whatever its machine's clock says. A fake clock (tests, the fault simulation) drives
 * leases itself: the reading is bound into the statements, so moving the clock expires them.
 */
export type LeaseClock = () => number | null

/** The database's clock for leases under the system clock; the clock itself under any other (a fake). */
export const leaseClockOf = (clock: Clock): LeaseClock =>
  clock === systemClock ? () => null : () => clock.now()
