import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

const T0 = Date.UTC(2030, 3, 1, 9, 0, 0)
const MINUTE = 60_000

describe.each(backends)('a throttled profile on $name', (backend) => {
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
      credits: 1000,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    worker = createAppWorker(h.app, { id: 'throttle-worker' })
  })
  afterAll(() => h.close())

  it('is not sent to until its rate-limit reset, even for a post created after the throttle was recorded', async () => {
    await h.app.store.db
      .updateTable('connections')
      .set({ throttled_until: T0 + 15 * MINUTE })
      .where('profile_id', '=', 'tw-1')
      .execute()
    const created = await h.call('create_post', {
      content: 'After the throttle',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(await worker.tick()).toBe(0)
    clock.advance(14 * MINUTE)
    expect(await worker.tick()).toBe(0)
    clock.advance(2 * MINUTE)
    expect(await worker.tick()).toBe(1)
    await worker.idle()
    expect(twitter.calls.map((c) => c.content)).toEqual(['After the throttle'])
  })
})
