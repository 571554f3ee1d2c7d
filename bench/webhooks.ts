import { createEndpoint, webhookDepsOf } from '../src/webhooks/endpoints.js'
import { connectProfile } from '../test/helpers/connections.js'
import { startHarness } from '../test/helpers/harness.js'
import { startRecorder } from '../test/helpers/recorder.js'
import { seedScheduledPosts } from '../test/helpers/seed.js'
import { startReceiver } from '../test/helpers/webhook-receiver.js'
import {
  type SharedDatabase,
  startWorkerProcess,
  type WorkerProcess,
  waitFor,
} from '../test/helpers/worker-processes.js'
import { percentile, round } from './stats.js'

export interface WebhookBenchResult {
  name: string
  targets: number
  events: number
  publishesPerSecond: number
  publishesPerSecondWithout: number
  eventsPerSecond: number
  lagP50Ms: number
  lagP99Ms: number
  duplicates: number
}

/** One burst of `targets` due targets through one worker process; with webhooks, also every event. */
async function burst(make: () => SharedDatabase, targets: number, webhooks: boolean) {
  const db = make()
  const h = await startHarness({
    backend: { name: db.name, open: db.open },
    credits: 0,
    // The worker process opens secrets with this key (test/fixtures/worker-process.ts).
    env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1', HERALD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') },
  })
  const recorder = await startRecorder({ delayMs: 50 })
  const receiver = await startReceiver()
  const processes: WorkerProcess[] = []
  try {
    const connectionId = await connectProfile(h, 'twitter', 'tw-1', 'acme')
    if (webhooks)
      await createEndpoint(
        webhookDepsOf(h.app),
        { workspaceId: h.workspaceId, role: 'owner' },
        { url: receiver.url },
      )
    processes.push(
      await startWorkerProcess(db, {
        RECORDER_URL: recorder.url,
        WORKER_ID: 'bench-webhooks',
        WORKER_CONCURRENCY: '64',
        WORKER_BATCH: '64',
      }),
    )
    const dueAt = Date.now() + 4_000
    await seedScheduledPosts(h.app.store, {
      workspaceId: h.workspaceId,
      authorId: h.userId,
      connectionId,
      count: targets,
      runAt: (i) => dueAt + (i % 1000),
    })
    await waitFor(async () => recorder.received.length >= targets, 300_000, `${targets} publishes`)
    const lastPublish = Math.max(...recorder.received.map((r) => r.at))
    const publishesPerSecond = targets / ((lastPublish - dueAt) / 1000)
    if (!webhooks) return { publishesPerSecond }
    // Each one-target post settles with target.published then post.published.
    const events = targets * 2
    await waitFor(async () => receiver.accepted.length >= events, 600_000, `${events} events`)
    const lags = receiver.accepted.map((r) => r.at - Date.parse(r.event.timestamp))
    const first = Math.min(...receiver.accepted.map((r) => r.at))
    const last = Math.max(...receiver.accepted.map((r) => r.at))
    const ids = new Set(receiver.accepted.map((r) => r.id))
    return {
      publishesPerSecond,
      events,
      eventsPerSecond: events / Math.max(0.001, (last - first) / 1000),
      lagP50Ms: percentile(lags, 50),
      lagP99Ms: percentile(lags, 99),
      duplicates: receiver.accepted.length - ids.size,
    }
  } finally {
    for (const p of processes) {
      p.child.kill('SIGTERM')
      await p.exited
    }
    await receiver.close()
    await recorder.close()
    await h.close()
    await db.drop()
  }
}

/**
 * 5,000 one-target posts due within a second (10,000 events: target.published and post.published each),
 * one worker process, a stand-in network answering in 50 ms and a local receiver answering at once: the
 * publish rate without and with webhooks in the same run, events per second, and the lag from the change
 * (the event's timestamp) to the receiver.
 */
export async function benchWebhooks(
  name: string,
  make: () => SharedDatabase,
  targets = Number(process.env.BENCH_WEBHOOK_TARGETS ?? 5_000),
): Promise<WebhookBenchResult> {
  const without = await burst(make, targets, false)
  const withHooks = await burst(make, targets, true)
  return {
    name,
    targets,
    events: withHooks.events ?? 0,
    publishesPerSecond: round(withHooks.publishesPerSecond, 0),
    publishesPerSecondWithout: round(without.publishesPerSecond, 0),
    eventsPerSecond: round(withHooks.eventsPerSecond ?? 0, 0),
    lagP50Ms: round(withHooks.lagP50Ms ?? 0, 0),
    lagP99Ms: round(withHooks.lagP99Ms ?? 0, 0),
    duplicates: withHooks.duplicates ?? 0,
  }
}
