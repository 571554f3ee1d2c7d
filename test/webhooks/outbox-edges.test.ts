import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import { type Outcome, settleTarget } from '../../src/modules/delivery/settle.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import type { Store } from '../../src/platform/db/db.js'
import { claimDeliveries, fanOutEvents, recordDelivered } from '../../src/platform/db/statements/webhooks.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/** The one-statement settle and the outbox at their edges. */
describe.each(backends)('outbox edges on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  let webhooks: WebhookWorker
  const owner = () => ({ workspaceId: h.workspaceId, role: 'owner' as const })

  beforeAll(async () => {
    h = await startHarness({
      backend,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' },
      credits: 100_000,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    receiver = await startReceiver()
    webhooks = createAppWebhookWorker(h.app, { id: 'deliverer' })
  })
  afterAll(async () => {
    await webhooks.stop()
    await receiver.close()
    await h.close()
  })

  const schedule = {
    scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
    scheduleTime: '12:00',
    timezone: 'UTC',
  }

  async function claimedPost(worker = 'w1') {
    const created = await h.call('create_post', {
      content: `post ${Math.random()}`,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      ...schedule,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const postId = created.body.postIds[0] as string
    await h.app.store.db.updateTable('posts').set({ status: 'processing' }).where('id', '=', postId).execute()
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: worker, lease_expires_at: Date.now() + 60_000 })
      .where('post_id', '=', postId)
      .execute()
    const target = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
    return { postId, targetId: target.id }
  }
  const settle = (p: { postId: string; targetId: string }, outcome: Outcome, store: Store = h.app.store) =>
    settleTarget(store, {
      targetId: p.targetId,
      postId: p.postId,
      workerId: 'w1',
      now: Date.now(),
      outcome,
      onlyTarget: true,
    })
  const eventsOf = (postId: string) =>
    h.app.store.db
      .selectFrom('events')
      .select(['seq', 'id', 'type', 'snapshot', 'fanned_out'])
      .where('order_key', '=', postId)
      .orderBy('seq')
      .execute()
  const deliveriesOf = async (postId: string) => {
    while ((await fanOutEvents(h.app.store, Date.now())) > 0) {}
    return deliveryRows(postId)
  }
  const deliveryRows = (postId: string) =>
    h.app.store.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('order_key', '=', postId)
      .orderBy('event_seq')
      .orderBy('endpoint_id')
      .execute()
  const published: Outcome = { kind: 'published', remoteId: 'r', url: 'https://twitter.example/r' }

  it('writes no event for a workspace without an endpoint', async () => {
    for (const outcome of [
      published,
      { kind: 'failed', error: 'no' },
      { kind: 'unknown', error: 'u', reason: 'no_lookup' },
    ] as Outcome[]) {
      const p = await claimedPost()
      expect(await settle(p, outcome)).toBe(true)
      expect(await eventsOf(p.postId)).toEqual([])
    }
  })

  it('writes no event for a workspace whose only endpoint is disabled', async () => {
    const off = await createEndpoint(webhookDepsOf(h.app), owner(), { url: `${receiver.url}/off` })
    await h.app.store.db
      .updateTable('webhook_endpoints')
      .set({ enabled: 0 })
      .where('id', '=', off.id)
      .execute()
    const p = await claimedPost()
    expect(await settle(p, published)).toBe(true)
    expect(await eventsOf(p.postId)).toEqual([])
    expect(
      (
        await h.app.store.db
          .selectFrom('targets')
          .select('status')
          .where('id', '=', p.targetId)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('published')
  })

  it('changes nothing, writes no event and returns false when the lease was lost (every outcome)', async () => {
    await createEndpoint(webhookDepsOf(h.app), owner(), { url: receiver.url })
    for (const outcome of [
      published,
      { kind: 'failed', error: 'no' },
      { kind: 'unknown', error: 'u', reason: 'no_lookup' },
    ] as Outcome[]) {
      const p = await claimedPost('someone-else')
      const before = await h.app.store.db
        .selectFrom('targets')
        .selectAll()
        .where('id', '=', p.targetId)
        .executeTakeFirstOrThrow()
      const postBefore = await h.app.store.db
        .selectFrom('posts')
        .selectAll()
        .where('id', '=', p.postId)
        .executeTakeFirstOrThrow()
      expect(await settle(p, outcome)).toBe(false)
      expect(
        await h.app.store.db
          .selectFrom('targets')
          .selectAll()
          .where('id', '=', p.targetId)
          .executeTakeFirstOrThrow(),
      ).toEqual(before)
      expect(
        await h.app.store.db
          .selectFrom('posts')
          .selectAll()
          .where('id', '=', p.postId)
          .executeTakeFirstOrThrow(),
      ).toEqual(postBefore)
      expect(await eventsOf(p.postId)).toEqual([])
      expect(await deliveriesOf(p.postId)).toEqual([])
    }
  })

  it('gives the target event the lower seq and holds the post event back until it is delivered, for two endpoints', async () => {
    const second = await createEndpoint(webhookDepsOf(h.app), owner(), { url: `${receiver.url}/two` })
    const posts = []
    for (let i = 0; i < 20; i++) posts.push(await claimedPost())
    await Promise.all(posts.map((p, i) => settle(p, i % 2 ? published : { kind: 'failed', error: 'x' })))
    const endpoints = (
      await h.app.store.db.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1).execute()
    ).map((e) => e.id)
    expect(endpoints).toContain(second.id)
    for (const p of posts) {
      const events = await eventsOf(p.postId)
      expect(events.map((e) => e.type.split('.')[0])).toEqual(['target', 'post'])
      expect(Number(events[0]!.seq)).toBeLessThan(Number(events[1]!.seq))
      const deliveries = await deliveriesOf(p.postId)
      expect(deliveries).toHaveLength(2 * endpoints.length)
      expect(new Set(deliveries.map((d) => d.id)).size).toBe(deliveries.length)
      for (const d of deliveries) expect(d.event_seq).toBe(events.find((e) => e.id === d.event_id)!.seq)
    }
    const claimed = await claimDeliveries(h.app.store, {
      workerId: 'claimer',
      now: Date.now() + 1000,
      leaseMs: 60_000,
      limit: 1000,
      busyEndpoints: [],
    })
    const postIds = new Set(posts.map((p) => p.postId))
    const ours = claimed.filter((c) => c.eventType.startsWith('target.') || c.eventType.startsWith('post.'))
    // Only target events may be claimed while their post's target event is pending.
    expect(ours.filter((c) => c.eventType.startsWith('post.'))).toEqual([])
    expect(ours.length).toBeGreaterThanOrEqual(posts.length * endpoints.length)
    // Record them delivered (one batch) and the post events come next.
    const kept = await recordDelivered(h.app.store, {
      workerId: 'claimer',
      now: Date.now() + 1000,
      items: ours.map((delivery) => ({ delivery, result: { statusCode: 204, latencyMs: 1, excerpt: '' } })),
    })
    expect(kept.size).toBe(ours.length)
    const next = await claimDeliveries(h.app.store, {
      workerId: 'claimer',
      now: Date.now() + 1000,
      leaseMs: 60_000,
      limit: 1000,
      busyEndpoints: [],
    })
    expect(next.filter((c) => c.eventType.startsWith('post.')).length).toBe(posts.length * endpoints.length)
    expect(postIds.size).toBe(20)
    await h.app.store.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: null, lease_expires_at: null })
      .execute()
  })

  it('delivers only the subscribed types to an endpoint subscribed to some, and writes the same events either path', async () => {
    // Only one endpoint, subscribed to target.failed.
    await h.app.store.db.deleteFrom('webhook_endpoints').execute()
    const failedOnly = await createEndpoint(webhookDepsOf(h.app), owner(), {
      url: `${receiver.url}/failed`,
      eventTypes: ['target.failed'],
    })
    const fast = await claimedPost()
    expect(await settle(fast, published)).toBe(true)
    const slow = await claimedPost()
    expect(await settle(slow, published, { ...h.app.store, pgPool: undefined } as Store)).toBe(true)
    // Same events written by both paths (types), no deliveries for either.
    expect((await eventsOf(fast.postId)).map((e) => e.type)).toEqual(
      (await eventsOf(slow.postId)).map((e) => e.type),
    )
    expect(await deliveriesOf(fast.postId)).toEqual([])
    const failing = await claimedPost()
    expect(await settle(failing, { kind: 'failed', error: 'x' })).toBe(true)
    const deliveries = await deliveriesOf(failing.postId)
    expect(deliveries.map((d) => d.endpoint_id)).toEqual([failedOnly.id])
  })

  it('settles while the endpoint is deleted concurrently (FK) without an error', async () => {
    for (let round = 0; round < 5; round++) {
      const ep = await createEndpoint(webhookDepsOf(h.app), owner(), { url: `${receiver.url}/gone` })
      const posts = []
      for (let i = 0; i < 15; i++) posts.push(await claimedPost())
      const results = await Promise.allSettled([
        ...posts.map((p) => settle(p, published)),
        (async () => {
          await new Promise((r) => setTimeout(r, round))
          await h.app.store.db.deleteFrom('webhook_endpoints').where('id', '=', ep.id).execute()
        })(),
      ])
      const errors = results.filter((r) => r.status === 'rejected')
      expect(errors.map((e) => String((e as PromiseRejectedResult).reason))).toEqual([])
      for (const r of results.slice(0, posts.length))
        expect((r as PromiseFulfilledResult<boolean>).value).toBe(true)
      const orphan = await h.app.store.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', ep.id)
        .execute()
      expect(orphan).toEqual([])
    }
  })

  it('a snapshot that cannot be rendered fails its attempt visibly and does not stop the loop', async () => {
    await h.app.store.db.deleteFrom('webhook_endpoints').execute()
    const ep = await createEndpoint(webhookDepsOf(h.app), owner(), { url: receiver.url })
    const p = await claimedPost()
    expect(await settle(p, { kind: 'failed', error: 'x' })).toBe(true)
    await h.app.store.db
      .updateTable('events')
      .set({ snapshot: '{"broken' })
      .where('order_key', '=', p.postId)
      .where('type', '=', 'target.failed')
      .execute()
    const good = await claimedPost()
    expect(await settle(good, published)).toBe(true)
    if (backend.name !== 'postgres') {
      // SQLite never writes snapshots: nothing more to see.
      return
    }
    const since = receiver.requests.length
    await webhooks.drain()
    const got = receiver.requests.slice(since)
    expect(got.map((r) => r.event.data.postId ?? r.event.data.post?.id)).toContain(good.postId)
    const attempts = await h.app.store.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('endpoint_id', '=', ep.id)
      .where('outcome', '!=', 'delivered')
      .execute()
    expect(attempts.length).toBeGreaterThan(0)
    expect(attempts[0]?.response_excerpt).toMatch(/snapshot/)
  })
})
