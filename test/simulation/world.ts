import { AsyncLocalStorage } from 'node:async_hooks'
import type { KyselyPlugin } from 'kysely'
import { createAdapters } from '../../src/adapters/registry.js'
import type { Network } from '../../src/core/networks.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { createWorker, type Worker } from '../../src/modules/delivery/worker.js'
import { type Clock, FakeClock } from '../../src/platform/clock.js'
import type { Store } from '../../src/platform/db/db.js'
import { checkSendGuard } from '../../src/platform/egress/send-guard.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'
import { SimulatedFaults } from './faults.js'

/** Herald's first seven networks, each with the profile the simulation publishes as. */
export const FIRST_PROFILES: ReadonlyArray<{ network: Network; username: string }> = [
  { network: 'twitter', username: 'sim_x' },
  { network: 'facebook', username: 'Sim Page' },
  { network: 'instagram', username: 'sim.insta' },
  { network: 'threads', username: 'simthreads' },
  { network: 'linkedin', username: 'Sim Member' },
  { network: 'bluesky', username: 'simsky' },
  { network: 'youtube', username: 'sim@example.com' },
]

/**
 * The networks added since, with their profiles (for a network whose profiles are its pages, boards or
 * locations, the first one the simulated account has). A seed draws them from a stream of its own, so the
 * first seven's share of each seed's story, and the recorded seeds' stories, stay as they were.
 */
export const NEWER_PROFILES: ReadonlyArray<{ network: Network; username: string }> = [
  { network: 'googlebusiness', username: 'simbusiness' },
  { network: 'tiktok', username: 'sim.creator' },
  { network: 'pinterest', username: 'simpins' },
  { network: 'mastodon', username: 'sim@instance.example' },
]

/** Every network the simulation connects. */
export const PROFILES = [...FIRST_PROFILES, ...NEWER_PROFILES]

/** How long a client waits for an answer in the simulation (the adapters' own timeouts are 30 s and more). */
export const CLIENT_TIMEOUT_MS = 750
/** The furthest an adapter's wait between polls moves the simulated clock (well inside a lease). */
const SLEEP_ADVANCE_MS = 500

/**
 * One Herald in sandbox mode, shared by a batch of seeds: the real server, tools, store and simulators of
 * the seven networks (asked about every request by {@link SimulatedFaults}), a fake clock the simulation
 * moves, a media server, and one connected profile per network. Workers are made per seed with
 * {@link World.worker}, each with its own adapters and its own view of the store, so the simulation can
 * kill one (as SIGKILL would) or pause it, without touching the others.
 */
