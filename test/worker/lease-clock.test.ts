import { afterEach, describe, expect, it } from 'vitest'
import { createAdapters } from '../../src/adapters/registry.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { claimDueTargets } from '../../src/modules/delivery/leases.js'
import { createWorker, type Worker } from '../../src/modules/delivery/worker.js'
import type { Clock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/** A machine clock `offsetMs` off the real one (NTP gone astray, a VM restored from a snapshot). */
const skewed = (offsetMs: number): Clock => ({ now: () => Date.now() + offsetMs })

/**
 * Leases are compared across processes, so their times come from the database's clock, never from the
 * machine each worker runs on: two workers whose clocks disagree by more than a lease never see each
 * other's healthy sends as abandoned. Counted on the X simulator: the posts it holds, the publishing
 * calls and the lookups it served.
 */
describe.each(backends)('leases on the database clock ($name)', (backend) => {
  let h: Harness | undefined
  const workers: Worker[] = []
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop()
    await h?.close()
    h = undefined
  })

  const start = async () => {
    const script = scriptedFaults()
    h = await startHarness({
      backend,
      sandbox: true,
      faults: script,
      credits: 500,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_UNKNOWN_OUTCOME_CHECK_MS: '200' },
    })
    const { profileId } = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'twitter',
      username: 'skewed',
    })
    return { h, script, profileId }
  }

  it('a worker whose clock runs 8 s ahead never takes a send from one whose clock runs behind', async () => {
    const { h, script, profileId } = await start()
    const app = h.app
    const options = {
      concurrency: 2,
      batch: 2,
      pollMs: 50,
      leaseMs: 3_000,
      graceMs: 3_000,
      unknownOutcomeCheckMs: 200,
      sweepMs: 50,
    }
    const behind = skewed(-4_000)
    // The behind worker's POST /2/tweets is on the wire for 1.5 s (a slow network): renewals keep its lease.
    const slow: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/2/tweets') && init?.method === 'POST')
        await new Promise((resolve) => setTimeout(resolve, 1_500))
      return fetch(input, init)
    }
    const deps = {
      store: app.store,
      vault: app.vault,
      logger: app.logger,
      queue: app.queue,
      metrics: app.metrics,
    }
    const slowWorker = createWorker(
      {
        ...deps,
        clock: behind,
        leaseClock: app.leaseClock,
        adapters: createAdapters(app.config, {
          logger: app.logger,
          clock: behind,
          media: app.media,
          http: slow,
        }),
      },
      { ...options, id: 'behind' },
    )
    const aheadWorker = createWorker(
      { ...deps, clock: skewed(4_000), leaseClock: app.leaseClock, adapters: app.adapters },
      { ...options, id: 'ahead' },
    )
    workers.push(slowWorker, aheadWorker)

    const content = 'Sent once by the worker whose clock is behind'
    const created = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', profileId }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const target = () =>
      app.store.db
        .selectFrom('targets')
        .selectAll()
        .where('profile_id', '=', profileId)
        .executeTakeFirstOrThrow()
    // Due for the worker behind too.
    await app.store.db
      .updateTable('targets')
      .set({ run_at: Date.now() - 10_000 })
      .where('profile_id', '=', profileId)
      .execute()
    slowWorker.start()
    for (let i = 0; i < 200 && (await target()).lease_owner !== 'behind'; i++)
      await new Promise((r) => setTimeout(r, 10))
    expect((await target()).lease_owner).toBe('behind')
    aheadWorker.start()
    for (let i = 0; i < 500 && (await target()).status === 'pending'; i++)
      await new Promise((r) => setTimeout(r, 20))
    await new Promise((r) => setTimeout(r, 300))

    const calls = (operation: string) => script.calls.filter((call) => call.operation === operation).length
    expect(calls('createPosts')).toBe(1)
    expect(calls('getUsersPosts')).toBe(0)
    const tweets = h.sandboxes!.twitter.tweets().filter((tweet) => tweet.text === content)
    expect(tweets).toHaveLength(1)
    expect(await target()).toMatchObject({ status: 'published', remote_id: tweets[0]!.id })
  }, 30_000)

  it('reset_stuck_post on a process whose clock runs a minute ahead leaves a live lease alone', async () => {
    const script = scriptedFaults()
    h = await startHarness({
      backend,
      sandbox: true,
      faults: script,
      clock: skewed(60_000),
      leaseClock: () => null,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    const { profileId } = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'twitter',
      username: 'resetter',
    })
    const created = await h.call('create_post', {
      content: 'Being sent right now',
      targetAccounts: [{ platform: 'twitter', profileId }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    // A live worker on a machine with the right time claims it: a 30 s lease on the database's clock.
    await h.app.store.db
      .updateTable('targets')
      .set({ run_at: Date.now() - 1_000 })
      .where('profile_id', '=', profileId)
      .execute()
    const [claimed] = await claimDueTargets(h.app.store, {
      workerId: 'live-worker',
      now: Date.now(),
      leaseNow: null,
      leaseMs: 30_000,
      limit: 1,
      platforms: ['twitter'],
    })
    expect(claimed?.lease_owner).toBe('live-worker')
    const reset = await h.call('reset_stuck_post', { id: created.body.postIds[0] })
    expect(reset.status, JSON.stringify(reset.body)).toBe(409)
    const row = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('id', '=', claimed!.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ lease_owner: 'live-worker', status: 'pending' })
    expect(script.calls.filter((call) => call.effectful)).toHaveLength(0)
  })
})
