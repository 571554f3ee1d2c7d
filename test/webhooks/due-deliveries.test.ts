import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nextAttemptAt } from '../../src/core/webhook-events.js'
import { settleTarget } from '../../src/modules/delivery/settle.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import {
  claimDeliveries,
  fanOutEvents,
  outboxWaiting,
  recordAttempt,
} from '../../src/platform/db/statements/webhooks.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * What the delivery loop sees as due: a post's later event waits with its earlier one while that one waits
 * for a retry, so a receiver that is down leaves nothing due between retries (the loop's look stays cheap).
 */
describe.each(backends)('due deliveries on $name', (backend) => {
  let h: Harness
  let endpointId: string

  beforeAll(async () => {
    h = await startHarness({ backend, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' }, credits: 100_000 })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    const endpoint = await createEndpoint(
      webhookDepsOf(h.app),
      { workspaceId: h.workspaceId, role: 'owner' },
      { url: 'http://127.0.0.1:9/hook' },
    )
    endpointId = endpoint.id
  })
  afterAll(() => h.close())

  /** A one-target post published at `now`: target.published and post.published, both pending. */
  async function publishedPost(now: number) {
    const created = await h.call('create_post', {
      content: `post ${Math.random()}`,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '12:00',
      timezone: 'UTC',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const postId = created.body.postIds[0] as string
    await h.app.store.db.updateTable('posts').set({ status: 'processing' }).where('id', '=', postId).execute()
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'w1', lease_expires_at: now + 60_000 })
      .where('post_id', '=', postId)
      .execute()
    const target = await h.app.store.db
      .selectFrom('targets')
      .select('id')
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
    const settled = await settleTarget(h.app.store, {
      targetId: target.id,
      postId,
      workerId: 'w1',
      now,
      outcome: { kind: 'published', remoteId: 'r', url: 'https://twitter.example/r' },
      onlyTarget: true,
    })
    expect(settled).toBe(true)
    while ((await fanOutEvents(h.app.store, now)) > 0) {}
    return postId
  }

  const claim = (now: number) =>
    claimDeliveries(h.app.store, { workerId: 'loop', now, leaseMs: 30_000, limit: 10, busyEndpoints: [] })
  const failed = { statusCode: 503, latencyMs: 3, excerpt: 'down' }

  /** The plan of `query`, as text, in a transaction that drops `dropped` first and is rolled back. */
  async function planWithout(dropped: string, query: string): Promise<string> {
    const postgres = h.app.store.dialect === 'postgres'
    let plan = ''
    const rolledBack = new Error('rolled back')
    await h.app.store.db
      .transaction()
      .execute(async (tx) => {
        await sql.raw(`DROP INDEX ${dropped}`).execute(tx)
        // With sequential scans and sorts priced out, Postgres takes any index the query can use, in the
        // query's order when it can.
        if (postgres)
          for (const setting of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'])
            await sql.raw(`SET LOCAL ${setting} = off`).execute(tx)
        const { rows } = await sql
          .raw<Record<string, string>>(`EXPLAIN ${postgres ? '' : 'QUERY PLAN '}${query}`)
          .execute(tx)
        plan = rows.map((row) => row['QUERY PLAN'] ?? row.detail).join('\n')
        throw rolledBack
      })
      .catch((error) => {
        if (error !== rolledBack) throw error
      })
    return plan
  }

  // These read the planner's choice on near-empty tables, as SQLite 3.54.1 (better-sqlite3 13.2.0) and
  // Postgres 15.20 make it; another release may cost the plans otherwise. A sort shows in the plan as SQLite's
  // "USE TEMP B-TREE FOR ORDER BY" and Postgres's "Sort" (or "Incremental Sort"): each test that says the
  // plan has none first sees this release name one where a sort is needed.
  const sortInPlan = /TEMP B-TREE|Sort/

  it("looks for a post's earlier events through the order index only, never the due index", async () => {
    const check = `SELECT 1 FROM webhook_deliveries p
      WHERE p.endpoint_id = 'e' AND p.order_key = 'k' AND p.status = 'pending' AND p.event_seq < 5`
    expect(await planWithout('webhook_deliveries_order', check)).not.toContain('webhook_deliveries_due')
    const due = `SELECT d.id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.next_attempt_at <= 5`
    expect(await planWithout('webhook_deliveries_order', due)).toContain('webhook_deliveries_due')
  })

  it("walks the due deliveries already in the claim's order, so a claim stops at its limit", async () => {
    const walk = `SELECT d.id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= 5
      ORDER BY d.next_attempt_at, d.event_seq LIMIT 10`
    const unindexedOrder = `SELECT d.id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= 5
      ORDER BY d.attempts LIMIT 10`
    expect(
      await planWithout('webhook_deliveries_order', unindexedOrder),
      "this database release names a sort in its plan as the check below reads it (SQLite's TEMP B-TREE, Postgres's Sort)",
    ).toMatch(sortInPlan)
    const plan = await planWithout('webhook_deliveries_order', walk)
    expect(plan).toContain('webhook_deliveries_due')
    expect(plan).not.toMatch(sortInPlan)
  })

  it("holds a post's later event back until its earlier one's retry, so nothing is due in between", async () => {
    const now = Date.now()
    const postId = await publishedPost(now)
    const first = await claim(now)
    expect(first.map((d) => d.eventType)).toEqual(['target.published'])
    const [targetEvent] = first
    if (!targetEvent) throw new Error('nothing claimed')
    expect(
      await recordAttempt(h.app.store, { delivery: targetEvent, workerId: 'loop', now, result: failed }),
    ).toBe('failed')

    const retryAt = nextAttemptAt(1, now) as number
    const rows = await h.app.store.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'next_attempt_at'])
      .where('order_key', '=', postId)
      .orderBy('event_seq')
      .execute()
    expect(rows.map((r) => Number(r.next_attempt_at))).toEqual([retryAt, retryAt])
    expect((await outboxWaiting(h.app.store.db, retryAt - 1)).deliveries).toBe(false)
    expect(await claim(retryAt - 1)).toEqual([])

    // At the retry the earlier event goes first; the later one follows once it is delivered.
    const again = await claim(retryAt)
    expect(again.map((d) => d.eventType)).toEqual(['target.published'])
    const [retried] = again
    if (!retried) throw new Error('nothing claimed')
    expect(
      await recordAttempt(h.app.store, {
        delivery: retried,
        workerId: 'loop',
        now: retryAt,
        result: { statusCode: 204, latencyMs: 2, excerpt: '' },
      }),
    ).toBe('delivered')
    const later = await claim(retryAt)
    expect(later.map((d) => d.eventType)).toEqual(['post.published'])
    const [postEvent] = later
    if (!postEvent) throw new Error('nothing claimed')
    const ok = { statusCode: 204, latencyMs: 2, excerpt: '' }
    await recordAttempt(h.app.store, { delivery: postEvent, workerId: 'loop', now: retryAt, result: ok })
  })

  it('leaves the deliveries of a disabled endpoint unclaimed and claims them once it is enabled again', async () => {
    const now = Date.now() + 10_000_000
    await publishedPost(now)
    await h.app.store.db
      .updateTable('webhook_endpoints')
      .set({ enabled: 0 })
      .where('id', '=', endpointId)
      .execute()
    expect(await claim(now)).toEqual([])
    await h.app.store.db
      .updateTable('webhook_endpoints')
      .set({ enabled: 1 })
      .where('id', '=', endpointId)
      .execute()
    expect((await claim(now)).map((d) => d.eventType)).toEqual(['target.published'])
  })
})
