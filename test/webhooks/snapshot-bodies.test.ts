import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import { type Outcome, settleTarget } from '../../src/modules/delivery/settle.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import type { Store } from '../../src/platform/db/db.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * The body a snapshot event is rendered into at delivery must be exactly what the transactional
 * path (recordSettleEvents -> recordEvent -> eventBody) writes for the same rows. Each case settles the
 * same post twice from the same starting rows: once through the one-statement path (Postgres), once
 * through the general path (the store without its pool), and compares the delivered bodies.
 */
describe.each(backends)('snapshot rendering equivalence on $name', (backend) => {
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

  /** A single-target post, dressed up with every field the presenters read, and claimed by `w1`. */
  async function claimedRichPost(extra: { approval?: string | null } = {}) {
    const created = await h.call('create_post', {
      content: 'Rich copy with ünïcödé ✓ "quotes" and \\ backslash\n newline',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      ...schedule,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const postId = created.body.postIds[0] as string
    const now = Date.now()
    await h.app.store.db
      .updateTable('posts')
      .set({
        status: 'processing',
        media_urls: JSON.stringify(['https://example.org/a.png', 'https://example.org/b.png']),
        variants: JSON.stringify({ twitter: 'variant copy' }),
        items: JSON.stringify({ thread: [{ content: 'second' }], firstComment: 'a comment' }),
        approval: extra.approval === undefined ? 'approved' : extra.approval,
        approval_note: 'fine by me',
        approval_at: now - 5000,
        from_queue: 1,
        attempts: 3,
        last_error: 'an earlier error',
      } as never)
      .where('id', '=', postId)
      .execute()
    await h.app.store.db
      .updateTable('targets')
      .set({
        lease_owner: 'w1',
        lease_expires_at: now + 60_000,
        attempts: 2,
        items: JSON.stringify([
          {
            role: 'main',
            content: 'first',
            status: 'published',
            remoteId: 'r1',
            url: 'https://x/1',
            publishedAt: now - 1000,
          },
          { role: 'thread', content: 'second', status: 'failed', error: 'nope' },
          { role: 'comment', content: 'a comment', status: 'pending' },
        ]),
      } as never)
      .where('post_id', '=', postId)
      .execute()
    const target = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
    const post = await h.app.store.db
      .selectFrom('posts')
      .selectAll()
      .where('id', '=', postId)
      .executeTakeFirstOrThrow()
    return { postId, target, post }
  }

  async function restore(rows: Awaited<ReturnType<typeof claimedRichPost>>) {
    const { id: _t, ...target } = rows.target
    const { id: _p, ...post } = rows.post
    await h.app.store.db.updateTable('targets').set(target).where('id', '=', rows.target.id).execute()
    await h.app.store.db.updateTable('posts').set(post).where('id', '=', rows.postId).execute()
  }

  async function deliveredFor(postId: string, since: number) {
    await webhooks.drain()
    return receiver.requests
      .slice(since)
      .filter((r) => (r.event.data.postId ?? r.event.data.post?.id) === postId)
  }

  const normalise = (body: string, ids: string[]) => {
    let out = body
    ids.forEach((id, i) => {
      out = out.split(id).join(`<event-${i}>`)
    })
    return out
  }

  async function compare(outcome: Outcome, extra: { approval?: string | null } = {}) {
    const rows = await claimedRichPost(extra)
    const now = Date.now()
    const input = {
      targetId: rows.target.id,
      postId: rows.postId,
      workerId: 'w1',
      now,
      outcome,
      onlyTarget: true,
      attemptsDelta: 1,
    }
    let since = receiver.requests.length
    expect(await settleTarget(h.app.store, input)).toBe(true)
    const viaFast = await deliveredFor(rows.postId, since)
    const snapshots = await h.app.store.db
      .selectFrom('events')
      .select(['id', 'snapshot'])
      .where('order_key', '=', rows.postId)
      .execute()
    await restore(rows)
    since = receiver.requests.length
    // The general path: the same store without its pool.
    const general: Store = { ...h.app.store, pgPool: undefined } as Store
    expect(await settleTarget(general, input)).toBe(true)
    const viaGeneral = await deliveredFor(rows.postId, since)
    expect(viaFast.map((r) => r.event.type)).toEqual(viaGeneral.map((r) => r.event.type))
    expect(viaFast.length).toBeGreaterThan(0)
    viaFast.forEach((fast, i) => {
      const slow = viaGeneral[i]!
      expect(normalise(fast.body, [fast.event.id])).toEqual(normalise(slow.body, [slow.event.id]))
    })
    return { viaFast, viaGeneral, snapshots }
  }

  it('renders published (with uploadError, thread items, media, variants, approval) exactly as the transaction writes it', async () => {
    const { snapshots } = await compare({
      kind: 'published',
      remoteId: 'remote-9',
      url: 'https://twitter.example/9',
      uploadError: 'The video could not be attached',
    })
    if (backend.name === 'postgres') expect(snapshots.every((e) => e.snapshot !== null)).toBe(true)
  })

  it('renders failed with its error exactly as the transaction writes it', async () => {
    await compare({ kind: 'failed', error: 'The network refused: <b>"bad"</b>' })
  })

  it('renders stuck (reason and action) exactly as the transaction writes it', async () => {
    const { viaFast } = await compare({
      kind: 'unknown',
      error: 'No answer from the network',
      reason: 'no_lookup',
    })
    expect(viaFast.map((r) => r.event.type)).toEqual(['target.stuck'])
    expect(viaFast[0]?.event.data).toMatchObject({ reason: 'No answer from the network' })
  })

  it('renders a post whose approval is still pending (approval version) exactly as the transaction writes it', async () => {
    await compare(
      { kind: 'published', remoteId: 'r-2', url: 'https://twitter.example/2' },
      { approval: 'pending' },
    )
  })

  it('renders a body too large to send (truncated) exactly as the transaction writes it', async () => {
    // reuse compare's machinery with a fresh post carrying the large item
    const big = await claimedRichPost()
    await h.app.store.db
      .updateTable('targets')
      .set({
        items: JSON.stringify([{ role: 'main', content: 'x'.repeat(300_000), status: 'pending' }]),
      } as never)
      .where('id', '=', big.target.id)
      .execute()
    const target = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('id', '=', big.target.id)
      .executeTakeFirstOrThrow()
    const now = Date.now()
    const input = {
      targetId: big.target.id,
      postId: big.postId,
      workerId: 'w1',
      now,
      outcome: { kind: 'failed', error: 'too big' } as Outcome,
      onlyTarget: true,
    }
    let since = receiver.requests.length
    expect(await settleTarget(h.app.store, input)).toBe(true)
    const viaFast = await deliveredFor(big.postId, since)
    await restore({ ...big, target })
    since = receiver.requests.length
    expect(await settleTarget({ ...h.app.store, pgPool: undefined } as Store, input)).toBe(true)
    const viaGeneral = await deliveredFor(big.postId, since)
    expect(viaFast.map((r) => r.event.data)).toEqual(viaGeneral.map((r) => r.event.data))
    expect(viaFast[0]?.event.data.truncated).toBe(true)
  })

  /**
   * Settles a post whose target's first comment alone passes 20 KB (7,000 CJK characters, under the 8,000
   * limit) with `outcome`; answers the post's id and the events delivered for it.
   */
  async function settleOversized(outcome: Outcome) {
    const big = await claimedRichPost()
    await h.app.store.db
      .updateTable('targets')
      .set({
        items: JSON.stringify([
          { role: 'main', content: 'first', status: 'pending' },
          { role: 'comment', content: '漢'.repeat(7_000), status: 'pending' },
        ]),
      } as never)
      .where('id', '=', big.target.id)
      .execute()
    const since = receiver.requests.length
    const input = { targetId: big.target.id, postId: big.postId, workerId: 'w1', now: Date.now(), outcome }
    expect(await settleTarget(h.app.store, { ...input, onlyTarget: true })).toBe(true)
    return { postId: big.postId, events: await deliveredFor(big.postId, since) }
  }

  it('a cut-down target.stuck still says why and what to do, with the statuses', async () => {
    const { postId, events } = await settleOversized({
      kind: 'unknown',
      error: 'No answer from the network',
      reason: 'no_lookup',
    })
    const [stuck] = events
    expect(stuck?.body.length).toBeLessThanOrEqual(20_000)
    expect(stuck?.event.data).toMatchObject({
      truncated: true,
      postId,
      postStatus: 'processing',
      reason: 'No answer from the network',
      action: expect.stringContaining('reset_stuck_post'),
      target: { platform: 'twitter', profileId: 'tw-1', status: 'pending' },
    })
    expect(stuck?.event.data.target.items).toBeUndefined()
  })

  it('a cut-down post event keeps the post where a whole one has it, with its status', async () => {
    const { postId, events } = await settleOversized({
      kind: 'published',
      remoteId: 'remote-big',
      url: 'https://x.com/acme/status/9',
    })
    expect(events.map((r) => r.event.type)).toEqual(['target.published', 'post.published'])
    expect(events[1]?.event.data).toMatchObject({
      truncated: true,
      post: { id: postId, status: 'published' },
    })
    expect(events[0]?.event.data.target).toMatchObject({
      status: 'published',
      url: 'https://x.com/acme/status/9',
    })
  })
})
