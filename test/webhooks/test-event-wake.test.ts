import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, sendTestEvent, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * A `webhook.test` event (POST /webhooks/:id/test) goes to no subscriber (its caller inserts its one
 * delivery), so recordEvent's signal does not wake the delivery loop for it on Postgres: recordTestEvent
 * does, and the test event arrives at once, not at the next poll (a minute here, as in wake.test.ts).
 */
describe.each(backends)('a test event wakes the delivery loop on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  let webhooks: WebhookWorker
  let endpointId = ''

  beforeAll(async () => {
    h = await startHarness({
      backend,
      env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1', HERALD_WEBHOOK_POLL_MS: '60000' },
    })
    receiver = await startReceiver()
    endpointId = (
      await createEndpoint(
        webhookDepsOf(h.app),
        { workspaceId: h.workspaceId, role: 'owner' },
        { url: receiver.url },
      )
    ).id
    webhooks = createAppWebhookWorker(h.app, { id: 'wake' })
    webhooks.start()
    await new Promise((r) => setTimeout(r, 300))
  })
  afterAll(async () => {
    await webhooks.stop()
    await receiver.close()
    await h.close()
  })

  it('delivers a test event within a second', async () => {
    const written = Date.now()
    const { eventId } = await sendTestEvent(
      webhookDepsOf(h.app),
      { workspaceId: h.workspaceId, role: 'owner' },
      endpointId,
    )
    for (let waited = 0; waited < 2_000 && !receiver.accepted.some((r) => r.id === eventId); waited += 10)
      await new Promise((r) => setTimeout(r, 10))
    const got = receiver.accepted.find((r) => r.id === eventId)
    expect(got).toBeDefined()
    expect((got?.at ?? Number.POSITIVE_INFINITY) - written).toBeLessThan(1_000)
  })
})
