import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import { FakeClock } from '../../src/platform/clock.js'
import { recordEvent } from '../../src/platform/db/statements/events.js'
import { claimDeliveries, fanOutEvents } from '../../src/platform/db/statements/webhooks.js'
import { writeTransaction } from '../../src/platform/db/write-transaction.js'
import { backends } from '../helpers/backends.js'
import type { Harness } from '../helpers/harness.js'
import { duplicates, type Receiver } from '../helpers/webhook-receiver.js'
import { startWebhookRig } from '../helpers/webhook-rig.js'

/** Records `n` events (no post order between them) the way a state change does: inside a transaction. */
async function recordMany(h: Harness, n: number, now: number, tag: string): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i += 100)
    await writeTransaction(h.app.store, async (tx) => {
      for (let j = i; j < Math.min(n, i + 100); j++)
        ids.push(
          await recordEvent(tx, {
            workspaceId: h.workspaceId,
            type: 'account.needs_reconnect',
            data: { account: { platform: 'twitter', profileId: `${tag}-${j}` }, reason: 'test' },
            now,
          }),
        )
    })
  return ids
}

describe.each(backends)('webhook delivery through crashes and outages on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  const clock = new FakeClock(Date.now())

  beforeAll(async () => {
    ;({ h, receiver } = await startWebhookRig(backend, clock))
  })
  afterAll(async () => {
    await receiver.close()
    await h.close()
  })

  it('delivers every event once the receiver is back after an hour down, and invents none', async () => {
    const worker = createAppWebhookWorker(h.app, { id: 'outage' })
    const expected = await recordMany(h, 20, clock.now(), 'outage')
    receiver.answer = () => 503
    await worker.drain()
    // An hour passes with the receiver down; every scheduled retry within it is made and refused.
    for (const step of [5_000, 5 * 60_000, 30 * 60_000, 25 * 60_000]) {
      clock.advance(step)
      await worker.drain()
    }
    expect(receiver.accepted).toHaveLength(0)
    const refusedIds = new Set(receiver.requests.map((r) => r.id))
    expect([...refusedIds].sort()).toEqual([...expected].sort())
    receiver.answer = () => 204
    // The next retry (2 h after the previous one) finds it up.
    clock.advance(2 * 3_600_000)
    await worker.drain()
    const ids = receiver.accepted.map((r) => r.id)
    expect(ids.sort()).toEqual([...expected].sort())
    expect(duplicates(receiver.accepted)).toEqual([])
    await worker.stop()
  })

  it('delivers the events of a worker that died holding them once its lease runs out, with the same ids', async () => {
    receiver.accepted.length = 0
    receiver.requests.length = 0
    const expected = await recordMany(h, 10, clock.now(), 'crash')
    // The dead worker fanned out and claimed, then was killed before its POSTs: no attempt was recorded.
    await fanOutEvents(h.app.store, clock.now())
    const held = await claimDeliveries(h.app.store, {
      workerId: 'killed-worker',
      now: clock.now(),
      leaseMs: 30_000,
      limit: 100,
      busyEndpoints: [],
    })
    expect(held.map((d) => d.eventId).sort()).toEqual([...expected].sort())
    const survivor = createAppWebhookWorker(h.app, { id: 'survivor' })
    await survivor.drain()
    expect(receiver.requests).toHaveLength(0)
    clock.advance(30_001)
    await survivor.drain()
    expect(receiver.accepted.map((r) => r.id).sort()).toEqual([...expected].sort())
    expect(duplicates(receiver.accepted)).toEqual([])
    await survivor.stop()
  })

  it('delivers 1,000 events with two workers running at once and 0 duplicate deliveries', async () => {
    receiver.accepted.length = 0
    receiver.requests.length = 0
    const expected = await recordMany(h, 1_000, clock.now(), 'pair')
    const first = createAppWebhookWorker(h.app, { id: 'first' })
    const second = createAppWebhookWorker(h.app, { id: 'second' })
    first.start()
    second.start()
    for (let i = 0; i < 600 && receiver.accepted.length < expected.length; i++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    await first.stop()
    await second.stop()
    expect(receiver.accepted).toHaveLength(1_000)
    expect(duplicates(receiver.accepted)).toEqual([])
    expect(new Set(receiver.accepted.map((r) => r.id))).toEqual(new Set(expected))
  }, 60_000)
})
