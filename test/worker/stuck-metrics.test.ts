import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LookupAnswer, PublishFailure } from '../../src/adapters/adapter.js'
import { createAppWorker } from '../../src/main.js'
import { sweepExpiredLeases } from '../../src/modules/delivery/leases.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

const T0 = Date.UTC(2033, 0, 1, 0, 0, 0)

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789'

/** /metrics shows lookups pending, lookups failed and stuck targets by reason, counted exactly. */
describe.each(backends)('lookup and stuck gauges on $name', (backend) => {
  let h: Harness
  let clock: FakeClock
  let twitter: ScriptedAdapter
  let linkedin: ScriptedAdapter
  let worker: Worker
  let lookup: () => Promise<LookupAnswer> = async () => ({ kind: 'absent' })

  beforeAll(async () => {
    clock = new FakeClock(T0)
    twitter = scriptedAdapter('twitter')
    twitter.findPublished = () => lookup()
    // LinkedIn here has no lookup: an unknown outcome there is stuck at once.
    linkedin = scriptedAdapter('linkedin')
    h = await startHarness({
      backend,
      clock,
      adapters: { twitter, linkedin },
      env: {
        HERALD_IMMEDIATE_WAIT_MS: '0',
        HERALD_UNKNOWN_OUTCOME_CHECK_MS: '60000',
        HERALD_METRICS_TOKEN: METRICS_TOKEN,
      },
      credits: 10_000,
    })
    await connectProfile(h, 'twitter', 'tw-gauges', 'gauges')
    await connectProfile(h, 'linkedin', 'li-gauges', 'gauges-li')
    worker = createAppWorker(h.app, { id: 'gauges-worker' })
  })
  afterAll(() => h.close())

  /** A worker pass; the worker also claims on its own timer after a send, so wait until no lease is held. */
  const run = async () => {
    await worker.tick()
    await worker.idle()
    for (let i = 0; i < 100; i++) {
      const leased = await h.app.store.db
        .selectFrom('targets')
        .select('id')
        .where('lease_owner', 'is not', null)
        .where('stuck_at', 'is', null)
        .where('lease_expires_at', '>', clock.now())
        .executeTakeFirst()
      if (!leased) break
      await new Promise((r) => setTimeout(r, 20))
    }
    await worker.idle()
  }
  const create = async (platform: 'twitter' | 'linkedin') => {
    const res = await h.call('create_post', {
      content: `gauges ${Math.random()}`,
      targetAccounts: [{ platform, profileId: platform === 'twitter' ? 'tw-gauges' : 'li-gauges' }],
      publishImmediately: true,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.postIds[0] as string
  }
  const gauges = async () => {
    const text = await (
      await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text()
    return text.split('\n').filter((line) => /^herald_(stuck_targets|lookups_)/.test(line))
  }

  it('counts each lookup waiting, each failing, and each stuck target under its reason', async () => {
    // Two X posts go unanswered: both wait for a lookup.
    twitter.script.push(fail('unknown_outcome', 'timed out after sending'))
    twitter.script.push(fail('unknown_outcome', 'timed out after sending'))
    await create('twitter')
    await create('twitter')
    await run()
    expect(await gauges()).toEqual([
      'herald_stuck_targets 0',
      'herald_stuck_targets_by_reason{reason="worker_lost"} 0',
      'herald_stuck_targets_by_reason{reason="no_lookup"} 0',
      'herald_stuck_targets_by_reason{reason="ambiguous"} 0',
      'herald_stuck_targets_by_reason{reason="lookups_exhausted"} 0',
      'herald_stuck_targets_by_reason{reason="lease_expired"} 0',
      'herald_lookups_pending 2',
      'herald_lookups_failed 0',
    ])
    // Their lookups: the first cannot ask X, the second reads posts it cannot tell apart.
    const answers: Array<() => Promise<LookupAnswer>> = [
      async () => {
        throw new PublishFailure('transient', 'X answered 503')
      },
      async () => ({ kind: 'ambiguous', reason: 'Two posts since the attempt carry this copy' }),
    ]
    lookup = () => (answers.shift() as () => Promise<LookupAnswer>)()
    clock.advance(61_000)
    await run()
    // A LinkedIn post goes unanswered (no lookup there), and a worker dies holding another one.
    linkedin.script.push(fail('unknown_outcome', 'timed out after sending'))
    await create('linkedin')
    await run()
    const orphan = await create('linkedin')
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'dead-worker', lease_expires_at: clock.now() - 1 })
      .where('post_id', '=', orphan)
      .execute()
    expect(await gauges()).toEqual([
      'herald_stuck_targets 3',
      'herald_stuck_targets_by_reason{reason="worker_lost"} 0',
      'herald_stuck_targets_by_reason{reason="no_lookup"} 1',
      'herald_stuck_targets_by_reason{reason="ambiguous"} 1',
      'herald_stuck_targets_by_reason{reason="lookups_exhausted"} 0',
      'herald_stuck_targets_by_reason{reason="lease_expired"} 1',
      'herald_lookups_pending 1',
      'herald_lookups_failed 1',
    ])
    // The sweep sees the dead worker's lease (LinkedIn cannot look up): stuck, worker_lost.
    await sweepExpiredLeases(
      h.app.store,
      clock.now(),
      ['twitter'],
      { stuck: 'died', lookup: () => 'look' },
      60_000,
    )
    expect((await gauges()).slice(0, 2)).toEqual([
      'herald_stuck_targets 3',
      'herald_stuck_targets_by_reason{reason="worker_lost"} 1',
    ])
    expect((await gauges()).at(5)).toBe('herald_stuck_targets_by_reason{reason="lease_expired"} 0')
  })
})
