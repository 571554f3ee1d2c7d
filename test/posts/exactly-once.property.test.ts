import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import {
  type NetworkAdapter,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../../src/networks/adapter.js'
import { lookupAnswer } from '../../src/networks/lookup-scan.js'
import { claimDueTargets, markStuck } from '../../src/worker/leases.js'
import type { Worker } from '../../src/worker/worker.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import { startPostHarness } from './post-harness.js'

/**
 * Random interleavings of the tools that change posts with worker claims and sends, on both backends.
 * A send may succeed, be refused, fail before anything left, answer 5xx after the post was made, go
 * silent before or after, or its worker may die (before or after the post reached the network, its lease
 * then running out). The network is a record of every post it received; it can be asked, as X can, for
 * a post an unanswered attempt made. After each run the queue is drained and these must hold:
 * - every target reaches the network at most once, and each profile of a post is published at most once;
 * - no target is lost: every post created and not deleted is still there with all its targets;
 * - the ledger sums to the balance, and every charge belongs to a post that a successful call made.
 */

type SendMode = 'ok' | 'refused' | 'before' | 'after5xx' | 'silentBefore' | 'silentAfter'

/** The network: what it received, per target, and how the next sends will go. */
class FakeNetwork {
  received = new Map<string, PublishResult[]>()
  modes: SendMode[] = []
  calls = 0

  adapter(network: 'twitter' | 'linkedin'): NetworkAdapter {
    return {
      network,
      capabilities: { concurrency: 8 },
      refresh: async (credentials) => credentials,
      resolveProfile: async () => ({ profileId: 'p', username: 'u', name: 'U', isOrganization: false }),
      publish: (request) => this.publish(network, request),
      findPublished: async (request) => lookupAnswer(this.received.get(request.targetId)?.[0] ?? null),
      postMetrics: async () => {
        throw new PublishFailure('invalid_content', 'not used')
      },
      profileMetrics: async () => {
        throw new PublishFailure('invalid_content', 'not used')
      },
    }
  }

  receive(network: string, targetId: string): PublishResult {
    this.calls += 1
    const result = { remoteId: `${network}-${this.calls}`, url: `https://${network}.example/${this.calls}` }
    this.received.set(targetId, [...(this.received.get(targetId) ?? []), result])
    return result
  }

  async publish(network: string, request: PublishRequest): Promise<PublishResult> {
    if (request.signal.aborted) throw new PublishFailure('transient', 'cancelled before sending')
    const mode = this.modes.shift() ?? 'ok'
    switch (mode) {
      case 'ok':
        return this.receive(network, request.targetId)
      case 'refused':
        throw new PublishFailure('invalid_content', 'refused by the network')
      case 'before':
        throw new PublishFailure('transient', 'connection refused')
      case 'after5xx':
        this.receive(network, request.targetId)
        throw new PublishFailure('unknown_outcome', 'answered 503 after the post was sent')
      case 'silentBefore':
        throw new PublishFailure('unknown_outcome', 'timed out after sending')
      case 'silentAfter':
        this.receive(network, request.targetId)
        throw new PublishFailure('unknown_outcome', 'timed out after sending')
    }
  }
}

type Action =
  | { kind: 'create'; linkedin: boolean }
  | { kind: 'update'; post: number }
  | { kind: 'addProfile'; post: number }
  | { kind: 'reschedule'; post: number }
  | { kind: 'publishNow'; post: number }
  | { kind: 'delete'; post: number }
  | { kind: 'reset'; post: number }
  | { kind: 'work'; modes: SendMode[] }
  | { kind: 'crash'; reached: boolean }

const sendMode = fc.constantFrom<SendMode>(
  'ok',
  'ok',
  'refused',
  'before',
  'after5xx',
  'silentBefore',
  'silentAfter',
)
const postIndex = fc.nat({ max: 5 })
const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), linkedin: fc.boolean() }),
  fc.record({ kind: fc.constant('update' as const), post: postIndex }),
  fc.record({ kind: fc.constant('addProfile' as const), post: postIndex }),
  fc.record({ kind: fc.constant('reschedule' as const), post: postIndex }),
  fc.record({ kind: fc.constant('publishNow' as const), post: postIndex }),
  fc.record({ kind: fc.constant('delete' as const), post: postIndex }),
  fc.record({ kind: fc.constant('reset' as const), post: postIndex }),
  fc.record({ kind: fc.constant('work' as const), modes: fc.array(sendMode, { maxLength: 4 }) }),
  fc.record({ kind: fc.constant('crash' as const), reached: fc.boolean() }),
)
/** Steps of 1 to 3 actions run at once, so tools race each other and the worker. */
const scenario = fc.array(fc.array(action, { minLength: 1, maxLength: 3 }), { minLength: 3, maxLength: 10 })

const RUNS = Number(process.env.HERALD_PROPERTY_RUNS ?? 25)

