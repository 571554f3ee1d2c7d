import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { manage } from '../helpers/team.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

describe.each(backends)('credits.low on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  let webhooks: WebhookWorker

  beforeAll(async () => {
    h = await startHarness({ backend, credits: 105, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    receiver = await startReceiver()
    webhooks = createAppWebhookWorker(h.app, { id: 'credits' })
    expect(
      (await manage(h, 'POST', '/api/webhooks/endpoints', { url: receiver.url, eventTypes: ['credits.low'] }))
        .status,
    ).toBe(201)
  })
  afterAll(async () => {
    await webhooks.stop()
    await receiver.close()
    await h.close()
  })

  it('refuses a threshold that is not a positive whole number and changes nothing', async () => {
    for (const creditsLowThreshold of [0, -5, 1.5, '100'])
      expect((await manage(h, 'POST', '/api/webhooks/settings', { creditsLowThreshold })).status).toBe(400)
    expect((await manage(h, 'GET', '/api/webhooks/settings')).body).toEqual({ creditsLowThreshold: null })
  })

  it('sends credits.low once, from the charge that takes the balance below the threshold', async () => {
    const set = await manage(h, 'POST', '/api/webhooks/settings', { creditsLowThreshold: 100 })
    expect(set.body).toEqual({ creditsLowThreshold: 100 })
    const slot = {
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      timezone: 'UTC',
    }
    // 105 → 100 (not below), → 95 (crosses), → 90 (already below).
    for (const time of ['10:00', '11:00', '12:00'])
      expect(
        (await h.call('create_post', { ...slot, content: `Post at ${time}`, scheduleTime: time })).status,
      ).toBe(200)
    await webhooks.drain()
    const low = receiver.accepted.filter((r) => r.event.type === 'credits.low')
    expect(low).toHaveLength(1)
    expect(low[0]?.event.data.credits).toEqual({ balance: 95, threshold: 100 })
  })
})
