/**
 * The simulation's only source of chance: a seeded PRNG (SplitMix32 state, Mulberry32 output), so a seed
 * names one schedule of faults and tool calls. `fork(label)` derives an independent stream, so the
 * choices made for one kind of decision (faults on X's createPosts, say) do not shift when another kind
 * is asked more or less often.
 */
export class Prng {
  private state: number

  constructor(readonly seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** An independent stream for one kind of decision, fixed by the seed and the label. */
  fork(label: string): Prng {
    let h = this.seed ^ 0x9e3779b9
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193)
    return new Prng(h >>> 0)
  }
}
