import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebhookWorker, type WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { recordEvent } from '../../src/platform/db/statements/events.js'
import { writeTransaction } from '../../src/platform/db/write-transaction.js'
import { backends } from '../helpers/backends.js'
import type { Harness } from '../helpers/harness.js'
import { duplicates, type Receiver } from '../helpers/webhook-receiver.js'
import { startWebhookRig } from '../helpers/webhook-rig.js'
import { waitFor } from '../helpers/worker-processes.js'

/**
 * A delivery holds its slot for its call only. While its answer waits to be recorded (the database is
 * busy), the next queued delivery's call goes out; each is still recorded once and sent once.
 */
describe.each(backends)('a slot freed by the answer on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  const clock = new FakeClock(Date.now())
  const workers: WebhookWorker[] = []
  /** Lets the test's transaction end (also after a failure, so the worker can stop). */
  let release: () => void = () => {}

  beforeAll(async () => {
    ;({ h, receiver } = await startWebhookRig(backend, clock))
  })
  afterAll(async () => {
    release()
    for (const w of workers) await w.stop()
    await receiver.close()
    await h.close()
  })

  /** Requests the receiver got since `from` (the receiver is shared by the tests of a backend). */
  const since = (from: number) => receiver.requests.length - from

  /**
   * Two deliveries through one slot; the first is answered `firstAnswer` once the test holds the database,
   * so its record waits. `whileHeld` runs then; the hold ends after it.
   */
  async function twoThroughOneSlot(
    firstAnswer: number,
    name: string,
    whileHeld: (ids: string[]) => Promise<void>,
  ) {
    const before = receiver.requests.length
    const ids: string[] = []
    await writeTransaction(h.app.store, async (tx) => {
      for (const n of [1, 2])
        ids.push(
          await recordEvent(tx, {
            workspaceId: h.workspaceId,
            type: 'account.needs_reconnect',
            data: { account: { platform: 'twitter', profileId: `${name}-${n}` }, reason: 'test' },
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
      if (request.id === ids[0]) {
        await held
        return firstAnswer
      }
      return 204
    }
    const worker = createWebhookWorker(
      { ...h.app, clock },
      {
        id: name,
        concurrency: 1,
        perEndpoint: 1,
        leaseMs: 60_000,
        client: { policy: { allowPrivate: true }, timeoutMs: 5_000 },
      },
    )
    workers.push(worker)
    // One slot: the claim takes both, starts the first and queues the second.
    expect(await worker.tick()).toBe(2)
    await waitFor(async () => since(before) === 1, 5_000, 'the first call')

    // SQLite: the open write transaction holds the one connection. Postgres: the row lock holds the
    // first delivery's record.
    const holder = writeTransaction(h.app.store, async (tx) => {
      if (h.app.store.dialect === 'postgres')
        await sql`SELECT id FROM webhook_deliveries WHERE event_id = ${ids[0]} FOR UPDATE`.execute(tx)
      holding()
      await released
    })
    try {
      await whileHeld(ids)
    } finally {
      release()
      await holder
    }
    await waitFor(async () => since(before) >= 2, 5_000, 'the second call')
    await worker.idle()
    return ids
  }

  const statuses = (ids: string[]) =>
    h.app.store.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('event_id', 'in', ids)
      .orderBy('event_seq')
      .execute()
      .then((rows) => rows.map((r) => [r.status, Number(r.attempts)]))

  it("sends the next delivery while the first one's 2xx waits for the database", async () => {
    const ids = await twoThroughOneSlot(204, 'answered', async (sent) => {
      await waitFor(
        async () => receiver.requests.slice(-1)[0]?.id === sent[1],
        5_000,
        'the second call, while the first waits to be recorded',
      )
    })
    expect(receiver.requests.slice(-2).map((r) => r.id)).toEqual(ids)
    expect(await statuses(ids)).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ])
    expect(duplicates(receiver.accepted)).toEqual([])
  })

  it('keeps the slot of a failed attempt until that attempt is recorded', async () => {
    const before = receiver.requests.length
    const ids = await twoThroughOneSlot(503, 'failed', async () => {
      await new Promise((r) => setTimeout(r, 300))
      expect(receiver.requests.length - before).toBe(1)
    })
    expect(receiver.requests.slice(before).map((r) => r.id)).toEqual(ids)
    expect(await statuses(ids)).toEqual([
      ['pending', 1],
      ['delivered', 1],
    ])
  })

  it('delivers with a client timeout too short to leave a claim room to queue', async () => {
    receiver.answer = () => 204
    const [id] = await writeTransaction(h.app.store, async (tx) => [
      await recordEvent(tx, {
        workspaceId: h.workspaceId,
        type: 'account.needs_reconnect',
        data: { account: { platform: 'twitter', profileId: 'short-timeout' }, reason: 'test' },
        now: clock.now(),
      }),
    ])
    // The default lease is twice the timeout: 1 s, less than a call plus the margin for its record.
    const short = createWebhookWorker(
      { ...h.app, clock },
      { id: 'short', client: { policy: { allowPrivate: true }, timeoutMs: 500 } },
    )
    try {
      await short.drain()
    } finally {
      await short.stop()
    }
    expect(receiver.accepted.filter((r) => r.id === id)).toHaveLength(1)
  })
})
