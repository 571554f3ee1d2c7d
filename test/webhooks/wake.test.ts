import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { recordEvent } from '../../src/platform/db/statements/events.js'
import { writeTransaction } from '../../src/platform/db/write-transaction.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * An event written in this process wakes the delivery loop: it goes out at once, not at the next poll.
 * The poll is a minute here, so only the wake can deliver within the test's seconds.
 */
describe.each(backends)('the delivery loop woken by an event written in process on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  let webhooks: WebhookWorker

  beforeAll(async () => {
    h = await startHarness({
      backend,
      env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1', HERALD_WEBHOOK_POLL_MS: '60000' },
    })
    receiver = await startReceiver()
    await createEndpoint(
      webhookDepsOf(h.app),
      { workspaceId: h.workspaceId, role: 'owner' },
      { url: receiver.url },
    )
    webhooks = createAppWebhookWorker(h.app, { id: 'wake' })
    webhooks.start()
    // The first pass (at start) has found nothing; the next poll is a minute away.
    await new Promise((r) => setTimeout(r, 300))
  })
  afterAll(async () => {
    await webhooks.stop()
    await receiver.close()
    await h.close()
  })

  it('delivers an event recorded outside the publishing path (no settle) within a second', async () => {
    for (const n of [1, 2, 3]) {
      const written = Date.now()
      const id = await writeTransaction(h.app.store, async (tx) => {
        const eventId = await recordEvent(tx, {
          workspaceId: h.workspaceId,
          type: 'account.needs_reconnect',
          data: { account: { platform: 'twitter', profileId: `wake-${n}` }, reason: 'test' },
          now: Date.now(),
        })
        // The transaction stays open a little after the write: the loop must still find it.
        await new Promise((r) => setTimeout(r, 5))
        return eventId
      })
      for (let waited = 0; waited < 2_000 && !receiver.accepted.some((r) => r.id === id); waited += 10)
        await new Promise((r) => setTimeout(r, 10))
      const got = receiver.accepted.find((r) => r.id === id)
      expect(got).toBeDefined()
      expect((got?.at ?? Number.POSITIVE_INFINITY) - written).toBeLessThan(1_000)
    }
  })
})
