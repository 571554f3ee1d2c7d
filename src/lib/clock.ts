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
