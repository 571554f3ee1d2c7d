import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

const T0 = Date.UTC(2030, 2, 1, 0, 0, 0)
const TOO_BUSY =
  'The X profile had too many posts since the attempt to be sure whether it went out (read 1000 posts in 10 pages without reaching the attempt)'

describe.each(backends)('a lookup that cannot read back to the attempt, on $name', (backend) => {
  let h: Harness
  let clock: FakeClock
  let twitter: ScriptedAdapter
  let worker: Worker
  let lookups = 0

  beforeAll(async () => {
    clock = new FakeClock(T0)
    twitter = scriptedAdapter('twitter')
    // The lookup of a profile too busy to read back to the attempt (src/adapters/lookup-scan.ts).
    twitter.findPublished = async () => {
      lookups += 1
      throw new PublishFailure('unknown_outcome', TOO_BUSY)
    }
    h = await startHarness({
      backend,
      clock,
      adapters: { twitter },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_UNKNOWN_OUTCOME_CHECK_MS: '60000' },
      credits: 1000,
    })
    await connectProfile(h, 'twitter', 'tw-busy', 'busy')
    worker = createAppWorker(h.app, { id: 'lookup-bound-worker' })
  })
  afterAll(() => h.close())

  /** A worker pass; the worker also claims on its own timer after a send, so wait until no lease is held. */
  const run = async () => {
    const n = await worker.tick()
    await worker.idle()
    for (let i = 0; i < 100; i++) {
      const leased = await h.app.store.db
        .selectFrom('targets')
        .select('id')
        .where('lease_owner', 'is not', null)
        .where('stuck_at', 'is', null)
        .executeTakeFirst()
      if (!leased) break
      await new Promise((r) => setTimeout(r, 20))
    }
    await worker.idle()
    return n
  }

  it('never sends the post again: it looks again on its own backoff for a day, then leaves the post stuck for a person', async () => {
    const created = await h.call('create_post', {
      content: 'Posted on a busy profile',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-busy' }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.postIds[0] as string
    twitter.script.push(fail('unknown_outcome', 'timed out after sending'))
    await run()
    const row = () =>
      h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', id).executeTakeFirstOrThrow()
    const gaps: number[] = []
    for (let i = 0; i < 40; i++) {
      const before = await row()
      if (before.stuck_at !== null) break
      gaps.push((before.run_at as number) - clock.now())
      clock.set(before.run_at as number)
      await run()
    }
    // One minute, then twice as long after each failed lookup, at most an hour apart; the send attempts
    // are untouched (one send, counted once).
    expect(gaps.slice(0, 8)).toEqual([60, 60, 120, 240, 480, 960, 1920, 3600].map((s) => s * 1000))
    expect(twitter.calls).toHaveLength(1)
    const stuck = await row()
    expect(stuck).toMatchObject({ attempts: 1, stuck_reason: 'lookups_exhausted', status: 'pending' })
    expect(lookups).toBe(stuck.lookups)
    expect(clock.now() - T0).toBeGreaterThanOrEqual(24 * 3_600_000)
    const post = (await h.call('get_post', { id })).body
    expect(post.status).toBe('processing')
    expect(post.targets[0].error).toContain('too many posts since the attempt')
    expect((await h.call('reset_stuck_post', { id })).status).toBe(200)
  })
})
