import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MAX_ATTEMPTS } from '../../src/core/backoff.js'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

const T0 = Date.UTC(2032, 0, 1, 0, 0, 0)

/** What counts as a send attempt (a rate-limit wait does not), and a re-armed target's fresh budget. */
describe.each(backends)('send attempt budgets on $name', (backend) => {
  let h: Harness
  let clock: FakeClock
  let twitter: ScriptedAdapter
  let worker: Worker

  beforeAll(async () => {
    clock = new FakeClock(T0)
    twitter = scriptedAdapter('twitter')
    h = await startHarness({
      backend,
      clock,
      adapters: { twitter },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
      credits: 10_000,
    })
    await connectProfile(h, 'twitter', 'tw-budget', 'budget')
    worker = createAppWorker(h.app, { id: 'budget-worker' })
  })
  afterAll(() => h.close())
  beforeEach(() => {
    twitter.calls.length = 0
    twitter.script.length = 0
  })

  /**
   * One pass of the worker that sends the due target once. The worker also claims on its own timer after a
   * send; whichever claims, this waits until that send is recorded.
   */
  const run = async () => {
    const calls = twitter.calls.length
    await worker.tick()
    await worker.idle()
    for (let i = 0; i < 100 && twitter.calls.length === calls; i++) {
      await new Promise((r) => setTimeout(r, 20))
      await worker.idle()
    }
    for (let i = 0; i < 100; i++) {
      const leased = await h.app.store.db
        .selectFrom('targets')
        .select('id')
        .where('lease_owner', 'is not', null)
        .executeTakeFirst()
      if (!leased) return
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const create = async () => {
    const res = await h.call('create_post', {
      content: `budget ${Math.random()}`,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-budget' }],
      publishImmediately: true,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.postIds[0] as string
  }
  const target = (id: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', id).executeTakeFirstOrThrow()
  /** Runs the worker at each retry time until the target leaves pending. */
  const drain = async (id: string) => {
    for (let i = 0; i < 20; i++) {
      const row = await target(id)
      if (row.status !== 'pending') return row
      clock.set(Math.max(clock.now(), row.run_at as number))
      await run()
    }
    return target(id)
  }

  it('gives a failed target that publish_post_now re-arms a fresh attempt budget', async () => {
    const id = await create()
    for (let i = 0; i < MAX_ATTEMPTS; i++) twitter.script.push(fail('transient', 'upstream 503'))
    await run()
    expect(await drain(id)).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS })
    expect(twitter.calls).toHaveLength(MAX_ATTEMPTS)

    // The re-send meets one transient error: it is retried, not failed at once.
    twitter.script.push(fail('transient', 'upstream 503 again'))
    expect((await h.call('publish_post_now', { id })).status).toBe(200)
    await run()
    expect(await target(id)).toMatchObject({ status: 'pending', attempts: 1 })
    expect(await drain(id)).toMatchObject({ status: 'published', attempts: 2 })
    expect(twitter.calls).toHaveLength(MAX_ATTEMPTS + 2)
  })

  it('gives a failed target that reschedule_post re-arms a fresh attempt budget', async () => {
    const id = await create()
    for (let i = 0; i < MAX_ATTEMPTS; i++) twitter.script.push(fail('transient', 'upstream 503'))
    await run()
    expect(await drain(id)).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS })
    const slot = new Date(clock.now() + 3_600_000)
    const moved = await h.call('reschedule_post', {
      id,
      scheduleDate: slot.toISOString().slice(0, 10),
      scheduleTime: slot.toISOString().slice(11, 16),
      timezone: 'UTC',
    })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    expect(await target(id)).toMatchObject({ status: 'pending', attempts: 0 })
    clock.set(slot.getTime() + 60_000)
    twitter.script.push(fail('transient', 'upstream 503 again'))
    await run()
    expect(await target(id)).toMatchObject({ status: 'pending', attempts: 1 })
    expect(await drain(id)).toMatchObject({ status: 'published' })
  })

  it('waits out rate limits until the time the network gives without spending attempts', async () => {
    const id = await create()
    const resets: number[] = []
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
      const resetAt = clock.now() + (i + 1) * 15 * 60_000 + 1234
      resets.push(resetAt)
      twitter.script.push(fail('rate_limited', 'Too Many Requests', { resetAt }))
    }
    await run()
    for (const resetAt of resets) {
      const row = await target(id)
      // Back exactly at the reset the network named (no backoff on top), and not one attempt spent.
      expect(row).toMatchObject({ status: 'pending', run_at: resetAt, attempts: 0 })
      clock.set(resetAt)
      await run()
    }
    // The attempts are all still there for real failures.
    expect(await target(id)).toMatchObject({ status: 'published', attempts: 1 })
    expect(twitter.calls).toHaveLength(MAX_ATTEMPTS + 3)
  })
})
