import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RETRY_SCHEDULE_MS } from '../../src/core/webhook-events.js'
import { createAppWebhookWorker } from '../../src/main.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, getEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { FakeClock } from '../../src/platform/clock.js'
import { markNeedsReconnect } from '../../src/platform/db/statements/connections.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

describe.each(backends)('disabling a failing endpoint on $name', (backend) => {
  let h: Harness
  let healthy: Receiver
  let broken: Receiver
  let webhooks: WebhookWorker
  const clock = new FakeClock(Date.now())
  const owner = () => ({ workspaceId: h.workspaceId, role: 'owner' as const })

  /** A change that reports an event: a connection marked for reconnecting. */
  const somethingHappens = async (profileId: string) => {
    const id = await connectProfile(h, 'twitter', profileId, profileId)
    await markNeedsReconnect(h.app.store.db, id, 'refused', clock.now())
  }

  beforeAll(async () => {
    h = await startHarness({ backend, clock, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    healthy = await startReceiver()
    broken = await startReceiver()
    await createEndpoint(webhookDepsOf(h.app), owner(), { url: healthy.url, description: 'healthy' })
    webhooks = createAppWebhookWorker(h.app, { id: 'disabling' })
  })
  afterAll(async () => {
    await webhooks.stop()
    await healthy.close()
    await broken.close()
    await h.close()
  })

  it('disables an endpoint at once on 410 Gone and tells the other endpoints', async () => {
    broken.answer = () => 410
    const gone = await createEndpoint(webhookDepsOf(h.app), owner(), { url: broken.url, description: 'gone' })
    await somethingHappens('gone-1')
    await webhooks.drain()
    expect(broken.requests).toHaveLength(1)
    const view = await getEndpoint(webhookDepsOf(h.app), owner(), gone.id)
    expect(view).toMatchObject({ enabled: false, disabledReason: 'The receiver answered 410 Gone.' })
    const told = healthy.accepted.filter((r) => r.event.type === 'endpoint.disabled')
    expect(told).toHaveLength(1)
    expect(told[0]?.event.data.endpoint).toMatchObject({ id: gone.id, url: broken.url })
    // Nothing more goes to it.
    await somethingHappens('gone-2')
    await webhooks.drain()
    expect(broken.requests).toHaveLength(1)
  })

  it('disables an endpoint whose attempts all failed for 3 days, and not before', async () => {
    broken.requests.length = 0
    broken.answer = () => 500
    const failing = await createEndpoint(webhookDepsOf(h.app), owner(), {
      url: broken.url,
      description: 'failing',
    })
    await somethingHappens('failing-1')
    await webhooks.drain()
    let waited = 0
    for (const step of RETRY_SCHEDULE_MS) {
      const view = await getEndpoint(webhookDepsOf(h.app), owner(), failing.id)
      if (waited < 3 * 24 * 3_600_000) expect(view.enabled).toBe(true)
      if (!view.enabled) break
      clock.advance(step)
      waited += step
      await webhooks.drain()
    }
    const view = await getEndpoint(webhookDepsOf(h.app), owner(), failing.id)
    expect(view).toMatchObject({ enabled: false, disabledReason: 'Every delivery failed for 3 days.' })
    expect(healthy.accepted.filter((r) => r.event.data.endpoint?.id === failing.id)).toHaveLength(1)
    // Every attempt carried the same webhook-id.
    expect(new Set(broken.requests.map((r) => r.id)).size).toBe(1)
  })
})
