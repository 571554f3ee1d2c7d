import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import { type Outcome, settleTarget } from '../../src/modules/delivery/settle.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * reset_stuck_post settles what was stuck: its receivers hear `target.failed` for each released target,
 * then the post's event once every target is settled, exactly as if a send had failed.
 */
describe.each(backends)('the events of reset_stuck_post on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  let webhooks: WebhookWorker

  beforeAll(async () => {
    h = await startHarness({
      backend,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' },
      credits: 10_000,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
    receiver = await startReceiver()
    await createEndpoint(
      webhookDepsOf(h.app),
      { workspaceId: h.workspaceId, role: 'owner' },
      { url: receiver.url },
    )
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
  const stuck: Outcome = { kind: 'unknown', error: 'No answer from the network', reason: 'no_lookup' }
  const published: Outcome = { kind: 'published', remoteId: 'r1', url: 'https://bsky.app/r1' }

  /** A scheduled post to `profiles`, each target claimed by `w1` and settled with its outcome. */
  async function settledPost(outcomes: Array<[platform: 'twitter' | 'bluesky', Outcome]>) {
    const created = await h.call('create_post', {
      content: 'Stuck, then reset',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      ...schedule,
    })
    const postId = created.body.postIds[0] as string
    if (outcomes.length > 1) {
      const updated = await h.call('update_post', {
        id: postId,
        targetAccounts: [
          { platform: 'twitter', profileId: 'tw-1' },
          { platform: 'bluesky', profileId: 'bs-1' },
        ],
      })
      expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    }
    const now = Date.now()
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'w1', lease_expires_at: now + 60_000 })
      .where('post_id', '=', postId)
      .execute()
    await h.app.store.db.updateTable('posts').set({ status: 'processing' }).where('id', '=', postId).execute()
    const targets = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', postId)
      .execute()
    for (const [platform, outcome] of outcomes) {
      const target = targets.find((t) => t.platform === platform)
      if (!target) throw new Error(`no ${platform} target`)
      const settled = await settleTarget(h.app.store, {
        targetId: target.id,
        postId,
        workerId: 'w1',
        now: Date.now(),
        outcome,
        onlyTarget: outcomes.length === 1,
      })
      expect(settled).toBe(true)
    }
    return postId
  }

  async function eventsOf(postId: string) {
    await webhooks.drain()
    return receiver.accepted
      .filter((r) => r.event.data.postId === postId || r.event.data.post?.id === postId)
      .map((r) => r.event)
  }

  it('a stuck single-target post reports target.failed and post.failed when reset', async () => {
    const postId = await settledPost([['twitter', stuck]])
    expect((await eventsOf(postId)).map((e) => e.type)).toEqual(['target.stuck'])
    const reset = await h.call('reset_stuck_post', { id: postId })
    expect(reset.status, JSON.stringify(reset.body)).toBe(200)
    const events = await eventsOf(postId)
    expect(events.map((e) => e.type)).toEqual(['target.stuck', 'target.failed', 'post.failed'])
    const answer = (await h.call('get_post', { id: postId })).body
    expect(events[1]?.data.target).toEqual(answer.targets[0])
    expect(events[2]?.data.post).toEqual(answer)
  })

  it('a post with one target published and one stuck reports post.partially_published when reset', async () => {
    const postId = await settledPost([
      ['bluesky', published],
      ['twitter', stuck],
    ])
    expect((await eventsOf(postId)).map((e) => e.type)).toEqual(['target.published', 'target.stuck'])
    await h.call('reset_stuck_post', { id: postId })
    const events = await eventsOf(postId)
    expect(events.map((e) => e.type)).toEqual([
      'target.published',
      'target.stuck',
      'target.failed',
      'post.partially_published',
    ])
    expect(events[2]?.data.target.platform).toBe('twitter')
    expect(events[3]?.data.post).toEqual((await h.call('get_post', { id: postId })).body)
  })
})
