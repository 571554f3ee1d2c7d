import { createEndpoint, webhookDepsOf } from '../src/modules/outbox/endpoints.js'
import { claimDeliveries, outboxWaiting } from '../src/platform/db/statements/webhooks.js'
import { startHarness } from '../test/helpers/harness.js'
import type { SharedDatabase } from '../test/helpers/worker-processes.js'
import { percentile, round } from './stats.js'

export interface WebhookBacklogResult {
  name: string
  waiting: number
  lookMs: number
  claimMs: number
}

/**
 * A receiver that has been down a while: `waiting` deliveries (each a post's target event, with its post
 * event behind it) waiting an hour for their next attempt. What one poll of the delivery loop costs then:
 * the look for due work and a claim (which finds nothing due), medians of 20.
 */
export async function benchWebhookBacklog(
  name: string,
  make: () => SharedDatabase,
  waiting = 50_000,
): Promise<WebhookBacklogResult> {
  const db = make()
  const h = await startHarness({
    backend: { name: db.name, open: db.open },
    credits: 0,
    env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' },
  })
  try {
    const store = h.app.store
    const owner = { workspaceId: h.workspaceId, role: 'owner' as const }
    const endpoint = await createEndpoint(webhookDepsOf(h.app), owner, { url: 'http://127.0.0.1:9/down' })
    const now = Date.now()
    const retryAt = now + 3_600_000
    for (let i = 0; i < waiting; i += 500) {
      const posts = Array.from({ length: Math.min(500, waiting - i) }, (_, j) => `post-${i + j}`)
      const events = await store.db
        .insertInto('events')
        .values(
          posts.flatMap((post, j) =>
            ['target.failed', 'post.failed'].map((type, k) => ({
              id: `ev-${i + j}-${k}`,
              workspace_id: h.workspaceId,
              type,
              order_key: post,
              payload: '{}',
              fanned_out: 1,
              created_at: now,
            })),
          ),
        )
        .returning(['seq', 'id', 'order_key'])
        .execute()
      await store.db
        .insertInto('webhook_deliveries')
        .values(
          events.map((event) => ({
            id: `dl-${event.id}`,
            event_seq: Number(event.seq),
            event_id: event.id,
            endpoint_id: endpoint.id,
            workspace_id: h.workspaceId,
            order_key: event.order_key,
            status: 'pending',
            attempts: 3,
            // The post event waits with its target event (recordAttempt moves it along with each retry).
            next_attempt_at: retryAt,
            lease_owner: null,
            lease_expires_at: null,
            created_at: now,
            delivered_at: null,
          })),
        )
        .execute()
    }
    const looks: number[] = []
    const claims: number[] = []
    for (let i = 0; i < 20; i++) {
      let started = performance.now()
      await outboxWaiting(store.db, now)
      looks.push(performance.now() - started)
      started = performance.now()
      const claimed = await claimDeliveries(store, {
        workerId: 'bench',
        now,
        leaseMs: 30_000,
        limit: 128,
        busyEndpoints: [],
        perEndpoint: 64,
        inFlight: {},
      })
      claims.push(performance.now() - started)
      if (claimed.length > 0) throw new Error('a delivery waiting for its retry was claimed')
    }
    return {
      name,
      waiting,
      lookMs: round(percentile(looks, 50), 2),
      claimMs: round(percentile(claims, 50), 2),
    }
  } finally {
    await h.close()
    await db.drop()
  }
}
