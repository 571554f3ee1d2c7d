import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { claimDueTargets } from '../../src/modules/delivery/leases.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { backends } from '../helpers/backends.js'
import { before500, type ScriptedFaults, scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { connectSandboxProfile, publishAs, type SandboxProfile } from '../helpers/sandbox-adapters.js'

/**
 * Unknown outcomes and expired leases, against the X simulator with the real adapter and the real worker:
 * while an outcome is unknown nothing sends again until a lookup has answered "not there" with certainty, and
 * a lease that ran out (a crash) becomes a lookup. Copies are counted on the simulated network.
 */
describe.each(backends)('unknown outcomes and their lookups, on $name', (backend) => {
  let h: Harness
  let faults: ScriptedFaults
  let worker: Worker
  let acme: SandboxProfile

  beforeAll(async () => {
    faults = scriptedFaults()
    h = await startHarness({
      backend,
      sandbox: true,
      faults,
      credits: 1000,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_UNKNOWN_OUTCOME_CHECK_MS: '100' },
    })
    acme = await connectSandboxProfile(h, 'twitter', 'acme')
    worker = createAppWorker(h.app, { id: 'lookups-worker', leaseMs: 60_000 })
  }, 60_000)
  afterAll(() => h?.close())

  const copies = (text: string) => h.sandboxes!.twitter.tweets().filter((t) => t.text === text)
  const target = (postId: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow()
  const runUntil = async (done: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 20_000
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await worker.tick()
      await worker.idle()
      await new Promise((r) => setTimeout(r, 40))
    }
  }
  const create = async (content: string) => {
    const created = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', username: 'acme' }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    return created.body.postIds[0] as string
  }

  it('keeps the unknown-outcome mark when the lookup fails, leaves its lookup as it is on publish_post_now, and never posts twice', async () => {
    const content = 'Five hundred after the post was made'
    faults.on(
      { network: 'twitter', operation: 'createPosts' },
      { timing: 'after', answer: { kind: 'status', status: 503 } },
    )
    faults.on({ network: 'twitter', operation: 'getUsersPosts' }, before500, 3)
    const id = await create(content)
    await worker.tick()
    await worker.idle()
    expect(copies(content)).toHaveLength(1)
    // The lookup's own read fails: the target keeps its mark and is looked up again, never re-sent.
    await runUntil(async () => (await target(id)).lookup_failed_at !== null, 'a failed lookup')
    const waiting = await target(id)
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1 })
    expect(waiting.unknown_outcome_at).not.toBeNull()
    // publish_post_now says the post is going out and changes nothing: the lookup keeps its due time (an
    // earlier one could look before X lists the post) and nothing is charged.
    const now = await h.call('publish_post_now', { id })
    expect(now.status, JSON.stringify(now.body)).toBe(200)
    expect(now.body.credits.charged).toBe(0)
    expect((await target(id)).run_at).toBe(waiting.run_at)
    expect(
      (await h.call('reschedule_post', { id, scheduleDate: '2040-01-01', scheduleTime: '10:00' })).status,
    ).toBe(409)
    await runUntil(async () => (await target(id)).status === 'published', 'the lookup to find the post')
    const [copy] = copies(content)
    expect(copies(content)).toHaveLength(1)
    expect((await target(id)).remote_id).toBe(copy?.id)
  }, 60_000)

  it('looks before sending again after a 429 that answered the post X had already made', async () => {
    const content = 'Too many requests, said after the post was made'
    faults.on(
      { network: 'twitter', operation: 'createPosts' },
      {
        timing: 'after',
        answer: {
          kind: 'status',
          status: 429,
          headers: { 'x-rate-limit-reset': String(Math.ceil(Date.now() / 1000) + 1) },
        },
      },
    )
    const id = await create(content)
    await runUntil(async () => (await target(id)).status === 'published', 'the lookup to find the post')
    const [copy] = copies(content)
    expect(copies(content)).toHaveLength(1)
    expect((await target(id)).remote_id).toBe(copy?.id)
  }, 60_000)

  it('sends again only after a lookup that answered: not there', async () => {
    const content = 'Refused before anything happened'
    faults.on({ network: 'twitter', operation: 'createPosts' }, before500)
    faults.on({ network: 'twitter', operation: 'getUsersPosts' }, before500, 2)
    const from = faults.calls.length
    const id = await create(content)
    await runUntil(async () => (await target(id)).status === 'published', 'the re-send')
    expect(copies(content)).toHaveLength(1)
    const publishingAndLookups = faults.calls
      .slice(from)
      .filter((c) => c.operation === 'createPosts' || c.operation === 'getUsersPosts')
      .map((c) => c.operation)
    // The 503 (outcome unknown on X), two lookups that could not read, one that read, then the send.
    expect(publishingAndLookups).toEqual([
      'createPosts',
      'getUsersPosts',
      'getUsersPosts',
      'getUsersPosts',
      'createPosts',
    ])
    expect((await target(id)).attempts).toBe(2)
  }, 60_000)

  it('turns a lease that ran out (the worker died after X took the post) into a lookup, not a stuck post', async () => {
    const content = 'Sent by a worker that died before it heard back'
    const id = await create(content)
    // A worker claims the target, its call reaches X, and it dies before recording anything.
    const [claimed] = await claimDueTargets(h.app.store, {
      workerId: 'dead-worker',
      now: Date.now(),
      leaseMs: 50,
      limit: 10,
      platforms: ['twitter'],
    })
    expect(claimed?.post_id).toBe(id)
    await publishAs(h, acme, content)
    await new Promise((r) => setTimeout(r, 60))
    const sweeping = createAppWorker(h.app, { id: 'sweeping-worker', sweepMs: 50, pollMs: 50 })
    sweeping.start()
    try {
      const deadline = Date.now() + 20_000
      while ((await target(id)).status !== 'published' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
    } finally {
      await sweeping.stop()
    }
    const settled = await target(id)
    expect(settled).toMatchObject({ status: 'published', stuck_at: null, lease_owner: null })
    expect(copies(content)).toHaveLength(1)
    expect(settled.remote_id).toBe(copies(content)[0]?.id)
  }, 60_000)
})
