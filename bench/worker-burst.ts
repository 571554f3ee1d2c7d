import { insertWorkspace } from '../src/platform/db/statements/accounts.js'
import { connectProfile } from '../test/helpers/connections.js'
import { startHarness } from '../test/helpers/harness.js'
import { startRecorder } from '../test/helpers/recorder.js'
import { seedScheduledPosts } from '../test/helpers/seed.js'
import {
  type SharedDatabase,
  sharedPostgres,
  sharedSqlite,
  startWorkerProcess,
  targetCounts,
  type WorkerProcess,
  waitFor,
} from '../test/helpers/worker-processes.js'
import { percentile, round } from './stats.js'

export interface BurstResult {
  name: string
  targets: number
  workers: number
  drainSeconds: number
  targetsPerSecondPerWorker: number
  fireLagP50Ms: number
  fireLagP99Ms: number
  first100FireLagP99Ms: number
  /** Two-workspace case: fire lag of the other workspace's single posts (one due each second of the drain). */
  quietFireLagP99Ms?: number
  quietFireLagMaxMs?: number
}

/**
 * 10,000 targets due within the same second, a local network stand-in answering each publish in 50 ms,
 * and `workers` worker processes: how late each send starts (fire lag) and how long the queue takes to drain.
 */
export async function benchBurst(
  name: string,
  make: () => SharedDatabase,
  workers: number,
  count = 10_000,
  /** Posts of a second workspace, one due at the backlog's instant and one each second after it. */
  quiet = 0,
): Promise<BurstResult> {
  const db = make()
  const h = await startHarness({ backend: { name: db.name, open: db.open }, credits: 0 })
  const recorder = await startRecorder({ delayMs: 50 })
  const processes: WorkerProcess[] = []
  try {
    const connectionId = await connectProfile(h, 'twitter', 'tw-1', 'acme')
    for (let i = 0; i < workers; i++) {
      processes.push(
        await startWorkerProcess(db, {
          RECORDER_URL: recorder.url,
          WORKER_ID: `bench-${i}`,
          WORKER_CONCURRENCY: '64',
          WORKER_BATCH: '64',
        }),
      )
    }
    // Due a few seconds from now, spread over one second, so the workers are idle and waiting when it comes.
    const dueAt = Date.now() + 4_000
    const due = (i: number) => dueAt + (i % 1000)
    await seedScheduledPosts(h.app.store, {
      workspaceId: h.workspaceId,
      authorId: h.userId,
      connectionId,
      count,
      runAt: due,
    })
    const quietIds = new Set<string>()
    if (quiet > 0) {
      const workspaceId = await insertWorkspace(h.app.store.db, { name: 'Quiet', plan: 'free' }, Date.now())
      const quietConnection = await connectProfile(h, 'twitter', 'tw-quiet', 'quiet', { workspaceId })
      const postIds = await seedScheduledPosts(h.app.store, {
        workspaceId,
        authorId: h.userId,
        connectionId: quietConnection,
        profile: { platform: 'twitter', profileId: 'tw-quiet', username: 'quiet' },
        count: quiet,
        runAt: (i) => dueAt + i * 1000,
        contentOf: (i) => `quiet ${i}`,
      })
      const rows = await h.app.store.db
        .selectFrom('targets')
        .select('id')
        .where('post_id', 'in', postIds)
        .execute()
      for (const row of rows) quietIds.add(row.id)
    }
    const total = count + quiet
    // Watch the stand-in network first (no database load while the workers drain), then confirm in the store.
    await waitFor(async () => recorder.received.length >= total, 180_000, `${total} publishes`)
    await waitFor(
      async () => (await targetCounts(h.app.store)).published === total,
      30_000,
      `${total} published targets`,
    )
    const rows = await h.app.store.db
      .selectFrom('targets')
      .innerJoin('posts', 'posts.id', 'targets.post_id')
      .select(['targets.id', 'posts.due_at'])
      .execute()
    const dueById = new Map(rows.map((r) => [r.id, Number(r.due_at)]))
    const lagOf = (r: { targetId: string; at: number }) => ({
      due: dueById.get(r.targetId) ?? 0,
      lag: r.at - (dueById.get(r.targetId) ?? 0),
    })
    const lags = recorder.received.filter((r) => !quietIds.has(r.targetId)).map(lagOf)
    const quietLags = recorder.received.filter((r) => quietIds.has(r.targetId)).map((r) => lagOf(r).lag)
    const first100 = [...lags].sort((a, b) => a.due - b.due).slice(0, 100)
    const last = Math.max(...recorder.received.map((r) => r.at))
    const drainSeconds = (last - dueAt) / 1000
    return {
      name,
      targets: count,
      workers,
      drainSeconds: round(drainSeconds, 2),
      targetsPerSecondPerWorker: round(count / drainSeconds / workers, 0),
      fireLagP50Ms: round(
        percentile(
          lags.map((l) => l.lag),
          50,
        ),
        0,
      ),
      fireLagP99Ms: round(
        percentile(
          lags.map((l) => l.lag),
          99,
        ),
        0,
      ),
      first100FireLagP99Ms: round(
        percentile(
          first100.map((l) => l.lag),
          99,
        ),
        0,
      ),
      ...(quiet > 0
        ? {
            quietFireLagP99Ms: round(percentile(quietLags, 99), 0),
            quietFireLagMaxMs: round(Math.max(...quietLags), 0),
          }
        : {}),
    }
  } finally {
    for (const p of processes) {
      p.child.kill('SIGTERM')
      await p.exited
    }
    await recorder.close()
    await h.close()
    await db.drop()
  }
}

export const burstDatabases = { sharedSqlite, sharedPostgres }