export interface World {
  h: Harness
  clock: FakeClock
  faults: SimulatedFaults
  media: TestServer
  connections: Map<Network, { connectionId: string; profileId: string }>
  /** Reconnects a profile whose connection broke (a refresh lost to a fault); answers the networks reconnected. */
  heal(): Promise<Network[]>
  /**
   * A worker process of its own. `skewMs` sets its machine's clock that far ahead of the others' (behind
   * when negative): its leases, claims, sweeps and adapters all read that clock.
   */
  worker(id: string, options?: { skewMs?: number }): SimWorker
  /** Runs `run` in the world's async context (a seed: its workers' client timeouts are the world's). */
  within<T>(run: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** A worker as a process: it can be killed at its n-th network call, or paused there and resumed. */
export interface SimWorker {
  readonly id: string
  readonly worker: Worker
  readonly dead: boolean
  /** True once it was stopped (gracefully, or its timers cleared after it died). */
  readonly stopped: boolean
  /** Network calls it has made. */
  readonly calls: number
  /** Dies at its `at`-th call: before the request leaves, or after the network answered (the answer is lost). */
  armKill(at: number, after: boolean): void
  /**
   * Dies as the answer to its `nth` publishing call from now arrives (the answer is lost): the first of its
   * calls that ends with `published` (a count of publishing calls the networks received) `nth` or more past
   * where it stood when armed. With workers racing, a call that moved the count may be another's: this one
   * dies at that moment all the same.
   */
  armKillAfterPublishing(published: () => number, nth: number): void
  /** Holds its `at`-th call before it leaves; the promise resolves when it is held. */
  armPause(at: number): Promise<void>
  resume(): void
  disarm(): void
  kill(): void
  /** Stops its timers (a graceful stop for a live worker; a dead one only has its timers cleared). */
  stop(): Promise<void>
}

const originalTimeout = AbortSignal.timeout.bind(AbortSignal)
let timeoutPatched = false
/**
 * Connecting profiles (no faults then) keeps the real timeouts: a loaded machine may be slow to answer.
 * It is known per world, not per process: lanes run worlds side by side, and a world connecting must not
 * give another lane's send a real timeout (seed 87 hung in CI on a YouTube upload that way). Everything of a
 * world runs in its async context: its server was started there, so the requests it serves (the connect
 * flows' token exchanges among them) see it too, and so do the seeds {@link World.within} runs.
 */
const worldScope = new AsyncLocalStorage<{ connecting: number }>()

/** Every client timeout in this process becomes {@link CLIENT_TIMEOUT_MS}, so a late answer costs little. */
function shortenClientTimeouts() {
  if (timeoutPatched) return
  timeoutPatched = true
  AbortSignal.timeout = (ms: number) =>
    originalTimeout(worldScope.getStore()?.connecting ? ms : Math.min(ms, CLIENT_TIMEOUT_MS))
}

export function startWorld(): Promise<World> {
  shortenClientTimeouts()
  const scope = { connecting: 0 }
  return worldScope.run(scope, () => buildWorld(scope))
}

async function buildWorld(scope: { connecting: number }): Promise<World> {
  const clock = new FakeClock(Date.UTC(2026, 7, 3, 9))
  const faults = new SimulatedFaults()
  const media = await serveJpegOrVideo(
    await solidImage(1080, 1080, 'jpeg'),
    mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 16 * 1024 }),
  )
  const h = await startHarness({
    sandbox: true,
    clock,
    faults,
    credits: 100_000_000,
    env: {
      HERALD_ALLOW_PRIVATE_MEDIA: '1',
      HERALD_IMMEDIATE_WAIT_MS: '0',
      LOG_LEVEL: process.env.HERALD_SIMULATION_LOG_LEVEL ?? 'silent',
    },
  })
  const sleep = simulatedSleep(clock)
  // The tools' adapters wait in simulated time too.
  Object.assign(
    h.app.adapters,
    createAdapters(h.app.config, { logger: h.app.logger, clock, media: h.app.media, sleep }),
  )
  const connections = new Map<Network, { connectionId: string; profileId: string }>()
  const connect = async (network: Network, username: string) => {
    scope.connecting += 1
    try {
      const connected = await sandboxConnect(h.app, { workspaceId: h.workspaceId, network, username })
      connections.set(network, { connectionId: connected.connectionId, profileId: connected.profileId })
    } finally {
      scope.connecting -= 1
    }
  }
  for (const { network, username } of PROFILES) await connect(network, username)

  return {
    h,
    clock,
    faults,
    media,
    connections,
    async heal() {
      const rows = await h.app.store.db
        .selectFrom('connections')
        .select(['platform', 'status'])
        .where('workspace_id', '=', h.workspaceId)
        .execute()
      const broken = rows.filter((r) => r.status !== 'active').map((r) => r.platform as Network)
      for (const network of broken)
        await connect(network, PROFILES.find((p) => p.network === network)!.username)
      return broken
    },
    worker: (id, options) => simulatedWorker(h, clock, id, options?.skewMs ?? 0),
    within: (run) => worldScope.run(scope, run),
    async close() {
      await h.close()
      await media.close()
    },
  }
}

function simulatedSleep(clock: FakeClock): (ms: number, signal?: AbortSignal) => Promise<void> {
  return async (ms, signal) => {
    signal?.throwIfAborted()
    clock.advance(Math.min(ms, SLEEP_ADVANCE_MS))
    await new Promise((resolve) => setImmediate(resolve))
    signal?.throwIfAborted()
  }
}

