import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { generateSecret } from '../../src/modules/outbox/signing.js'
import { createVault, webhookSecretAt } from '../../src/platform/crypto/vault.js'
import type { Store } from '../../src/platform/db/db.js'
import { recordEvent } from '../../src/platform/db/statements/events.js'
import { insertEndpoint } from '../../src/platform/db/statements/webhook-endpoints.js'
import { writeTransaction } from '../../src/platform/db/write-transaction.js'
import { postgresTestUrl } from '../helpers/backends.js'
import { duplicates, type Receiver, startReceiver } from '../helpers/webhook-receiver.js'
import {
  type SharedDatabase,
  sharedPostgres,
  sharedSqlite,
  startWorkerProcess,
  type WorkerProcess,
} from '../helpers/worker-processes.js'

const databases: Array<() => SharedDatabase> = [sharedSqlite, ...(postgresTestUrl ? [sharedPostgres] : [])]
const WORKSPACE = 'a1b2c3d4e5f6a7b8c9d0e1f2'

async function recordMany(store: Store, n: number, tag: string): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i += 100)
    await writeTransaction(store, async (tx) => {
      for (let j = i; j < Math.min(n, i + 100); j++)
        ids.push(
          await recordEvent(tx, {
            workspaceId: WORKSPACE,
            type: 'target.published',
            orderKey: `${tag}-${j % 50}`,
            data: { postId: `${tag}-${j % 50}`, n: j },
            now: Date.now(),
          }),
        )
    })
  return ids
}

const until = async (check: () => boolean, ms: number) => {
  for (let waited = 0; waited < ms && !check(); waited += 50) await new Promise((r) => setTimeout(r, 50))
}

describe.each(databases.map((make) => ({ make, name: make.name.replace('shared', '').toLowerCase() })))(
  'webhook delivery by separate worker processes on $name',
  { timeout: 120_000 },
  ({ make }) => {
    let db: SharedDatabase
    let store: Store
    let receiver: Receiver
    let secret: string
    const workers: WorkerProcess[] = []

    beforeAll(async () => {
      db = make()
      store = await db.open()
      receiver = await startReceiver()
      secret = generateSecret()
      const vault = createVault(Buffer.alloc(32, 7))
      const now = Date.now()
      await store.db
        .insertInto('workspaces')
        .values({ id: WORKSPACE, name: 'Processes', plan: 'free', credit_balance: 0, created_at: now })
        .execute()
      const id = 'e1e2e3e4e5e6e7e8e9e0e1e2'
      await insertEndpoint(store.db, {
        id,
        workspace_id: WORKSPACE,
        url: receiver.url,
        description: '',
        event_types: '[]',
        enabled: 1,
        secret: vault.seal(webhookSecretAt(id, 'secret'), secret),
        created_at: now,
        updated_at: now,
      })
    })
    afterEach(async () => {
      for (const w of workers.splice(0)) {
        if (w.child.exitCode === null) w.child.kill('SIGTERM')
        await w.exited
      }
      receiver.answer = () => 204
      receiver.accepted.length = 0
      receiver.requests.length = 0
    })
    afterAll(async () => {
      await store?.destroy()
      await receiver?.close()
      await db?.drop()
    })

    it('delivers 1,000 events with two worker processes and 0 duplicate deliveries, in order per post', async () => {
      const expected = await recordMany(store, 1_000, 'pair')
      const env = { RECORDER_URL: receiver.url }
      workers.push(await startWorkerProcess(db, { ...env, WORKER_ID: 'one' }))
      workers.push(await startWorkerProcess(db, { ...env, WORKER_ID: 'two' }))
      await until(() => receiver.accepted.length >= expected.length, 90_000)
      await new Promise((r) => setTimeout(r, 300))
      expect(receiver.accepted).toHaveLength(1_000)
      expect(duplicates(receiver.accepted)).toEqual([])
      expect(new Set(receiver.accepted.map((r) => r.id))).toEqual(new Set(expected))
      // Each post's events arrived in the order they were recorded.
      const byPost = new Map<string, number[]>()
      for (const r of receiver.accepted) {
        const list = byPost.get(r.event.data.postId) ?? []
        list.push(r.event.data.n)
        byPost.set(r.event.data.postId, list)
      }
      for (const list of byPost.values()) expect(list).toEqual([...list].sort((a, b) => a - b))
      for (const r of receiver.accepted.slice(0, 20)) expect(receiver.verify(r, secret).standard).toBe(true)
    })

    it('finishes the deliveries in flight when SIGTERM arrives, records them, and leaves none leased or sent twice', async () => {
      const expected = await recordMany(store, 60, 'term')
      // Slow answers, so SIGTERM comes while the worker's POSTs are in flight.
      receiver.answer = async () => {
        await new Promise((r) => setTimeout(r, 300))
        return 204
      }
      const env = { RECORDER_URL: receiver.url }
      const first = await startWorkerProcess(db, { ...env, WORKER_ID: 'stopped' })
      workers.push(first)
      await until(() => receiver.requests.length > 0, 20_000)
      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
      const rows = await store.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'lease_owner'])
        .where('event_id', 'in', expected)
        .execute()
      // What the stopped worker had in flight finished and was recorded; nothing stays leased to it.
      expect(rows.filter((r) => r.lease_owner !== null && r.status === 'pending')).toEqual([])
      const deliveredBeforeRestart = rows.filter((r) => r.status === 'delivered').length
      expect(deliveredBeforeRestart).toBe(new Set(receiver.accepted.map((r) => r.id)).size)
      receiver.answer = () => 204
      workers.push(await startWorkerProcess(db, { ...env, WORKER_ID: 'successor' }))
      await until(() => new Set(receiver.accepted.map((r) => r.id)).size >= expected.length, 60_000)
      expect(new Set(receiver.accepted.map((r) => r.id))).toEqual(new Set(expected))
      expect(duplicates(receiver.accepted)).toEqual([])
    })

    it('delivers every event after a worker is SIGKILLed mid-delivery, inventing none', async () => {
      const expected = await recordMany(store, 40, 'kill')
      // The receiver holds its first answers, so the worker is killed while its POSTs are in flight.
      let release: () => void = () => {}
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      receiver.answer = async () => {
        await held
        return 204
      }
      const env = { RECORDER_URL: receiver.url, WORKER_WEBHOOK_TIMEOUT_MS: '1500' }
      const first = await startWorkerProcess(db, { ...env, WORKER_ID: 'doomed' })
      workers.push(first)
      await until(() => receiver.requests.length > 0, 20_000)
      expect(receiver.requests.length).toBeGreaterThan(0)
      first.child.kill('SIGKILL')
      await first.exited
      release()
      receiver.answer = () => 204
      workers.push(await startWorkerProcess(db, { ...env, WORKER_ID: 'survivor' }))
      await until(() => new Set(receiver.accepted.map((r) => r.id)).size >= expected.length, 60_000)
      const ids = new Set(receiver.accepted.map((r) => r.id))
      expect([...ids].sort()).toEqual([...expected].sort())
      // At least once: only what the killed worker had in flight may have arrived twice.
      // (at most the 32 a worker sends to one endpoint at once: half of its 64 slots by default).
      expect(duplicates(receiver.accepted).length).toBeLessThanOrEqual(32)
    })
  },
)
