import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker, createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { manage } from '../helpers/team.js'
import { type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * A settle writes its events only where an enabled endpoint may want them: a workspace without one pays
 * nothing for webhooks (writing them cost a third of the worker's publish rate), and an endpoint hears of
 * the changes made while it is there, on the one-statement settle path of Postgres as on the other.
 */
describe.each(backends)('settle events and endpoints on $name', (backend) => {
  let h: Harness
  let worker: Worker
  let twitter: ScriptedAdapter
  let receiver: Receiver

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter')
    h = await startHarness({
      backend,
      adapters: { twitter },
      credits: 1_000,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' },
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    receiver = await startReceiver()
    worker = createAppWorker(h.app, { id: 'events-worker' })
  })
  afterAll(async () => {
    await worker.stop()
    await receiver.close()
    await h.close()
  })

  const publish = async (content: string) => {
    const answer = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      publishImmediately: true,
    })
    expect(answer.status).toBe(200)
    await worker.tick()
    await worker.idle()
    const post = (await h.call('get_post', { id: answer.body.postIds[0] })).body
    expect(post.status).toBe('published')
    return post.id as string
  }
  const eventsOf = (postId: string) =>
    h.app.store.db.selectFrom('events').select('type').where('order_key', '=', postId).execute()

  it('writes no event for a post published while the workspace has no endpoint', async () => {
    const id = await publish('Nobody listens yet')
    expect(await eventsOf(id)).toEqual([])
  })

  it('delivers target.published and post.published once an endpoint is there', async () => {
    const created = await manage(h, 'POST', '/api/webhooks/endpoints', { url: receiver.url })
    expect(created.status).toBe(201)
    const id = await publish('Somebody listens now')
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(['target.published', 'post.published'])
    await worker.stop()
    const webhooks = createAppWebhookWorker(h.app, { id: 'events-hooks' })
    await webhooks.drain()
    await webhooks.stop()
    const types = receiver.accepted.filter((r) => r.event.data.postId === id || r.event.data.post?.id === id)
    expect(types.map((r) => r.event.type)).toEqual(['target.published', 'post.published'])
  })
})
