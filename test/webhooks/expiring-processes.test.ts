import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSecret } from '../../src/modules/outbox/signing.js'
import { connectionCredentials, createVault, webhookSecretAt } from '../../src/platform/crypto/vault.js'
import type { Store } from '../../src/platform/db/db.js'
import { upsertConnection } from '../../src/platform/db/statements/connections.js'
import { insertEndpoint } from '../../src/platform/db/statements/webhook-endpoints.js'
import { postgresTestUrl } from '../helpers/backends.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'
import {
  type SharedDatabase,
  sharedPostgres,
  sharedSqlite,
  startWorkerProcess,
  type WorkerProcess,
} from '../helpers/worker-processes.js'

const databases: Array<() => SharedDatabase> = [sharedSqlite, ...(postgresTestUrl ? [sharedPostgres] : [])]
const WORKSPACE = 'b1b2c3d4e5f6a7b8c9d0e1f3'
const DAY = 86_400_000
const PROFILES = 60

const until = async (check: () => boolean, ms: number) => {
  for (let waited = 0; waited < ms && !check(); waited += 50) await new Promise((r) => setTimeout(r, 50))
}

describe.each(databases.map((make) => ({ make, name: make.name.replace('shared', '').toLowerCase() })))(
  'account.expiring swept by two worker processes on $name',
  { timeout: 120_000 },
  ({ make }) => {
    let db: SharedDatabase
    let store: Store
    let receiver: Receiver
    const workers: WorkerProcess[] = []

    beforeAll(async () => {
      db = make()
      store = await db.open()
      receiver = await startReceiver()
      const now = Date.now()
      await store.db
        .insertInto('workspaces')
        .values({ id: WORKSPACE, name: 'Expiring', plan: 'free', credit_balance: 0, created_at: now })
        .execute()
      const endpointId = 'e1e2e3e4e5e6e7e8e9e0e1e3'
      await insertEndpoint(store.db, {
        id: endpointId,
        workspace_id: WORKSPACE,
        url: receiver.url,
        description: '',
        event_types: '["account.expiring"]',
        enabled: 1,
        secret: createVault(Buffer.alloc(32, 7)).seal(
          webhookSecretAt(endpointId, 'secret'),
          generateSecret(),
        ),
        created_at: now,
        updated_at: now,
      })
    })
    afterAll(async () => {
      for (const w of workers.splice(0)) {
        if (w.child.exitCode === null) w.child.kill('SIGTERM')
        await w.exited
      }
      await store?.destroy()
      await receiver?.close()
      await db?.drop()
    })

    it('sends one warning per connection while both processes sweep the same rows every 20 ms', async () => {
      const env = { RECORDER_URL: receiver.url, WORKER_EXPIRING_SWEEP_MS: '20' }
      workers.push(await startWorkerProcess(db, { ...env, WORKER_ID: 'sweep-one' }))
      workers.push(await startWorkerProcess(db, { ...env, WORKER_ID: 'sweep-two' }))
      // Both are sweeping now; the connections appear while they do.
      const vault = createVault(Buffer.alloc(32, 7))
      const now = Date.now()
      for (let i = 0; i < PROFILES; i++)
        await upsertConnection(
          store.db,
          {
            workspaceId: WORKSPACE,
            platform: 'linkedin',
            profileId: `li-${i}`,
            username: `li${i}`,
            name: `LinkedIn ${i}`,
            isOrganization: false,
            sealCredentials: (id) =>
              vault.sealJson(connectionCredentials(id), {
                accessToken: `li-access-${i}`,
                refreshToken: `li-refresh-${i}`,
                expiresAt: now + 30 * DAY,
                extra: { refreshTokenExpiresAt: String(now + 3 * DAY) },
              }),
            tokenExpiresAt: now + 30 * DAY,
          },
          now,
        )
      await until(() => receiver.accepted.length >= PROFILES, 60_000)
      // Many more sweeps by both processes: nothing new may arrive.
      await new Promise((r) => setTimeout(r, 1_500))
      const profiles = receiver.accepted.map((r) => r.event.data.account.profileId as string)
      expect(receiver.accepted.every((r) => r.event.type === 'account.expiring')).toBe(true)
      expect(new Set(profiles).size).toBe(PROFILES)
      expect(profiles).toHaveLength(PROFILES)
      for (const r of receiver.accepted) expect(r.body).not.toMatch(/li-access|li-refresh/)
    })
  },
)
