import { type ChildProcess, spawn } from 'node:child_process'
import { sql } from 'kysely'
import { createEndpoint, webhookDepsOf } from '../src/modules/outbox/endpoints.js'
import { connectProfile } from '../test/helpers/connections.js'
import { startHarness } from '../test/helpers/harness.js'
import { startRecorder } from '../test/helpers/recorder.js'
import { seedScheduledPosts } from '../test/helpers/seed.js'
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
  /** Each pair of bursts, in the order they ran. */
  pairs: Array<{ without: number; with: number }>
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
  const receiver = await startReceiverProcess()
  const processes: WorkerProcess[] = []
  try {
    const connectionId = await connectProfile(h, 'twitter', 'tw-1', 'acme')
    // Each burst starts right after a checkpoint, so one that the WAL of earlier bursts set off does not
    // land in some bursts and not others (full-page images make the first writes after it dearer).
    if (db.name === 'postgres') await sql`CHECKPOINT`.execute(h.app.store.db).catch(() => undefined)
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
    await waitFor(async () => (await receiver.count()) >= events, 600_000, `${events} events`)
    const accepted = await receiver.report()
    const lags = accepted.map(([, at, timestamp]) => at - Date.parse(timestamp))
    const first = Math.min(...accepted.map(([, at]) => at))
    const last = Math.max(...accepted.map(([, at]) => at))
    const ids = new Set(accepted.map(([id]) => id))
    return {
      publishesPerSecond,
      events,
      eventsPerSecond: events / Math.max(0.001, (last - first) / 1000),
      lagP50Ms: percentile(lags, 50),
      lagP99Ms: percentile(lags, 99),
      duplicates: accepted.length - ids.size,
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

/** One delivery as the receiver took it: webhook-id, arrival time (ms), the event's timestamp. */
type Arrival = [string, number, string]

/** bench/receiver-process.ts, started and asked for what arrived over IPC. */
async function startReceiverProcess() {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/receiver-process.ts'], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /listening (\S+)/.exec(chunk.toString())
      if (match?.[1]) resolve(match[1])
    })
    child.on('exit', (code) => reject(new Error(`the receiver exited with ${code}`)))
  })
  const ask = <T>(question: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (message) => resolve(message as T))
      child.send(question)
    })
  return {
    url,
    count: () => ask<number>('count'),
    report: () => ask<Arrival[]>('report'),
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.disconnect()
      await exited
    },
  }
}

/**
 * 5,000 one-target posts due within a second (10,000 events: target.published and post.published each),
 * one worker process, a stand-in network answering in 50 ms and a local receiver answering at once: the
 * publish rate without and with webhooks in the same run, events per second, and the lag from the change
 * (the event's timestamp) to the receiver. The two bursts alternate `pairs` times (default 3), so a machine
 * that slows down or speeds up during the run weighs on both sides alike; the rates are the medians, the
 * lag the worst run's.
 */
export async function benchWebhooks(
  name: string,
  make: () => SharedDatabase,
  targets = Number(process.env.BENCH_WEBHOOK_TARGETS ?? 5_000),
  pairs = Number(process.env.BENCH_WEBHOOK_PAIRS ?? 3),
): Promise<WebhookBenchResult> {
  const without: number[] = []
  const runs: Array<Awaited<ReturnType<typeof burst>>> = []
  for (let i = 0; i < pairs; i++) {
    without.push((await burst(make, targets, false)).publishesPerSecond)
    runs.push(await burst(make, targets, true))
  }
  const median = (values: number[]) => percentile(values, 50)
  return {
    name,
    targets,
    events: runs[0]?.events ?? 0,
    publishesPerSecond: round(median(runs.map((r) => r.publishesPerSecond)), 0),
    publishesPerSecondWithout: round(median(without), 0),
    pairs: runs.map((r, i) => ({
      without: round(without[i] ?? 0, 0),
      with: round(r.publishesPerSecond, 0),
    })),
    eventsPerSecond: round(median(runs.map((r) => r.eventsPerSecond ?? 0)), 0),
    lagP50Ms: round(Math.max(...runs.map((r) => r.lagP50Ms ?? 0)), 0),
    lagP99Ms: round(Math.max(...runs.map((r) => r.lagP99Ms ?? 0)), 0),
    duplicates: runs.reduce((n, r) => n + (r.duplicates ?? 0), 0),
  }
}
