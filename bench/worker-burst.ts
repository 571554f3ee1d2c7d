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
    // Watch the stand-in network first (no database load while the workers drain), then confirm in the store.
    await waitFor(async () => recorder.received.length >= count, 180_000, `${count} publishes`)
    await waitFor(
      async () => (await targetCounts(h.app.store)).published === count,
      30_000,
      `${count} published targets`,
    )
    const rows = await h.app.store.db
      .selectFrom('targets')
      .innerJoin('posts', 'posts.id', 'targets.post_id')
      .select(['targets.id', 'posts.due_at'])
      .execute()
    const dueById = new Map(rows.map((r) => [r.id, Number(r.due_at)]))
    const lags = recorder.received.map((r) => ({
      due: dueById.get(r.targetId) ?? 0,
      lag: r.at - (dueById.get(r.targetId) ?? 0),
    }))
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
