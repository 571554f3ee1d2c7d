import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { sendTarget } from '../../src/modules/delivery/send.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const T0 = Date.UTC(2030, 4, 6, 8, 0, 0)

/**
 * A worker died mid-send, after X made the post: its lease runs out and another worker's sweep turns the
 * target into a lookup. X's timeline shows a new post only after a while, which is why every unknown
 * outcome waits before its first lookup; the sweep's lookups wait as long. Counted on the X simulator:
 * the posts it holds and the publishing calls it served.
 */
describe.each(backends)('the lookup after a worker died mid-send ($name)', (backend) => {
  let h: Harness
  let worker: Worker
  const clock = new FakeClock(T0)
  const script = scriptedFaults()
  let profileId = ''

  beforeAll(async () => {
    h = await startHarness({
      backend,
      sandbox: true,
      clock,
      faults: script,
      credits: 500,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    profileId = (
      await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'twitter', username: 'laggy' })
    ).profileId
    worker = createAppWorker(h.app, { id: 'survivor', sweepMs: 20, pollMs: 20 })
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
  })

  const target = () =>
    h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('profile_id', '=', profileId)
      .executeTakeFirstOrThrow()
  const calls = (operation: string) => script.calls.filter((call) => call.operation === operation).length
  const until = async (done: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await done()); i++) await new Promise((r) => setTimeout(r, 10))
  }

  it('waits the unknown-outcome delay before it looks, finds the post, and sends nothing again', async () => {
    const { leaseMs, unknownOutcomeCheckMs } = h.app.config.worker
    // The post shows in the timeline after the lease has run out, before the lookup delay has.
    h.sandboxes!.twitter.setTimelineLag(leaseMs + unknownOutcomeCheckMs / 2)
    const created = await h.call('create_post', {
      content: 'Sent by a worker that died before it could say so',
      targetAccounts: [{ platform: 'twitter', profileId }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    // The doomed worker claims the target, sends it (X makes the post) and dies before recording anything.
    await h.app.store.db
      .updateTable('targets')
      .set({
        lease_owner: 'doomed',
        lease_expires_at: clock.now() + leaseMs,
        attempts: 1,
        attempt_started_at: clock.now(),
      })
      .where('profile_id', '=', profileId)
      .execute()
    await sendTarget(
      {
        db: h.app.store.db,
        vault: h.app.vault,
        now: () => clock.now(),
        logger: h.app.logger,
        adapters: h.app.adapters,
      },
      await target(),
      new AbortController().signal,
    )
    expect(h.sandboxes!.twitter.tweets()).toHaveLength(1)

    clock.advance(leaseMs + 1_000)
    worker.start()
    await until(async () => (await target()).lease_owner === null)
    // The survivor's claims meanwhile take nothing: the lookup is not due yet, X was neither read nor
    // sent to again.
    await new Promise((r) => setTimeout(r, 100))
    await worker.idle()
    expect(calls('getUsersPosts')).toBe(0)
    expect(calls('createPosts')).toBe(1)
    expect(await target()).toMatchObject({
      status: 'pending',
      lease_owner: null,
      run_at: clock.now() + unknownOutcomeCheckMs,
    })

    clock.advance(unknownOutcomeCheckMs)
    await until(async () => (await target()).status !== 'pending')
    await worker.idle()
    expect(await target()).toMatchObject({
      status: 'published',
      remote_id: h.sandboxes!.twitter.tweets()[0]!.id,
    })
    expect(h.sandboxes!.twitter.tweets()).toHaveLength(1)
    expect(calls('createPosts')).toBe(1)
  })
})
