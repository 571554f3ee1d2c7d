import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker, createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * Many single-target posts settled by two publishing workers at once while two delivery workers
 * deliver to three endpoints (all types; post.* only; target.* only): every endpoint gets each post's
 * target event before its post event, exactly the types it subscribed to, and each body is what get_post
 * answers.
 */
describe.each(backends)('causal order under load on $name', (backend) => {
  let h: Harness
  const receivers: Record<string, Receiver> = {}
  let twitter: ScriptedAdapter
  let workers: Worker[] = []
  let deliverers: WebhookWorker[] = []

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter', { concurrency: 16 })
    h = await startHarness({
      backend,
      adapters: { twitter },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' },
      credits: 100_000,
    })
    for (let i = 0; i < 6; i++) await connectProfile(h, 'twitter', `tw-${i}`, `acme${i}`)
    const owner = { workspaceId: h.workspaceId, role: 'owner' as const }
    for (const [name, eventTypes] of [
      ['all', undefined],
      ['posts', ['post.published', 'post.failed', 'post.partially_published']],
      ['targets', ['target.published', 'target.failed', 'target.stuck']],
    ] as const) {
      receivers[name] = await startReceiver()
      await createEndpoint(webhookDepsOf(h.app), owner, {
        url: receivers[name].url,
        ...(eventTypes ? { eventTypes: [...eventTypes] } : {}),
      })
    }
    workers = [
      createAppWorker(h.app, { id: 'pub-a', webhooks: false }),
      createAppWorker(h.app, { id: 'pub-b', webhooks: false }),
    ]
    deliverers = [
      createAppWebhookWorker(h.app, { id: 'del-a' }),
      createAppWebhookWorker(h.app, { id: 'del-b' }),
    ]
  })
  afterAll(async () => {
    for (const w of workers) await w.stop()
    for (const d of deliverers) await d.stop()
    for (const r of Object.values(receivers)) await r.close()
    await h.close()
  })

  it('keeps target before post per endpoint, and the bodies equal get_post', async () => {
    const schedule = {
      scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '12:00',
      timezone: 'UTC',
    }
    const postIds: string[] = []
    for (let round = 0; round < 8; round++) {
      const created = await h.call('create_post', {
        content: `round ${round} ✓`,
        targetAccounts: Array.from({ length: 6 }, (_, i) => ({ platform: 'twitter', profileId: `tw-${i}` })),
        ...schedule,
      })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      postIds.push(...(created.body.postIds as string[]))
    }
    for (let i = 0; i < 48; i++) if (i % 5 === 0) twitter.script.push(fail('invalid_content', `refused ${i}`))
    for (const id of postIds) expect((await h.call('publish_post_now', { id })).status).toBe(200)
    for (const d of deliverers) d.start()
    for (let i = 0; i < 30; i++) {
      const claimed = (await Promise.all(workers.map((w) => w.tick()))).reduce((a, b) => a + b, 0)
      await Promise.all(workers.map((w) => w.idle()))
      if (claimed === 0) break
    }
    const deadline = Date.now() + 20_000
    const want = (r: Receiver, n: number) => r.accepted.length >= n
    while (
      Date.now() < deadline &&
      !(want(receivers.all!, 96) && want(receivers.posts!, 48) && want(receivers.targets!, 48))
    )
      await new Promise((r) => setTimeout(r, 50))
    for (const [name, receiver] of Object.entries(receivers)) {
      for (const id of postIds) {
        const events = receiver.accepted.filter((r) => (r.event.data.postId ?? r.event.data.post?.id) === id)
        const types = events.map((r) => r.event.type.split('.')[0])
        const expected = name === 'all' ? ['target', 'post'] : name === 'posts' ? ['post'] : ['target']
        expect({ name, id, types }).toEqual({ name, id, types: expected })
      }
    }
    for (const id of postIds) {
      const answer = (await h.call('get_post', { id })).body
      const events = receivers.all!.accepted.filter(
        (r) => (r.event.data.postId ?? r.event.data.post?.id) === id,
      )
      expect(events[0]?.event.data).toEqual({
        postId: id,
        postStatus: answer.status,
        target: answer.targets[0],
      })
      expect(events[1]?.event.data).toEqual({ post: answer })
    }
  }, 60_000)
})