/**
 * The worker of one simulated process: its own adapters (over its HTTP client, on its clock) and its own
 * view of the store, which a dead process can no longer use (it writes nothing more, and reads nothing it
 * could act on).
 */
function processWorker(
  h: Harness,
  id: string,
  process: {
    clock: Clock
    /** The database's clock, which leases run on: one for every process, whatever its own clock reads. */
    databaseClock: Clock
    sleep: ReturnType<typeof simulatedSleep>
    http: typeof fetch
    dead: () => boolean
  },
): Worker {
  const deadline: KyselyPlugin = {
    transformQuery(args) {
      if (process.dead()) throw new Killed()
      return args.node
    },
    async transformResult(args) {
      if (process.dead()) throw new Killed()
      return args.result
    },
  }
  const store: Store = { ...h.app.store, db: h.app.store.db.withPlugin(deadline) }
  delete (store as { pgPool?: unknown }).pgPool
  const { clock, databaseClock, sleep, http } = process
  const adapters = createAdapters(h.app.config, {
    logger: h.app.logger,
    clock,
    media: h.app.media,
    http,
    sleep,
  })
  return createWorker(
    {
      store,
      vault: h.app.vault,
      clock,
      logger: h.app.logger,
      queue: h.app.queue,
      metrics: h.app.metrics,
      adapters,
      leaseClock: () => databaseClock.now(),
    },
    {
      ...h.app.config.worker,
      id,
      // The simulation claims by calling tick(); the loop only follows queue wakes and finished sends.
      pollMs: 3_600_000,
      sweepMs: 15,
      graceMs: 2_000,
    },
  )
}

class Killed extends Error {
  constructor() {
    super('the worker process was killed')
  }
}

function simulatedWorker(h: Harness, clock: FakeClock, id: string, skewMs: number): SimWorker {
  // The simulation moves one clock; a machine whose clock is off reads it shifted.
  const own: Clock = skewMs === 0 ? clock : { now: () => clock.now() + skewMs }
  let dead = false
  let stopped = false
  let calls = 0
  let killAt: { at: number; after: boolean } | undefined
  let killAfterPublishing: { published: () => number; at: number } | undefined
  let pauseAt: number | undefined
  let paused: (() => void) | undefined
  let resumed: Promise<void> | undefined
  let resume: (() => void) | undefined
  const die = () => {
    dead = true
  }

  const http: typeof fetch = async (input, init) => {
    if (dead) throw new Killed()
    const n = ++calls
    if (pauseAt === n) {
      pauseAt = undefined
      resumed = new Promise((resolve) => {
        resume = resolve
      })
      paused?.()
      await resumed
      if (dead) throw new Killed()
      // The pause stands for a stall just before this call (SIGSTOP, a paused VM), so the call meets the
      // send guard after it, as a real stalled worker would; the adapter's guard ran before the pause.
      checkSendGuard()
    }
    if (killAt?.at === n && !killAt.after) {
      die()
      throw new Killed()
    }
    const response = await fetch(input, init)
    if (killAt?.at === n && killAt.after) die()
    if (killAfterPublishing && killAfterPublishing.published() >= killAfterPublishing.at) die()
    if (dead) throw new Killed()
    return response
  }

  const worker = processWorker(h, id, {
    clock: own,
    databaseClock: clock,
    sleep: simulatedSleep(clock),
    http,
    dead: () => dead,
  })
  worker.start()
  return {
    id,
    worker,
    get dead() {
      return dead
    },
    get stopped() {
      return stopped
    },
    get calls() {
      return calls
    },
    armKill(at, after) {
      killAt = { at, after }
    },
    armPause(at) {
      pauseAt = at
      return new Promise((resolve) => {
        paused = resolve
      })
    },
    resume() {
      resume?.()
      resume = undefined
    },
    armKillAfterPublishing(published, nth) {
      killAfterPublishing = { published, at: published() + nth }
    },
    disarm() {
      killAt = undefined
      killAfterPublishing = undefined
      pauseAt = undefined
    },
    kill: die,
    async stop() {
      stopped = true
      this.resume()
      await worker.stop().catch(() => undefined)
    },
  }
}
