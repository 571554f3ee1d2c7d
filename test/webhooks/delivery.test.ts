import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker, createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { markNeedsReconnect } from '../../src/platform/db/statements/connections.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'
import { duplicates, type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

const owner = (h: Harness) => ({ workspaceId: h.workspaceId, role: 'owner' as const })

/** Publishes what is due until nothing is in flight. */
async function publishAll(worker: Worker) {
  for (let i = 0; i < 20; i++) {
    const claimed = await worker.tick()
    await worker.idle()
    if (claimed === 0) return
  }
}

describe.each(backends)('webhook delivery on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  let twitter: ScriptedAdapter
  let linkedin: ScriptedAdapter
  let bluesky: ScriptedAdapter
  let worker: Worker
  let webhooks: WebhookWorker
  let secret: string

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter')
    linkedin = scriptedAdapter('linkedin')
    bluesky = scriptedAdapter('bluesky')
    h = await startHarness({
      backend,
      adapters: { twitter, linkedin, bluesky },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' },
      credits: 10_000,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'linkedin', 'li-1', 'acme')
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
    receiver = await startReceiver()
    const created = await createEndpoint(webhookDepsOf(h.app), owner(h), { url: receiver.url })
    secret = created.secret
    worker = createAppWorker(h.app, { id: 'publisher', webhooks: false })
    webhooks = createAppWebhookWorker(h.app, { id: 'deliverer' })
  })
  afterEach(() => {
    receiver.answer = () => 204
  })
  afterAll(async () => {
    await worker.stop()
    await webhooks.stop()
    await receiver.close()
    await h.close()
  })

  it('delivers target.published twice, target.failed and then post.partially_published for a post to three networks where one fails, each verified by both libraries', async () => {
    const draft = await h.call('create_post', {
      content: 'Three networks, one refuses',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '12:00',
      timezone: 'UTC',
    })
    expect(draft.body).toMatchObject({ postIds: [expect.any(String)] })
    const postId = draft.body.postIds[0] as string
    const updated = await h.call('update_post', {
      id: postId,
      targetAccounts: [
        { platform: 'twitter', profileId: 'tw-1' },
        { platform: 'linkedin', profileId: 'li-1' },
        { platform: 'bluesky', profileId: 'bs-1' },
      ],
    })
    expect(updated.body.post).toMatchObject({ id: postId })
    linkedin.script.push(fail('invalid_content', 'LinkedIn refused the copy'))
    const before = receiver.requests.length
    expect((await h.call('publish_post_now', { id: postId })).status).toBe(200)
    await publishAll(worker)
    await webhooks.drain()

    const got = receiver.requests.slice(before).filter((r) => r.event.type !== 'webhook.test')
    const forPost = got.filter((r) => (r.event.data.postId ?? r.event.data.post?.id) === postId)
    expect(forPost.map((r) => r.event.type).sort()).toEqual(
      ['post.partially_published', 'target.failed', 'target.published', 'target.published'].sort(),
    )
    // Causal order: the post's event arrives after every one of its targets' events.
    expect(forPost.at(-1)?.event.type).toBe('post.partially_published')
    const post = forPost.at(-1)?.event.data.post
    expect(post.status).toBe('published')
    expect(post.targets.map((t: { status: string }) => t.status).sort()).toEqual([
      'failed',
      'published',
      'published',
    ])
    const failed = forPost.find((r) => r.event.type === 'target.failed')
    expect(failed?.event.data.target).toMatchObject({ platform: 'linkedin', status: 'failed' })
    for (const request of forPost) {
      expect(receiver.verify(request, secret)).toEqual({ standard: true, svix: true })
      expect(request.id).toBe(request.event.id)
      expect(request.event.workspaceId).toBe(h.workspaceId)
      // No token of any kind travels in an event.
      expect(request.body).not.toMatch(/access-|refresh-/)
    }
    expect(duplicates(receiver.accepted)).toEqual([])
  })

  it("reports a post's only target as published or failed in the very shapes get_post answers", async () => {
    const before = receiver.requests.length
    const schedule = {
      scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '12:00',
      timezone: 'UTC',
    }
    const ok = await h.call('create_post', {
      content: 'One network, it takes it',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      ...schedule,
    })
    const refused = await h.call('create_post', {
      content: 'One network, it refuses',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      ...schedule,
    })
    const okId = ok.body.postIds[0] as string
    const refusedId = refused.body.postIds[0] as string
    linkedin.script.push(fail('invalid_content', 'LinkedIn refused the copy'))
    for (const id of [okId, refusedId]) expect((await h.call('publish_post_now', { id })).status).toBe(200)
    await publishAll(worker)
    await webhooks.drain()

    const got = receiver.requests.slice(before)
    for (const [id, outcome] of [
      [okId, 'published'],
      [refusedId, 'failed'],
    ] as const) {
      const events = got.filter((r) => (r.event.data.postId ?? r.event.data.post?.id) === id)
      expect(events.map((r) => r.event.type)).toEqual([`target.${outcome}`, `post.${outcome}`])
      const answer = (await h.call('get_post', { id })).body
      expect(answer.status).toBe(outcome)
      expect(events[0]?.event.data).toEqual({ postId: id, postStatus: outcome, target: answer.targets[0] })
      expect(events[1]?.event.data).toEqual({ post: answer })
      for (const request of events) {
        expect(receiver.verify(request, secret)).toEqual({ standard: true, svix: true })
        expect(Date.parse(request.event.timestamp)).toBeGreaterThan(0)
      }
      // On Postgres the settle's one statement wrote them as snapshots, rendered when delivered.
      const stored = await h.app.store.db
        .selectFrom('events')
        .select(['payload', 'snapshot'])
        .where('order_key', '=', id)
        .execute()
      expect(stored.map((e) => e.snapshot !== null)).toEqual([
        backend.name === 'postgres',
        backend.name === 'postgres',
      ])
    }
  })

  it('rejects a tampered body and a stale timestamp with both verifiers', async () => {
    const draft = await h.call('create_post', {
      content: 'Tamper with me',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      publishImmediately: true,
    })
    expect(draft.status).toBe(200)
    const before = receiver.requests.length
    await publishAll(worker)
    await webhooks.drain()
    const original = receiver.requests.slice(before).find((r) => r.event.type === 'post.published')
    expect(original).toBeDefined()
    if (!original) return
    expect(receiver.verify(original, secret)).toEqual({ standard: true, svix: true })
    const tampered = { ...original, body: original.body.replace('Tamper with me', 'Tampered!!!!!') }
    expect(receiver.verify(tampered, secret)).toEqual({ standard: false, svix: false })
    const stale = { ...original, timestamp: String(Number(original.timestamp) - 3_600) }
    expect(receiver.verify(stale, secret)).toEqual({ standard: false, svix: false })
    expect(receiver.verify(original, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual({
      standard: false,
      svix: false,
    })
  })

  it('retries a refused delivery with the same webhook-id until the receiver takes it', async () => {
    let refusals = 2
    receiver.answer = () => (refusals-- > 0 ? 503 : 200)
    const before = receiver.requests.length
    await connectProfile(h, 'twitter', 'tw-revoked', 'revoked')
    const connection = await h.app.store.db
      .selectFrom('connections')
      .select('id')
      .where('profile_id', '=', 'tw-revoked')
      .executeTakeFirstOrThrow()
    await markNeedsReconnect(h.app.store.db, connection.id, 'X refused the token', Date.now())
    // Marking it again reports nothing new.
    await markNeedsReconnect(h.app.store.db, connection.id, 'X refused the token again', Date.now())
    await webhooks.drain()
    // The retry schedule starts at 5 s: wait it out in real time once.
    await new Promise((resolve) => setTimeout(resolve, 5_200))
    await webhooks.drain()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const got = receiver.requests.slice(before)
    expect(got.length).toBeGreaterThanOrEqual(2)
    expect(new Set(got.map((r) => r.id)).size).toBe(1)
    expect(got[0]?.event).toMatchObject({
      type: 'account.needs_reconnect',
      data: { account: { platform: 'twitter', profileId: 'tw-revoked' }, reason: 'X refused the token' },
    })
  }, 20_000)
})
