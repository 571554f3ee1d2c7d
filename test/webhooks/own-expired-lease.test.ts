import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebhookWorker, type WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { recordEvent } from '../../src/platform/db/statements/events.js'
import { writeTransaction } from '../../src/platform/db/write-transaction.js'
import { backends } from '../helpers/backends.js'
import type { Harness } from '../helpers/harness.js'
import type { Receiver } from '../helpers/webhook-receiver.js'
import { startWebhookRig } from '../helpers/webhook-rig.js'
import { waitFor } from '../helpers/worker-processes.js'

/**
 * A call that outlives its lease (the worker's event loop stalled) is claimable again, also by the worker
 * making it. That worker's claim renews the lease for the call under way instead of sending a second one.
 */
describe.each(backends)("a worker's own call past its lease on $name", (backend) => {
  let h: Harness
  let receiver: Receiver
  let worker: WebhookWorker
  const clock = new FakeClock(Date.now())

  beforeAll(async () => {
    ;({ h, receiver } = await startWebhookRig(backend, clock))
    worker = createWebhookWorker(
      { ...h.app, clock },
      {
        id: 'stalled',
        concurrency: 4,
        leaseMs: 1_000,
        client: { policy: { allowPrivate: true }, timeoutMs: 5_000 },
      },
    )
  })
  afterAll(async () => {
    await worker.stop()
    await receiver.close()
    await h.close()
  })

  it('is sent once and recorded once when the same worker claims it again mid-call', async () => {
    const eventId = await writeTransaction(h.app.store, (tx) =>
      recordEvent(tx, {
        workspaceId: h.workspaceId,
        type: 'account.needs_reconnect',
        data: { account: { platform: 'twitter', profileId: 'stalled-1' }, reason: 'test' },
        now: clock.now(),
      }),
    )
    let answer: (status: number) => void = () => {}
    receiver.answer = () => new Promise<number>((resolve) => (answer = resolve))

    expect(await worker.tick()).toBe(1)
    await waitFor(async () => receiver.requests.length === 1, 5_000, 'the first call')
    // The lease runs out while the receiver still holds the call.
    clock.advance(2_000)
    expect(await worker.tick()).toBe(0)
    answer(204)
    await worker.idle()

    expect(receiver.requests.filter((r) => r.id === eventId)).toHaveLength(1)
    const delivery = await h.app.store.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'lease_owner'])
      .where('event_id', '=', eventId)
      .executeTakeFirstOrThrow()
    expect(delivery).toEqual({ status: 'delivered', attempts: 1, lease_owner: null })
    const attempts = await h.app.store.db
      .selectFrom('webhook_attempts')
      .select('outcome')
      .where('event_id', '=', eventId)
      .execute()
    expect(attempts).toEqual([{ outcome: 'delivered' }])
  })
})
