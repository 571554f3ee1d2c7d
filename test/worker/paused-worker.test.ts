import { type ChildProcess, spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { claimDueTargets, markStuck, renewLeases } from '../../src/modules/delivery/leases.js'
import type { FaultInjector, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { backends, postgresTestUrl } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { connectSandboxProfile } from '../helpers/sandbox-adapters.js'
import { type SharedDatabase, sharedPostgres, sharedSqlite, waitFor } from '../helpers/worker-processes.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

const databases: Array<{ name: string; make: () => SharedDatabase }> = [
  { name: 'sqlite', make: sharedSqlite },
  ...(postgresTestUrl ? [{ name: 'postgres', make: sharedPostgres }] : []),
]

/**
 * A worker paused past its lease (SIGSTOP, as a frozen VM or a long stall would) and then
 * resumed (SIGCONT) must not send what another worker took over meanwhile. Two real worker processes
 * against the X simulator of a Herald test server sharing their database; copies counted on the simulator.
 */
describe.each(databases)('a worker process paused past its lease, on $name', ({ make }) => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('stops before its next network call when resumed, while the other worker looks the post up and sends it once', async () => {
    const db = make()
    let pauseNext: ((call: SimulatedCall) => void) | undefined
    const faults: FaultInjector = {
      decide(call) {
        pauseNext?.(call)
        return undefined
      },
    }
    const photo = await solidImage(800, 800, 'jpeg')
    const images: TestServer = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      res.end(photo)
    })
    const h: Harness = await startHarness({
      sandbox: true,
      faults,
      credits: 500,
      backend: { name: db.name, open: db.open },
      env: {
        HERALD_DATA_DIR: db.env.WORKER_DATA_DIR as string,
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
        HERALD_IMMEDIATE_WAIT_MS: '0',
      },
    })
    const children: ChildProcess[] = []
    cleanups.push(async () => {
      for (const child of children) {
        if (child.exitCode !== null) continue
        child.kill('SIGCONT')
        child.kill('SIGKILL')
      }
      await h.close()
      await images.close()
      await db.drop()
    })
    await connectSandboxProfile(h, 'twitter', 'paused')

    const start = async (id: string, extra: Record<string, string> = {}) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/meta-worker-process.ts'], {
        env: {
          ...process.env,
          ...db.env,
          WORKER_PUBLIC_BASE_URL: h.baseUrl,
          WORKER_ID: id,
          WORKER_LEASE_MS: '1500',
          ...extra,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      children.push(child)
      const stderr: string[] = []
      child.stderr?.on('data', (chunk) => stderr.push(chunk.toString()))
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (chunk) => {
          if (chunk.toString().includes('ready')) resolve()
        })
        child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${stderr.join('')}`)))
      })
      return { child, stderr }
    }

    const content = 'Sent once although its first worker froze mid-send'
    const copies = () => h.sandboxes!.twitter.tweets().filter((t) => t.text.startsWith(content))
    // The post is due before the first worker starts: it claims it at once and then, polling only every
    // minute, runs no claim transaction of its own, so it is frozen mid-send and not holding SQLite's
    // write lock (a process frozen inside a write transaction would stop every writer of the file).
    const created = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', username: 'paused' }],
      mediaUrls: [`${images.url}/photo.jpg`],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const postId = created.body.postIds[0] as string
    // The first worker is frozen the moment its media upload reaches X (before POST /2/tweets); the
    // simulator still answers, so the answer waits in its socket for when it wakes up.
    const paused = new Promise<void>((resolve) => {
      pauseNext = (call) => {
        // The first child spawned is the first worker (spawned before it reports ready).
        const frozen = children[0]
        if (call.network !== 'twitter' || call.operation !== 'initializeMediaUpload' || !frozen) return
        pauseNext = undefined
        frozen.kill('SIGSTOP')
        resolve()
      }
    })
    const first = await start('frozen', { WORKER_POLL_MS: '60000' })
    await paused
    const second = await start('healthy')
    const target = () =>
      h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow()
    // The lease runs out; the healthy worker's sweep makes the target a lookup, finds nothing and sends it.
    await waitFor(
      async () => (await target()).status === 'published',
      45_000,
      'the healthy worker to publish',
    ).catch(async (error: Error) => {
      const row = await target()
      throw new Error(`${error.message}: ${JSON.stringify(row)} ${second.stderr.join('')}`)
    })
    expect(copies()).toHaveLength(1)
    const published = await target()

    // The frozen worker wakes up with an answer waiting and its lease long gone.
    first.child.kill('SIGCONT')
    await new Promise((r) => setTimeout(r, 4_000))
    expect(copies()).toHaveLength(1)
    expect(copies()[0]?.id).toBe(published.remote_id)
    expect(await target()).toMatchObject({ status: 'published', remote_id: published.remote_id })
    expect(first.stderr.join('')).toMatch(/no longer holds the lease|lease lost|lease lapsed/)
  }, 120_000)
})

describe.each(backends)('lease renewal and claims on $name', (backend) => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  it('renews only an unexpired lease that is not stuck, and a claim clears the stuck mark', async () => {
    h = await startHarness({ backend, env: { HERALD_IMMEDIATE_WAIT_MS: '0' } })
    await connectProfile(h, 'linkedin', 'li-renew', 'renew')
    const res = await h.call('create_post', {
      content: `renew ${Math.random()}`,
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-renew' }],
      publishImmediately: true,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const now = Date.now() + 10
    const [claimed] = await claimDueTargets(h.app.store, {
      workerId: 'w1',
      now,
      leaseMs: 1000,
      limit: 1,
      platforms: ['linkedin'],
    })
    const id = claimed!.id
    expect(await renewLeases(h.app.store, 'w1', [id], { leaseNow: now + 500, leaseMs: 1000 })).toEqual(
      new Set([id]),
    )
    // Past the lease: not revived.
    expect(await renewLeases(h.app.store, 'w1', [id], { leaseNow: now + 1600, leaseMs: 1000 })).toEqual(
      new Set(),
    )
    // Marked stuck by a sweep: not revived either, even before the lease's end.
    await markStuck(h.app.store, now + 1600, 'worker died')
    expect(await renewLeases(h.app.store, 'w1', [id], { leaseNow: now + 1000, leaseMs: 1000 })).toEqual(
      new Set(),
    )
    const row = () =>
      h!.app.store.db.selectFrom('targets').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(await row()).toMatchObject({ stuck_reason: 'worker_lost' })
    // A person releases it and it is sent again: the new claim is not stuck.
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: null, lease_expires_at: null, run_at: now })
      .where('id', '=', id)
      .execute()
    await claimDueTargets(h.app.store, {
      workerId: 'w2',
      now: now + 2000,
      leaseMs: 1000,
      limit: 1,
      platforms: ['linkedin'],
    })
    expect(await row()).toMatchObject({ lease_owner: 'w2', stuck_at: null, stuck_reason: null })
  })
})
