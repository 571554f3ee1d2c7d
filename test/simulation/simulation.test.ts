import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { describeFailure, runSeeds } from './runner.js'

/**
 * The fault simulation in `npm test`: seeds 1..N (default 240) against the real worker, tools, adapters and
 * the simulators of all seven networks, each checked by counting what the networks hold (see
 * docs/simulation.md). Every seed that ever failed is in `regression-seeds.json`: a `fixed` one must pass;
 * an `open` one (a known path still being closed) is kept out of the range and, when it fails alone, must
 * still fail alone, so the day it passes this test says to mark it fixed.
 */

interface RegressionSeed {
  seed: number
  /**
   * `passing`: failed in the first long run, passed in its world in the 20,000-seed run (replayed by the long
   * run, not here); `unreproduced`: failed once under an earlier world model, passes replayed alone.
   */
  status: 'open' | 'fixed' | 'passing' | 'unreproduced'
  cause: string
  found: string
  /** For an open seed: false when it fails only after the seeds before it in its npm test world. */
  replaysAlone?: boolean
}

const regression = JSON.parse(readFileSync(new URL('./regression-seeds.json', import.meta.url), 'utf8')) as {
  seeds: RegressionSeed[]
}
const open = regression.seeds.filter((s) => s.status === 'open')
const openSeeds = new Set(open.map((s) => s.seed))
const RANGE = Number(process.env.HERALD_SIMULATION_SEEDS ?? 240)
const LANES = 4

describe('the fault simulation', () => {
  it(`keeps every promise on seeds 1..${RANGE} across the seven networks`, async () => {
    const seeds = Array.from({ length: RANGE }, (_, i) => i + 1).filter((seed) => !openSeeds.has(seed))
    // One world per lane, so the lanes finish together (replay: `--from <its first seed> --seeds <n>`).
    const summary = await runSeeds(seeds, { lanes: LANES, seedsPerWorld: Math.ceil(seeds.length / LANES) })
    process.stderr.write(`${summary.text}\n`)
    expect(summary.failed.map(describeFailure)).toEqual([])
    // The run did what it says: deliveries checked, and every kind of process fault and tool call happened.
    expect(summary.deliveries).toBeGreaterThan(seeds.length)
    for (const kind of [
      'worker killed',
      'worker paused past its lease',
      'two workers racing',
      'clock jump',
      'publish_post_now',
      'reset_stuck_post',
      'update_post',
      'reschedule_post',
      'delete_post',
      'multicall',
      'post with a thread',
      'post with a first comment',
      'the person tends a post',
      'the person acts before any sweep',
      'update_post (copy)',
      'update_post (items)',
      'update_post (media)',
      'update_post (draft)',
      'update_post (requeue)',
      'update_post (slot)',
      'worker stopped gracefully',
      'a worker with its clock off',
      'network outage of a day',
      'seed with a listing lag',
      'seed refusing replies and comments',
    ])
      expect(summary.events[kind] ?? 0, kind).toBeGreaterThan(0)
    for (const kind of [
      '5xx after effect',
      '429 after effect',
      'late answer after effect',
      'reset after effect',
      'item refused for good (400)',
      'read 5xx (outage)',
    ])
      expect(summary.faults[kind] ?? 0, kind).toBeGreaterThan(0)
  }, 170_000)

  it('keeps every fixed regression seed passing', async () => {
    const fixed = regression.seeds.filter((s) => s.status === 'fixed').map((s) => s.seed)
    const summary = await runSeeds(fixed, { lanes: LANES })
    expect(summary.failed.map(describeFailure)).toEqual([])
  }, 120_000)

  it('still finds every open regression seed in the range (one that passes now is to be marked fixed)', async () => {
    // Each alone, in a world of its own, as it was checked to fail. Which worker claims a target, or which
    // lease a sweep finds, is timing the seed does not fix: one that passes is run twice more before it
    // counts as passing.
    const known = open.filter((s) => s.seed <= RANGE && s.replaysAlone !== false).map((s) => s.seed)
    let passing = known
    for (let round = 0; round < 3 && passing.length > 0; round++) {
      const summary = await runSeeds(passing, { lanes: LANES, seedsPerWorld: 1 })
      const failing = new Set(summary.failed.map((r) => r.seed))
      passing = passing.filter((seed) => !failing.has(seed))
    }
    expect(passing, 'these pass now: mark them fixed').toEqual([])
  }, 170_000)
})
