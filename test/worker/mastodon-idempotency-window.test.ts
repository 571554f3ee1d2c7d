import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IDEMPOTENCY_WINDOW_MS } from '../../src/adapters/mastodon/index.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { sendTarget } from '../../src/modules/delivery/send.js'
import { FakeClock } from '../../src/platform/clock.js'
import type { Fault, FaultInjector, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * Mastodon is the network with a real idempotency key: every status call of a target carries the same
 * `Idempotency-Key`, which the instance remembers for an hour. A status call answered late after it took
 * effect is sent again with its key while the first call is inside the window, and the instance answers
 * with the first status; outside the window nothing is sent again until the account's statuses since the
 * attempt say what happened (found, or stuck when they cannot tell). Copies are counted on the simulator.
 */

const INSTANCE = 'window.example'
const HANG: Fault = { timing: 'after', answer: { kind: 'hang' } }
const AFTER_500: Fault = { timing: 'after', answer: { kind: 'status', status: 500 } }
const BEFORE_503: Fault = { timing: 'before', answer: { kind: 'status', status: 503 } }

/** Faults for the next status calls, in order; `meanwhile` runs as a status call arrives. */
function statusFaults(): FaultInjector & {
  next: Array<{ fault: Fault; meanwhile?: () => void }>
  lagMs: number
} {
  const injector = {
    next: [] as Array<{ fault: Fault; meanwhile?: () => void }>,
    lagMs: 0,
    decide(call: SimulatedCall) {
      if (call.network !== 'mastodon' || call.operation !== 'statuses') return undefined
      const step = injector.next.shift()
      step?.meanwhile?.()
      return step?.fault
    },
    listingLagMs: () => injector.lagMs,
  }
  return injector
}

describe.each(backends)(
  'a Mastodon status answered late, inside and outside the window ($name)',
  (backend) => {
    const clock = new FakeClock(Date.UTC(2026, 7, 3, 9))
    const faults = statusFaults()
    let h: Harness
    let connectionId = ''

    beforeAll(async () => {
      h = await startHarness({
        backend,
        sandbox: true,
        clock,
        faults,
        credits: 500,
        env: { HERALD_MASTODON_TIMEOUT_MS: '1500', HERALD_IMMEDIATE_WAIT_MS: '0' },
      })
      connectionId = (
        await sandboxConnect(h.app, {
          workspaceId: h.workspaceId,
          network: 'mastodon',
          username: `win@${INSTANCE}`,
        })
      ).connectionId
    }, 60_000)
    afterAll(async () => {
      await h?.close()
    })

    /** What the simulated instance holds, read from its own state over HTTP. */
    const held = async (text: string) => {
      const state = (await (await fetch(`${h.baseUrl}/sandbox/mastodon/_sandbox/state`)).json()) as {
        instances: Array<{ host: string; statuses: Array<{ id: string; text: string }> }>
        violations: string[]
      }
      expect(state.violations).toEqual([])
      return state.instances.find((i) => i.host === INSTANCE)!.statuses.filter((s) => s.text === text)
    }

    const scheduled = async (content: string) => {
      const { status, body } = await h.call('create_post', {
        content,
        targetAccounts: [{ platform: 'mastodon', profileId: (await row()).profile_id }],
        scheduleDate: new Date(clock.now() + 2 * 86_400_000).toISOString().slice(0, 10),
        scheduleTime: '12:00',
      })
      expect(status, JSON.stringify(body)).toBe(200)
      return body.postIds[0] as string
    }
    const row = () =>
      h.app.store.db
        .selectFrom('connections')
        .selectAll()
        .where('id', '=', connectionId)
        .executeTakeFirstOrThrow()
    /** Claims the post's target as a worker's claim does, its attempt starting now. */
    const claim = async (postId: string, extra: { unknown?: number } = {}) => {
      await h.app.store.db
        .updateTable('targets')
        .set({
          lease_owner: 'window-worker',
          lease_expires_at: clock.now() + 86_400_000,
          attempts: 1,
          ...(extra.unknown === undefined
            ? { attempt_started_at: clock.now() }
            : { unknown_outcome_at: extra.unknown }),
        })
        .where('post_id', '=', postId)
        .execute()
      return h.app.store.db
        .selectFrom('targets')
        .selectAll()
        .where('post_id', '=', postId)
        .executeTakeFirstOrThrow()
    }
    const send = (target: Awaited<ReturnType<typeof claim>>) =>
      sendTarget(
        {
          db: h.app.store.db,
          vault: h.app.vault,
          now: () => clock.now(),
          logger: h.app.logger,
          adapters: h.app.adapters,
        },
        target,
        new AbortController().signal,
      )

    it('inside the window: the late answer is repeated with its key and the instance answers the first status, one status', async () => {
      const text = `Inside the window ${backend.name}`
      faults.next.push({ fault: HANG })
      const target = await claim(await scheduled(text))
      const result = await send(target)
      const statuses = await held(text)
      expect(statuses).toHaveLength(1)
      expect(result.outcome).toMatchObject({ kind: 'published', remoteId: statuses[0]!.id })
    }, 30_000)

    it('inside the window: a lookup that cannot see the status yet says absent, and the send with the same key answers the first status, one status', async () => {
      const text = `Inside the window, listed late ${backend.name}`
      faults.next.push({ fault: AFTER_500 }, { fault: BEFORE_503 }, { fault: BEFORE_503 })
      const first = await claim(await scheduled(text))
      const lost = await send(first)
      expect(lost.outcome.kind).toBe('check')
      expect(await held(text)).toHaveLength(1)
      // The account's statuses do not show it yet (a replica behind the write): the lookup answers absent.
      faults.lagMs = 10 * 60_000
      clock.advance(60_000)
      try {
        const looked = await send(await claim(first.post_id, { unknown: first.attempt_started_at! }))
        const statuses = await held(text)
        expect(statuses).toHaveLength(1)
        expect(looked.outcome).toMatchObject({ kind: 'published', remoteId: statuses[0]!.id })
      } finally {
        faults.lagMs = 0
      }
    }, 30_000)

    it('outside the window: nothing is sent again; the lookup finds the status among the account statuses since the attempt, one status', async () => {
      const text = `Outside the window ${backend.name}`
      // The answer comes so late that the instance has forgotten the key by the time Herald could repeat it.
      faults.next.push({ fault: HANG, meanwhile: () => clock.advance(IDEMPOTENCY_WINDOW_MS + 60_000) })
      const first = await claim(await scheduled(text))
      const lost = await send(first)
      expect(lost.outcome.kind).toBe('check')
      expect(await held(text)).toHaveLength(1)
      clock.advance(60_000)
      const looked = await send(await claim(first.post_id, { unknown: first.attempt_started_at! }))
      const statuses = await held(text)
      expect(statuses).toHaveLength(1)
      expect(looked.outcome).toMatchObject({ kind: 'published', remoteId: statuses[0]!.id })
    }, 30_000)

    it('outside the window: when the account holds two statuses that look like the attempt, the target is stuck with a reason and nothing more is sent', async () => {
      const text = `Outside the window, twice ${backend.name}`
      faults.next.push({ fault: HANG, meanwhile: () => clock.advance(IDEMPOTENCY_WINDOW_MS + 60_000) })
      const first = await claim(await scheduled(text))
      expect((await send(first)).outcome.kind).toBe('check')
      // The person posted the same copy again from Herald meanwhile (another post): two candidates.
      const instance = h.sandboxes!.mastodon.instances.get(INSTANCE)!
      const [made] = [...instance.statuses.values()].filter((s) => s.text === text)
      instance.statuses.set(`${BigInt(made!.id) + 7n}`, { ...made!, id: `${BigInt(made!.id) + 7n}` })
      clock.advance(60_000)
      const looked = await send(await claim(first.post_id, { unknown: first.attempt_started_at! }))
      expect(looked.outcome.kind).toBe('unknown')
      expect((looked.outcome as { error: string }).error).toMatch(
        /cannot tell whether the unanswered attempt went out/,
      )
      expect(await held(text)).toHaveLength(2)
    }, 30_000)
  },
)