describe.each(backends)('exactly once under random interleavings on $name', (backend) => {
  let h: Harness
  let network: FakeNetwork
  let worker: Worker
  let interleavings = 0

  beforeAll(async () => {
    network = new FakeNetwork()
    h = await startPostHarness(backend, {
      adapters: { twitter: network.adapter('twitter'), linkedin: network.adapter('linkedin') },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_UNKNOWN_OUTCOME_CHECK_MS: '1' },
      credits: 1_000_000,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    worker = createAppWorker(h.app, { id: 'property-worker' })
  })
  afterAll(async () => {
    process.stderr.write(`exactly-once property on ${backend.name}: ${interleavings} interleavings\n`)
    await h.close()
  })

  const work = async () => {
    await worker.tick()
    await worker.idle()
  }

  it('never sends twice, never loses a target, never charges without the work', async () => {
    const startBalance = async () =>
      Number(
        (
          await h.app.store.db
            .selectFrom('workspaces')
            .select('credit_balance')
            .where('id', '=', h.workspaceId)
            .executeTakeFirstOrThrow()
        ).credit_balance,
      )

    await fc.assert(
      fc.asyncProperty(scenario, async (steps) => {
        interleavings += 1
        const posts: string[] = []
        const deleted = new Set<string>()
        const pick = (i: number) => posts[i % Math.max(1, posts.length)]

        const run = async (a: Action) => {
          switch (a.kind) {
            case 'create': {
              const res = await h.call('create_post', {
                content: `p${interleavings}-${posts.length}-${Math.random().toString(36).slice(2, 8)}`,
                targetAccounts: [
                  { platform: 'twitter', profileId: 'tw-1' },
                  ...(a.linkedin ? [{ platform: 'linkedin', profileId: 'li-1' }] : []),
                ],
                publishImmediately: true,
              })
              expect(res.status, JSON.stringify(res.body)).toBe(200)
              posts.push(...(res.body.postIds as string[]))
              return
            }
            case 'work':
              network.modes.push(...a.modes)
              return work()
            case 'crash': {
              // A worker claims and dies: maybe after its post reached the network, then its lease runs out.
              const claimed = await claimDueTargets(h.app.store, {
                workerId: `dead-${Math.random()}`,
                now: Date.now(),
                leaseMs: 60_000,
                limit: 2,
                platforms: ['twitter', 'linkedin'],
              })
              // A real worker asks first when an earlier attempt's outcome is unknown; it dies after that.
              for (const target of claimed) {
                const lookedUp = target.unknown_outcome_at !== null && network.received.has(target.id)
                if (a.reached && !lookedUp) network.receive(target.platform, target.id)
              }
              if (claimed.length > 0) {
                await h.app.store.db
                  .updateTable('targets')
                  .set({ lease_expires_at: Date.now() - 1 })
                  .where(
                    'id',
                    'in',
                    claimed.map((t) => t.id),
                  )
                  .execute()
                await markStuck(h.app.store, Date.now(), 'worker died')
              }
              return
            }
          }
          const id = pick(a.post)
          if (!id) return
          const tool = {
            update: () => h.call('update_post', { id, content: `edited ${Math.random()}` }),
            addProfile: () =>
              h.call('update_post', {
                id,
                targetAccounts: [
                  { platform: 'twitter', profileId: 'tw-1' },
                  { platform: 'linkedin', profileId: 'li-1' },
                ],
              }),
            reschedule: () =>
              h.call('reschedule_post', {
                id,
                scheduleDate: '2031-01-01',
                scheduleTime: '10:00',
                timezone: 'UTC',
              }),
            publishNow: () => h.call('publish_post_now', { id }),
            delete: () => h.call('delete_post', { id }),
            reset: () => h.call('reset_stuck_post', { id }),
          }[a.kind]
          const res = await tool()
          // Every answer is a result or a clear refusal; never a server error.
          expect([200, 400, 404, 409], JSON.stringify(res.body)).toContain(res.status)
          if (a.kind === 'delete' && res.status === 200) deleted.add(id)
        }

        for (const step of steps) await Promise.all(step.map(run))

        // Drain: stuck posts are reset and re-sent; every send now succeeds.
        for (let round = 0; round < 8; round++) {
          for (const id of posts) {
            if (deleted.has(id)) continue
            const reset = await h.call('reset_stuck_post', { id })
            if (reset.status === 200) await h.call('publish_post_now', { id })
          }
          await new Promise((resolve) => setTimeout(resolve, 5))
          await work()
        }

        const targets = await h.app.store.db
          .selectFrom('targets')
          .selectAll()
          .where('post_id', 'in', posts.length ? posts : ['none'])
          .execute()
        // At most once per target, and per profile of a post.
        for (const target of targets)
          expect(network.received.get(target.id)?.length ?? 0).toBeLessThanOrEqual(1)
        const perProfile = new Map<string, number>()
        for (const target of targets) {
          const key = `${target.post_id}|${target.connection_id}`
          perProfile.set(key, (perProfile.get(key) ?? 0) + 1)
        }
        for (const n of perProfile.values()) expect(n).toBe(1)
        // No target lost: every post not deleted is there, with at least one target, and none is left leased.
        const rows = await h.app.store.db
          .selectFrom('posts')
          .select('id')
          .where('id', 'in', posts.length ? posts : ['none'])
          .execute()
        const present = new Set(rows.map((r) => r.id))
        for (const id of posts) expect(present.has(id)).toBe(!deleted.has(id))
        for (const id of present) expect(targets.some((t) => t.post_id === id)).toBe(true)
        for (const target of targets) expect(target.lease_owner).toBeNull()
        // A published target is one the network has.
        for (const target of targets.filter((t) => t.status === 'published'))
          expect(network.received.get(target.id)?.length).toBe(1)
      }),
      { numRuns: RUNS },
    )

    // The ledger sums to the balance, and every charge names a post a successful call made.
    const ledger = await h.app.store.db
      .selectFrom('credit_ledger')
      .select(['delta', 'reference'])
      .where('workspace_id', '=', h.workspaceId)
      .execute()
    const sum = ledger.reduce((acc, row) => acc + Number(row.delta), 0)
    expect(await startBalance()).toBe(sum)
    expect(interleavings).toBeGreaterThanOrEqual(RUNS)
  }, 600_000)
})
