import { afterEach, describe, expect, it } from 'vitest'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { postgresTestUrl } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Recorder, startRecorder } from '../helpers/recorder.js'
import {
  type SharedDatabase,
  seedDueTargets,
  sharedPostgres,
  sharedSqlite,
  startWorkerProcess,
  targetCounts,
  type WorkerProcess,
  waitFor,
} from '../helpers/worker-processes.js'

const databases: Array<{ name: string; make: () => SharedDatabase }> = [
  { name: 'sqlite', make: sharedSqlite },
  ...(postgresTestUrl ? [{ name: 'postgres', make: sharedPostgres }] : []),
]

const timesReceived = (recorder: Recorder) => {
  const counts = new Map<string, number>()
  for (const r of recorder.received) counts.set(r.targetId, (counts.get(r.targetId) ?? 0) + 1)
  return counts
}

describe('worker processes', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function setup(make: () => SharedDatabase) {
    const db = make()
    const h: Harness = await startHarness({
      backend: { name: db.name, open: db.open },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    const recorder = await startRecorder()
    const workers: WorkerProcess[] = []
    cleanups.push(async () => {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL')
      await recorder.close()
      await h.close()
      await db.drop()
    })
    const connectionId = await connectProfile(h, 'twitter', 'tw-1', 'acme')
    const start = async (env: Record<string, string> = {}) => {
      const w = await startWorkerProcess(db, { RECORDER_URL: recorder.url, ...env })
      workers.push(w)
      return w
    }
    const workersStderr = () => workers.map((w) => w.stderr.join('')).join('\n')
    return { db, h, recorder, connectionId, start, workersStderr }
  }

  it.runIf(postgresTestUrl)(
    'two workers on one Postgres publish 5,000 due targets exactly once each',
    async () => {
      const { h, recorder, connectionId, start } = await setup(sharedPostgres)
      const postIds = await seedDueTargets(h.app.store, {
        workspaceId: h.workspaceId,
        authorId: h.userId,
        connectionId,
        count: 5000,
        runAt: Date.now() - 1000,
      })
      await Promise.all([start({ WORKER_ID: 'w1' }), start({ WORKER_ID: 'w2' })])
      await waitFor(
        async () => (await targetCounts(h.app.store)).published === 5000,
        90_000,
        '5,000 published targets',
      )
      const counts = timesReceived(recorder)
      expect(recorder.received).toHaveLength(5000)
      expect(counts.size).toBe(5000)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
      expect(await targetCounts(h.app.store)).toEqual({ pending: 0, published: 5000, failed: 0, leased: 0 })
      const listed = await h.call('list_posts', { status: 'published', limit: 1 })
      expect(listed.body.counts.published).toBe(postIds.length)
    },
    120_000,
  )

  it.runIf(postgresTestUrl)(
    'two workers on one Postgres refreshing one rotating-token profile: every send succeeds, the profile stays healthy',
    async () => {
      const { h, recorder, connectionId, start, workersStderr } = await setup(sharedPostgres)
      // The access token is about to expire: both processes want to refresh before their first send.
      await h.app.store.db
        .updateTable('connections')
        .set({
          credentials: h.app.vault.sealJson(connectionCredentials(connectionId), {
            accessToken: 'access-0',
            refreshToken: 'refresh-0',
            expiresAt: Date.now() + 1_000,
          }),
        })
        .where('id', '=', connectionId)
        .execute()
      await seedDueTargets(h.app.store, {
        workspaceId: h.workspaceId,
        authorId: h.userId,
        connectionId,
        count: 40,
        runAt: Date.now() - 1000,
      })
      await Promise.all([start({ WORKER_ID: 'r1' }), start({ WORKER_ID: 'r2' })])
      await waitFor(
        async () => (await targetCounts(h.app.store)).published === 40,
        30_000,
        `40 published targets ${workersStderr()}`,
      )
      expect(recorder.tokens).toEqual({ valid: 'refresh-1', refreshes: 1, refused: 0 })
      expect(new Set(recorder.received.map((r) => r.targetId)).size).toBe(40)
      const connection = await h.app.store.db
        .selectFrom('connections')
        .select(['status', 'refreshing_until'])
        .where('id', '=', connectionId)
        .executeTakeFirstOrThrow()
      expect(connection).toEqual({ status: 'active', refreshing_until: null })
    },
    60_000,
  )

  describe.each(databases)('on $name', ({ make }) => {
    it('never re-sends the target a SIGKILLed worker was sending, delivers the rest once after a restart, and resends the stuck one once after reset', async () => {
      const { h, recorder, connectionId, start, workersStderr } = await setup(make)
      const now = Date.now()
      const [stuckId] = await seedDueTargets(h.app.store, {
        workspaceId: h.workspaceId,
        authorId: h.userId,
        connectionId,
        count: 1,
        runAt: now - 10_000,
        contentOf: () => 'HANG',
      })
      await seedDueTargets(h.app.store, {
        workspaceId: h.workspaceId,
        authorId: h.userId,
        connectionId,
        count: 30,
        runAt: now - 5_000,
      })
      recorder.hangOn.add('HANG')
      const first = await start({
        WORKER_ID: 'doomed',
        WORKER_CONCURRENCY: '1',
        WORKER_BATCH: '1',
        WORKER_LEASE_MS: '1500',
      })
      await recorder.hung()
      first.child.kill('SIGKILL')
      await first.exited
      await start({ WORKER_ID: 'survivor', WORKER_LEASE_MS: '1500' })
      await waitFor(
        async () => (await targetCounts(h.app.store)).published === 30,
        30_000,
        '30 published targets',
      ).catch(async (e) => {
        throw new Error(
          `${e.message}: ${JSON.stringify(await targetCounts(h.app.store))} received=${recorder.received.length} ${workersStderr()}`,
        )
      })
      // The survivor's sweep marks the lease its dead peer left stuck: its network has no lookup in these
      // workers (get_post says stuck as soon as the lease runs out, before any sweep has looked).
      await waitFor(
        async () =>
          (
            await h.app.store.db
              .selectFrom('targets')
              .select('stuck_reason')
              .where('post_id', '=', stuckId as string)
              .executeTakeFirst()
          )?.stuck_reason === 'worker_lost',
        10_000,
        'the sweep to mark the stuck post',
      )
      const stuck = (await h.call('get_post', { id: stuckId })).body
      expect(stuck.status).toBe('processing')
      expect(stuck.lastError).toMatch(/outcome is unknown/)
      const hangs = recorder.received.filter((r) => r.content === 'HANG')
      expect(hangs).toHaveLength(1)
      expect([...timesReceived(recorder).values()].every((n) => n === 1)).toBe(true)

      recorder.hangOn.clear()
      expect((await h.call('reset_stuck_post', { id: stuckId })).body.post.status).toBe('failed')
      expect((await h.call('publish_post_now', { id: stuckId })).status).toBe(200)
      await waitFor(
        async () => (await h.call('get_post', { id: stuckId })).body.status === 'published',
        15_000,
        'the retried post',
      )
      expect(recorder.received.filter((r) => r.content === 'HANG')).toHaveLength(2)
      expect(recorder.received).toHaveLength(32)
    }, 60_000)

    it('loses nothing and sends nothing twice when SIGTERM arrives with sends in flight', async () => {
      const { h, recorder, connectionId, start } = await setup(make)
      recorder.delayMs = 200
      await seedDueTargets(h.app.store, {
        workspaceId: h.workspaceId,
        authorId: h.userId,
        connectionId,
        count: 150,
        runAt: Date.now() - 1000,
      })
      const first = await start({ WORKER_ID: 'terminated', WORKER_CONCURRENCY: '16', WORKER_BATCH: '64' })
      await waitFor(async () => recorder.received.length >= 20, 20_000, 'sends in flight')
      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
      const afterStop = await targetCounts(h.app.store)
      expect(afterStop.leased).toBe(0)
      expect(afterStop.failed).toBe(0)
      expect(afterStop.published + afterStop.pending).toBe(150)
      expect(afterStop.published).toBe(recorder.received.length)
      await start({ WORKER_ID: 'successor' })
      await waitFor(
        async () => (await targetCounts(h.app.store)).published === 150,
        30_000,
        '150 published targets',
      )
      const counts = timesReceived(recorder)
      expect(counts.size).toBe(150)
      expect([...counts.values()].every((n) => n === 1)).toBe(true)
    }, 60_000)
  })
})
