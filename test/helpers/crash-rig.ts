import { afterAll, beforeAll, expect } from 'vitest'
import type { NetworkAdapter } from '../../src/adapters/adapter.js'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import type { FaultInjector } from '../../src/sandbox/fault-injector.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'
import type { Backend } from './backends.js'
import { type Harness, startHarness } from './harness.js'

/**
 * What a crash test of a container network (Instagram, Threads) stands on, set up before the suite and
 * stopped after it: a sandbox-mode harness with a profile connected by `connect`, a server handing out a
 * JPEG, and the worker's plumbing (a target claimed by hand as a worker's claim does, the send path's
 * dependencies, the simulator's state).
 */
type ClaimedTarget = Awaited<ReturnType<typeof claimTarget>>

export interface CrashRig {
  readonly h: Harness
  /** The simulator's base URL. */
  sandbox(): string
  state(): Promise<Record<string, any[]>>
  /** A scheduled post with one image whose target is claimed by `workerId`. */
  claimedTarget(content: string, workerId: string): ReturnType<CrashRig['claim']>
  claim(postId: string, workerId: string): Promise<ClaimedTarget>
  deps(adapter: NetworkAdapter): ReturnType<typeof sendDeps>
  /** The target's row as it is now. */
  row(targetId: string): Promise<ClaimedTarget>
  /** The simulator performs its next `op` and drops the answer (the call's effect happens, its reply is lost). */
  dropAnswer(op: string): Promise<void>
  /** Records that the target's attempt started at `since`; the claimed target as it now is. */
  attemptStartedAt(target: ClaimedTarget, since: number): Promise<ClaimedTarget>
  /** Records that the target's outcome became unknown at `since` (what a queued lookup carries). */
  outcomeUnknownSince(targetId: string, since: number): Promise<void>
}

/**
 * `real`, except the process "dies" the moment the container id is on the target: nothing after it runs.
 */
export function diesOnceContainerSaved(real: NetworkAdapter): NetworkAdapter {
  return {
    ...real,
    publish: (request) =>
      real.publish({
        ...request,
        saveProgress: async (entries) => {
          await request.saveProgress!(entries)
          if (entries.container) throw new Error('SIGKILL')
        },
      }),
  }
}

export function useCrashRig(
  backend: Backend,
  network: 'instagram' | 'threads',
  connect: (h: Harness) => Promise<unknown>,
  options: { faults?: FaultInjector } = {},
): CrashRig {
  let h: Harness
  let images: TestServer
  beforeAll(async () => {
    const photo = await solidImage(1080, 1080, 'jpeg')
    images = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      res.end(photo)
    })
    h = await startHarness({
      backend,
      sandbox: true,
      credits: 500,
      ...(options.faults ? { faults: options.faults } : {}),
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
    })
    await connect(h)
  }, 60_000)
  afterAll(async () => {
    await h?.close()
    await images?.close()
  })
  const sandbox = () => `${h.baseUrl}${sandboxPrefixes[network]}`
  return {
    get h() {
      return h
    },
    sandbox,
    state: async () => (await (await fetch(`${sandbox()}/_sandbox/state`)).json()) as Record<string, any[]>,
    async claimedTarget(content, workerId) {
      const { status, body } = await h.call('create_post', {
        content,
        platforms: [network],
        mediaUrl: `${images.url}/bread.jpg`,
        publishImmediately: false,
        scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
        scheduleTime: '12:00',
      })
      expect(status, JSON.stringify(body)).toBe(200)
      return claimTarget(h, body.posts[0].id as string, workerId)
    },
    claim: (postId, workerId) => claimTarget(h, postId, workerId),
    deps: (adapter) => sendDeps(h, network, adapter),
    row: (targetId) =>
      h.app.store.db.selectFrom('targets').selectAll().where('id', '=', targetId).executeTakeFirstOrThrow(),
    async dropAnswer(op) {
      const response = await fetch(`${sandbox()}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ op, action: 'drop_after' }),
      })
      expect(response.ok).toBe(true)
    },
    async attemptStartedAt(target, since) {
      await h.app.store.db
        .updateTable('targets')
        .set({ attempt_started_at: since })
        .where('id', '=', target.id)
        .execute()
      return { ...target, attempt_started_at: since }
    },
    async outcomeUnknownSince(targetId, since) {
      await h.app.store.db
        .updateTable('targets')
        .set({ unknown_outcome_at: since })
        .where('id', '=', targetId)
        .execute()
    },
  }
}

async function claimTarget(h: Harness, postId: string, workerId: string) {
  await h.app.store.db
    .updateTable('targets')
    .set({ lease_owner: workerId, lease_expires_at: Date.now() + 60_000, attempts: 1, stuck_at: null })
    .where('post_id', '=', postId)
    .execute()
  return h.app.store.db
    .selectFrom('targets')
    .selectAll()
    .where('post_id', '=', postId)
    .executeTakeFirstOrThrow()
}

const sendDeps = (h: Harness, network: string, adapter: NetworkAdapter) => ({
  db: h.app.store.db,
  vault: h.app.vault,
  now: () => Date.now(),
  logger: h.app.logger,
  adapters: { [network]: adapter },
})
