import { afterEach, describe, expect, it } from 'vitest'
import { createAdapters } from '../../src/adapters/registry.js'
import { readItems } from '../../src/core/thread-items.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { sweepExpiredLeases } from '../../src/modules/delivery/leases.js'
import { createWorker, type Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import type { Fault, FaultInjector } from '../../src/sandbox/fault-injector.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * Simulation seed 137 (an X thread item sent twice) and seeds 145/213 (a Threads reply its lookup
 * never found): a worker whose send of a thread outlived its lease (stalled in a media upload) claimed the
 * target again itself, once the sweep had made it a lookup. Both attempts then wrote the target's items as
 * the same `lease_owner`, so the stalled one, waking up, cleared the item's in-flight mark over the new
 * attempt's, and the next attempt sent the item again without looking for it. Copies are counted on the X
 * simulator.
 */
describe('a thread whose send outlived its lease in the worker that still runs it', () => {
  let h: Harness | undefined
  let images: TestServer | undefined
  let worker: Worker | undefined
  afterEach(async () => {
    await worker?.stop()
    await h?.close()
    await images?.close()
    worker = h = images = undefined
  })

  it('is left to other workers until that send ends, and every item reaches X once', async () => {
    const clock = new FakeClock(Date.UTC(2026, 7, 3, 9))
    const scripted: Array<{ operation: string; fault: Fault }> = []
    const faults: FaultInjector = {
      decide(call) {
        const i = scripted.findIndex((s) => s.operation === call.operation)
        if (i < 0) return undefined
        return scripted.splice(i, 1)[0]?.fault
      },
    }
    const photo = await solidImage(800, 800, 'jpeg')
    images = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      res.end(photo)
    })
    h = await startHarness({
      sandbox: true,
      clock,
      faults,
      credits: 500,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    const app = h.app
    const { profileId } = await sandboxConnect(app, {
      workspaceId: h.workspaceId,
      network: 'twitter',
      username: 'stalled',
    })

    // The first media upload of the thread's first item stalls (a paused process), whatever aborts it.
    let stalled: (() => void) | undefined
    let reachedStall: () => void = () => undefined
    const stall = new Promise<void>((resolve) => {
      reachedStall = resolve
    })
    let stalls = 1
    // Were the target claimed again by this worker meanwhile (the old code), the stalled attempt wakes up
    // just before the new attempt creates the item, as the simulation's paused worker did.
    let itemCreates = 0
    /** Creates of each item that left for X (X refuses a second one as duplicate content). */
    const sent = new Map<string, number>()
    const http: typeof fetch = async (input, init) => {
      const url = String(input)
      if (url.includes('/2/media/upload/initialize') && stalls > 0) {
        stalls -= 1
        await new Promise<void>((resolve) => {
          stalled = resolve
          reachedStall()
        })
      }
      if (url.endsWith('/2/tweets') && init?.method === 'POST' && String(init.body).includes('in_reply_to')) {
        itemCreates += 1
        const text = (JSON.parse(String(init.body)) as { text: string }).text
        sent.set(text, (sent.get(text) ?? 0) + 1)
        if (stalled && itemCreates === 1) {
          stalled()
          stalled = undefined
          await waitForItemMarkCleared(h as Harness)
        }
      }
      return fetch(input, init)
    }
    const adapters = createAdapters(app.config, {
      logger: app.logger,
      clock,
      media: app.media,
      http,
      sleep: async () => undefined,
    })
    worker = createWorker(
      {
        store: app.store,
        vault: app.vault,
        clock,
        logger: app.logger,
        queue: app.queue,
        metrics: app.metrics,
        adapters,
      },
      { ...app.config.worker, id: 'only-worker', pollMs: 3_600_000 },
    )

    const created = await h.call('create_post', {
      content: 'Stalled thread 1/ the first',
      targetAccounts: [{ platform: 'twitter', profileId }],
      thread: [
        { content: 'Stalled thread 2/ with a picture', mediaUrls: [`${images.url}/photo.jpg`] },
        { content: 'Stalled thread 3/ the last' },
      ],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const postId = created.body.postIds[0] as string

    expect(await worker.tick()).toBe(1)
    await stall
    // The lease runs out while the send is stalled; the sweep makes the target a lookup, due after the delay.
    clock.advance(app.config.worker.leaseMs + 1_000)
    await sweepExpiredLeases(
      app.store,
      clock.now(),
      ['twitter'],
      { stuck: 'stuck', lookup: () => 'look it up' },
      app.config.worker.unknownOutcomeCheckMs,
    )
    // The item's answer will be lost after X made it.
    scripted.push({ operation: 'createPosts', fault: { timing: 'after', answer: { kind: 'reset' } } })
    const claimedAgain = await worker.tick()
    // Claimed again (the old code), the new attempt wakes the stalled one just before its item's create;
    // otherwise the stalled send wakes up now and meets its lost lease.
    if (claimedAgain === 0) stalled?.()
    await worker.idle()
    await new Promise((resolve) => setTimeout(resolve, 50))

    for (let round = 0; round < 30; round++) {
      const target = await app.store.db
        .selectFrom('targets')
        .selectAll()
        .where('post_id', '=', postId)
        .executeTakeFirstOrThrow()
      if (target.status !== 'pending' || target.stuck_at !== null) break
      clock.advance(2 * 60_000)
      await worker.tick()
      await worker.idle()
    }

    // The item whose answer was lost is never sent again: its lookup finds it.
    expect(sent.get('Stalled thread 2/ with a picture')).toBe(1)
    const tweets = h.sandboxes!.twitter.tweets().filter((t) => t.text.startsWith('Stalled thread'))
    const copies = (n: number) => tweets.filter((t) => t.text.startsWith(`Stalled thread ${n}/`))
    expect(copies(1)).toHaveLength(1)
    expect(copies(2)).toHaveLength(1)
    expect(copies(3)).toHaveLength(1)
    expect(claimedAgain).toBe(0)
    const target = await app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
    expect(target.status).toBe('published')
    expect(readItems(target.items).map((i) => i.remoteId)).toEqual([copies(2)[0]?.id, copies(3)[0]?.id])
  }, 60_000)
})

/** The stalled attempt's write of the first item without its in-flight mark, as the old code let it land. */
async function waitForItemMarkCleared(h: Harness) {
  const deadline = Date.now() + 3_000
  while (Date.now() < deadline) {
    const row = await h.app.store.db.selectFrom('targets').select('items').executeTakeFirst()
    if (row && readItems(row.items)[0]?.startedAt === undefined) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
