import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebhookWorker, type WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { recordEvent } from '../../src/platform/db/statements/events.js'
import { writeTransaction } from '../../src/platform/db/write-transaction.js'
import { backends } from '../helpers/backends.js'
import type { Harness } from '../helpers/harness.js'
import { duplicates, type Receiver } from '../helpers/webhook-receiver.js'
import { startWebhookRig } from '../helpers/webhook-rig.js'

/**
 * A claim takes more deliveries than the worker may start at once and queues the rest. A queued delivery
 * whose lease no longer covers a whole call is given back, never sent late: here its lease runs out while
 * it waits, another worker takes it and delivers it, and the first worker must not send it a second time.
 */
describe.each(backends)('deliveries queued by a claim on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  const clock = new FakeClock(Date.now())
  const workers: WebhookWorker[] = []
  const make = (name: string) => {
    const worker = createWebhookWorker(
      { ...h.app, clock },
      {
        id: name,
        concurrency: 1,
        perEndpoint: 1,
        leaseMs: 4_000,
        client: { policy: { allowPrivate: true }, timeoutMs: 1_000 },
      },
    )
    workers.push(worker)
    return worker
  }

  beforeAll(async () => {
    ;({ h, receiver } = await startWebhookRig(backend, clock))
  })
  afterAll(async () => {
    for (const w of workers) await w.stop()
    await receiver.close()
    await h.close()
  })

  it('gives back a queued delivery whose lease ran out instead of sending it after another worker did', async () => {
    const ids: string[] = []
    await writeTransaction(h.app.store, async (tx) => {
      for (const n of [1, 2, 3, 4])
        ids.push(
          await recordEvent(tx, {
            workspaceId: h.workspaceId,
            type: 'account.needs_reconnect',
            data: { account: { platform: 'twitter', profileId: `queued-${n}` }, reason: 'test' },
            now: clock.now(),
          }),
        )
    })
    // The receiver holds the first call it gets until the test lets it answer.
    let answerFirst: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      answerFirst = resolve
    })
    let calls = 0
    receiver.answer = async () => {
      if (++calls === 1) await held
      return 204
    }
    const first = make('first')
    // One slot: the claim takes all four, starts one, queues three.
    expect(await first.tick()).toBe(4)
    for (let waited = 0; waited < 5_000 && receiver.requests.length === 0; waited += 10)
      await new Promise((r) => setTimeout(r, 10))
    expect(receiver.requests.map((r) => r.id)).toEqual([ids[0]])

    // The first worker stalls past the leases; a second one takes all four (the held call's lease ran
    // out too) and delivers them.
    clock.advance(5_000)
    const second = make('second')
    await second.drain()
    expect(new Set(receiver.accepted.map((r) => r.id))).toEqual(new Set(ids))

    // The first call answers; the first worker must not send the three it had queued.
    answerFirst()
    await first.idle()
    await new Promise((r) => setTimeout(r, 100))
    await second.drain()
    expect(new Set(receiver.accepted.map((r) => r.id))).toEqual(new Set(ids))
    // Only the call that was under way when its lease ran out arrives twice (at least once); none of the
    // three that waited in the first worker's queue is sent by it.
    expect(duplicates(receiver.accepted)).toEqual([ids[0]])
  })
})
