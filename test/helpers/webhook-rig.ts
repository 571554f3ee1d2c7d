import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import type { Clock } from '../../src/platform/clock.js'
import type { backends } from './backends.js'
import { type Harness, startHarness } from './harness.js'
import { type Receiver, startReceiver } from './webhook-receiver.js'

/** A harness (private receivers allowed) whose workspace has one endpoint: a local receiver. */
export async function startWebhookRig(
  backend: (typeof backends)[number],
  clock: Clock,
): Promise<{ h: Harness; receiver: Receiver }> {
  const h = await startHarness({ backend, clock, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
  const receiver = await startReceiver()
  await createEndpoint(
    webhookDepsOf(h.app),
    { workspaceId: h.workspaceId, role: 'owner' },
    { url: receiver.url },
  )
  return { h, receiver }
}
