import { afterAll, beforeAll, expect } from 'vitest'
import type { NetworkAdapter } from '../../src/adapters/adapter.js'
import { createAppWorker } from '../../src/main.js'
import { sendTarget } from '../../src/modules/delivery/send.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import type { Fault, FaultInjector, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'
import type { Backend } from './backends.js'
import { type Harness, startHarness } from './harness.js'

/**
 * What the thread and first-comment suites stand on: a sandbox-mode Herald with every
 * simulator mounted, a scripted fault injector the test programs call by call, a server handing out a
 * JPEG, and a worker the test drives pass by pass (`drain`), so a crash can be staged between passes.
 */
export interface ChainRig {
  readonly h: Harness
  readonly imageUrl: string
  /** A short vertical MP4 (what YouTube Shorts takes). */
  readonly videoUrl: string
  /** Faults for the next calls matching `match`, applied once each, in order. */
  fault(match: (call: SimulatedCall) => boolean, fault: Fault): void
  /** The next `times` list pages matching `match` (default 1) hold at most `rows` rows, with their cursor. */
  shortPages(match: (call: SimulatedCall) => boolean, rows: number, times?: number): void
  /** Runs `action` once, as the first call matching `match` arrives, before it is served: what others do meanwhile. */
  meanwhile(match: (call: SimulatedCall) => boolean, action: () => void): void
  /** Scripted faults not applied yet. */
  unapplied(): number
  /** Every effectful call the simulators served, in order. */
  readonly calls: SimulatedCall[]
  /** Runs worker passes until no target of the posts is due or held (lookups included). */
  drain(): Promise<void>
  /** One worker pass: what is due now is claimed and sent, and the pass's sends have settled. */
  pass(): Promise<void>
  post(id: string): Promise<any>
  /** A simulator's state (`/_sandbox/state` or the route given). */
  state(prefix: string, path?: string): Promise<any>
  /** Claims the post's target as `workerId` would and sends it through `adapter` (no settle: a crash). */
  sendAsCrashingWorker(postId: string, adapter: NetworkAdapter, workerId: string): Promise<unknown>
  /** The worker that held the post's target died: its lease runs out. */
  leaseRunsOut(postId: string): Promise<void>
}

export function useChainRig(backend?: Backend, options: { env?: Record<string, string> } = {}): ChainRig {
  let h: Harness
  let images: TestServer
  let worker: Worker
  const scripted: Array<{ match: (call: SimulatedCall) => boolean; fault: Fault }> = []
  const calls: SimulatedCall[] = []
  const hooks: Array<{ match: (call: SimulatedCall) => boolean; action: () => void }> = []
  const pages: Array<{ match: (call: SimulatedCall) => boolean; rows: number; left: number }> = []
  const faults: FaultInjector = {
    shortPage(call) {
      const page = pages.find((entry) => entry.left > 0 && entry.match(call))
      if (!page) return undefined
      page.left--
      return page.rows
    },
    decide(call) {
      if (call.effectful) calls.push(call)
      const hook = hooks.findIndex((entry) => entry.match(call))
      if (hook >= 0) hooks.splice(hook, 1)[0]!.action()
      const i = scripted.findIndex((s) => s.match(call))
      if (i < 0) return undefined
      const [entry] = scripted.splice(i, 1)
      return entry?.fault
    },
  }
  beforeAll(async () => {
    const photo = await solidImage(1080, 1080, 'jpeg')
    const clip = mp4File({ width: 1080, height: 1920, durationMs: 9000, mdatBytes: 48 * 1024 })
    images = await startServer((req, res) => {
      const file =
        req.url === '/short.mp4' ? { type: 'video/mp4', bytes: clip } : { type: 'image/jpeg', bytes: photo }
      res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.bytes.length) })
      res.end(file.bytes)
    })
    h = await startHarness({
      ...(backend ? { backend } : {}),
      sandbox: true,
      credits: 5_000,
      faults,
      env: {
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
        HERALD_IMMEDIATE_WAIT_MS: '0',
        HERALD_UNKNOWN_OUTCOME_CHECK_MS: '1',
        ...options.env,
      },
    })
    worker = createAppWorker(h.app, { id: 'chain-worker' })
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await images?.close()
  })

  const claimAs = async (postId: string, workerId: string) => {
    await h.app.store.db
      .updateTable('targets')
      .set({
        lease_owner: workerId,
        lease_expires_at: Date.now() + 60_000,
        attempts: 1,
        stuck_at: null,
        attempt_started_at: Date.now(),
      })
      .where('post_id', '=', postId)
      .execute()
    // As the worker's claim does: the post is being sent.
    await h.app.store.db.updateTable('posts').set({ status: 'processing' }).where('id', '=', postId).execute()
    return h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
  }

  return {
    get h() {
      return h
    },
    get imageUrl() {
      return `${images.url}/photo.jpg`
    },
    get videoUrl() {
      return `${images.url}/short.mp4`
    },
    calls,
    unapplied: () => scripted.length,
    fault: (match, fault) => scripted.push({ match, fault }),
    meanwhile: (match, action) => hooks.push({ match, action }),
    async pass() {
      await worker.tick()
      await worker.idle()
    },
    shortPages: (match, rows, times = 1) => pages.push({ match, rows, left: times }),
    async drain() {
      // Until no target is due now or soon (a lookup or a retry queued a moment ahead) and none is held.
      for (let pass = 0; pass < 400; pass++) {
        const claimed = await worker.tick()
        await worker.idle()
        // The worker also claims on its own timer after a send: a target it holds is not settled yet.
        const now = Date.now()
        const open = await h.app.store.db
          .selectFrom('targets')
          .select('id')
          .where('status', '=', 'pending')
          .where((eb) =>
            eb.or([
              eb.and([eb('lease_owner', 'is', null), eb('run_at', '<=', now + 10_000)]),
              eb.and([eb('lease_owner', 'is not', null), eb('lease_expires_at', '>', now)]),
            ]),
          )
          .execute()
        if (claimed === 0 && open.length === 0) return
        if (claimed === 0) await new Promise((resolve) => setTimeout(resolve, 25))
      }
      throw new Error('the worker did not settle the posts')
    },
    async post(id) {
      const { status, body } = await h.call('get_post', { id })
      expect(status, JSON.stringify(body)).toBe(200)
      return body
    },
    async state(prefix, path = '/_sandbox/state') {
      return (await fetch(`${h.baseUrl}${prefix}${path}`)).json()
    },
    async sendAsCrashingWorker(postId, adapter, workerId) {
      const target = await claimAs(postId, workerId)
      return sendTarget(
        {
          db: h.app.store.db,
          vault: h.app.vault,
          now: () => Date.now(),
          logger: h.app.logger,
          adapters: { [target.platform]: adapter },
        },
        target,
        new AbortController().signal,
      )
    },
    async leaseRunsOut(postId) {
      await h.app.store.db
        .updateTable('targets')
        .set({ lease_expires_at: Date.now() - 1 })
        .where('post_id', '=', postId)
        .execute()
    },
  }
}

/** `real`, except the process dies just before the item at `index` is sent: nothing after it runs. */
export function diesBeforeItem(real: NetworkAdapter, index: number): NetworkAdapter {
  return {
    ...real,
    publishItem: async (request) => {
      if (request.index === index) throw new Error('SIGKILL')
      return real.publishItem!(request)
    },
  }
}
