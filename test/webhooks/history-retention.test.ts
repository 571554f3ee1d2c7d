import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sweepWebhookHistory } from '../../src/main.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { FakeClock } from '../../src/platform/clock.js'
import { pendingDelivery } from '../../src/platform/db/statements/events.js'
import { pruneWebhookHistory } from '../../src/platform/db/statements/webhook-retention.js'
import { newId } from '../../src/platform/ids.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const DAY = 86_400_000

/**
 * The webhook history goes once past its retention, and only what is over: a delivery still pending, the
 * event it delivers, and the event whose snapshot a kept event is rendered from all stay.
 */
describe.each(backends)('the webhook history past its retention on $name', (backend) => {
  const now = Date.parse('2026-11-27T12:00:00Z')
  const clock = new FakeClock(now)
  let h: Harness
  let endpointId: string

  beforeAll(async () => {
    h = await startHarness({ backend, clock, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    endpointId = (
      await createEndpoint(
        webhookDepsOf(h.app),
        { workspaceId: h.workspaceId, role: 'owner' },
        { url: 'http://127.0.0.1:9/hooks' },
      )
    ).id
  })
  afterAll(async () => {
    await h.close()
  })

  /** An event written at `at`, with a delivery to the endpoint in `delivery` state (or none). */
  async function event(
    at: number,
    delivery: { status: 'delivered' | 'failed' | 'pending'; lastAttemptAt?: number } | undefined,
    extra: { snapshot?: string; fannedOut?: number } = {},
  ) {
    const db = h.app.store.db
    const id = newId(at)
    const { seq } = await db
      .insertInto('events')
      .values({
        id,
        workspace_id: h.workspaceId,
        type: 'target.published',
        order_key: 'post-1',
        payload: '{}',
        snapshot: extra.snapshot ?? null,
        fanned_out: extra.fannedOut ?? 1,
        created_at: at,
      })
      .returning('seq')
      .executeTakeFirstOrThrow()
    if (!delivery) return { id }
    const row = pendingDelivery({ seq, id, workspace_id: h.workspaceId, order_key: 'post-1' }, endpointId, at)
    const last = delivery.lastAttemptAt ?? at
    await db
      .insertInto('webhook_deliveries')
      .values({
        ...row,
        status: delivery.status,
        attempts: delivery.status === 'pending' ? 0 : 1,
        next_attempt_at: delivery.status === 'pending' ? now + DAY : last,
        delivered_at: delivery.status === 'delivered' ? last : null,
      })
      .execute()
    if (delivery.status !== 'pending')
      await db
        .insertInto('webhook_attempts')
        .values({
          id: newId(last),
          delivery_id: row.id,
          endpoint_id: endpointId,
          event_id: id,
          event_type: 'target.published',
          attempted_at: last,
          status_code: delivery.status === 'delivered' ? 204 : 500,
          latency_ms: 3,
          outcome: delivery.status,
          response_excerpt: '',
        })
        .execute()
    return { id, deliveryId: row.id }
  }

  const eventIds = async () =>
    new Set((await h.app.store.db.selectFrom('events').select('id').execute()).map((r) => r.id))
  const deliveryIds = async () =>
    new Set((await h.app.store.db.selectFrom('webhook_deliveries').select('id').execute()).map((r) => r.id))
  const attemptCount = async () =>
    (await h.app.store.db.selectFrom('webhook_attempts').select('id').execute()).length

  it('deletes deliveries that are over and their events after the retention, keeping all that is not', async () => {
    const old = now - 40 * DAY
    const delivered = await event(old, { status: 'delivered' })
    const gaveUp = await event(old + 1_000, { status: 'failed', lastAttemptAt: old + 3 * DAY })
    const pending = await event(old + 2_000, { status: 'pending' })
    // A post's event rendered from its target event's snapshot: the target event stays while it waits.
    const source = await event(old + 3_000, { status: 'delivered' }, { snapshot: '{"target":{}}' })
    const referring = await event(old + 3_000, { status: 'pending' }, { snapshot: `@${source.id}` })
    const retriedLately = await event(old + 4_000, { status: 'delivered', lastAttemptAt: now - 2 * DAY })
    const notFannedOut = await event(old + 5_000, undefined, { fannedOut: 0 })
    const toNobody = await event(old + 6_000, undefined)
    const recent = await event(now - 2 * DAY, { status: 'delivered' })
    const attemptsBefore = await attemptCount()

    const pruned = await pruneWebhookHistory(h.app.store, { before: now - 30 * DAY, batch: 2 })

    expect(pruned).toEqual({ deliveries: 3, events: 3 })
    const events = await eventIds()
    for (const gone of [delivered, gaveUp, toNobody]) expect(events.has(gone.id)).toBe(false)
    for (const kept of [pending, source, referring, retriedLately, notFannedOut, recent])
      expect(events.has(kept.id)).toBe(true)
    const deliveries = await deliveryIds()
    for (const gone of [delivered, gaveUp, source])
      expect(deliveries.has(gone.deliveryId as string)).toBe(false)
    for (const kept of [pending, referring, retriedLately, recent])
      expect(deliveries.has(kept.deliveryId as string)).toBe(true)
    // The attempts of the three deliveries that went, with them.
    expect(await attemptCount()).toBe(attemptsBefore - 3)

    // Nothing more goes on the next sweep.
    expect(await pruneWebhookHistory(h.app.store, { before: now - 30 * DAY })).toEqual({
      deliveries: 0,
      events: 0,
    })
  })

  it('sweeps by the retention in the configuration (30 days unless HERALD_WEBHOOK_RETENTION_DAYS)', async () => {
    expect(h.app.config.webhooks.retentionMs).toBe(30 * DAY)
    const justOver = await event(now - 31 * DAY, { status: 'delivered' })
    const justUnder = await event(now - 29 * DAY, { status: 'delivered' })
    await sweepWebhookHistory(h.app)
    const events = await eventIds()
    expect(events.has(justOver.id)).toBe(false)
    expect(events.has(justUnder.id)).toBe(true)
  })
})
