import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/lib/clock.js'
import { recordEvent } from '../../src/store/events.js'
import { writeTransaction } from '../../src/store/write-transaction.js'
import { createWebhookWorker, type WebhookWorker } from '../../src/webhooks/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/webhooks/endpoints.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { duplicates, type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * A delivery holds its slot for its call only. While its answer waits to be recorded (the database is
 * busy), the next queued delivery's call goes out; each is still recorded once and sent once.
 */
describe.each(backends)('a slot freed by the answer on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  const clock = new FakeClock(Date.now())
  let worker: WebhookWorker | undefined
  /** Lets the test's transaction end (also after a failure, so the worker can stop). */
  let release: () => void = () => {}

  beforeAll(async () => {
    h = await startHarness({ backend, clock, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    receiver = await startReceiver()
    await createEndpoint(
      webhookDepsOf(h.app),
      { workspaceId: h.workspaceId, role: 'owner' },
      { url: receiver.url },
    )
  })
  afterAll(async () => {
    release()
    await worker?.stop()
    await receiver.close()
    await h.close()
  })

  const waitUntil = async (check: () => boolean, what: string) => {
    for (let waited = 0; waited < 5_000 && !check(); waited += 10) await new Promise((r) => setTimeout(r, 10))
    if (!check()) throw new Error(`timed out waiting for ${what}`)
  }

  it("sends the next delivery while the first one's answer waits for the database", async () => {
    const ids: string[] = []
    await writeTransaction(h.app.store, async (tx) => {
      for (const n of [1, 2])
        ids.push(
          await recordEvent(tx, {
            workspaceId: h.workspaceId,
            type: 'account.needs_reconnect',
            data: { account: { platform: 'twitter', profileId: `slot-${n}` }, reason: 'test' },
            now: clock.now(),
          }),
        )
    })
    // The first call is answered only once the test holds the database, so its record must wait.
    let holding: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      holding = resolve
    })
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    receiver.answer = async (request) => {
      if (request.id === ids[0]) await held
      return 204
    }
    worker = createWebhookWorker(
      { ...h.app, clock },
      {
        id: 'slots',
        concurrency: 1,
        perEndpoint: 1,
        leaseMs: 60_000,
        client: { policy: { allowPrivate: true }, timeoutMs: 5_000 },
      },
    )
    // One slot: the claim takes both, starts the first and queues the second.
    expect(await worker.tick()).toBe(2)
    await waitUntil(() => receiver.requests.length === 1, 'the first call')

    // SQLite: the open write transaction holds the one connection. Postgres: the row lock holds the
    // first delivery's record.
    const holder = writeTransaction(h.app.store, async (tx) => {
      if (h.app.store.dialect === 'postgres')
        await sql`SELECT id FROM webhook_deliveries WHERE event_id = ${ids[0]} FOR UPDATE`.execute(tx)
      holding()
      await released
    })
    await waitUntil(
      () => receiver.requests.length === 2,
      'the second call, while the first waits to be recorded',
    )
    expect(receiver.requests.map((r) => r.id)).toEqual(ids)

    release()
    await holder
    await worker.idle()
    const rows = await h.app.store.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'status', 'attempts'])
      .where('event_id', 'in', ids)
      .orderBy('event_seq')
      .execute()
    expect(rows.map((r) => [r.status, Number(r.attempts)])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ])
    expect(duplicates(receiver.accepted)).toEqual([])
  })
})
