import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Fault, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { backends } from '../helpers/backends.js'
import { useChainRig } from '../helpers/chain-rig.js'

/**
 * Faults after the effect on every publishing call of Mastodon: the status call of a post and of each item
 * of its thread (each a status replying to the one before) answered 500, answered too late, or cut, after
 * the instance made the status. Each ends with one copy of every status (the repeat with the same
 * Idempotency-Key answers the first; where the instance keeps no keys, the lookup of the account's
 * statuses finds it) or a stuck target, never two. Counted in the simulator's own state.
 */

const KINDS: Array<[string, Fault]> = [
  ['answered 500', { timing: 'after', answer: { kind: 'status', status: 500 } }],
  ['answered too late', { timing: 'after', answer: { kind: 'hang' } }],
  ['cut', { timing: 'after', answer: { kind: 'reset' } }],
]
/** Mastodon, which remembers keys, and a compatible server that ignores them (lookups alone decide). */
const INSTANCES = [
  { host: 'keys.example', keys: true },
  { host: 'nokeys.example', keys: false },
]

describe.each(backends)('Mastodon status calls that fail after their effect ($name)', (backend) => {
  const rig = useChainRig(backend, { env: { HERALD_MASTODON_TIMEOUT_MS: '1200' } })
  const profiles = new Map<string, string>()
  const M = '/sandbox/mastodon'

  beforeAll(async () => {
    for (const { host, keys } of INSTANCES) {
      if (!keys)
        await fetch(`${rig.h.baseUrl}${M}/_sandbox/instances`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ host, version: '2.7.2 (compatible; Pleroma 2.6.0)', idempotencyMs: 0 }),
        })
      const connected = await sandboxConnect(rig.h.app, {
        workspaceId: rig.h.workspaceId,
        network: 'mastodon',
        username: `faults@${host}`,
      })
      profiles.set(host, connected.profileId)
    }
  }, 60_000)

  const statuses = async (host: string, tag: string) => {
    const state = (await rig.state(M)) as {
      instances: Array<{
        host: string
        statuses: Array<{ id: string; text: string; inReplyToId: string | null }>
      }>
      violations: string[]
    }
    expect(state.violations).toEqual([])
    return state.instances.find((i) => i.host === host)!.statuses.filter((s) => s.text.includes(tag))
  }
  /** The `index`-th status call (0: the post) carrying `tag`. */
  const nthStatus = (tag: string, index: number) => {
    let seen = 0
    return (call: SimulatedCall) =>
      call.network === 'mastodon' &&
      call.operation === 'statuses' &&
      JSON.stringify(call.body ?? '').includes(tag) &&
      seen++ === index
  }

  const cases = INSTANCES.flatMap((instance) =>
    KINDS.flatMap(([kind, fault]) => [0, 1, 2].map((index) => ({ instance, kind, fault, index }))),
  )

  it.each(
    cases.map((c) => [c.index === 0 ? 'the post' : `thread item ${c.index}`, c.kind, c.instance.host, c]),
  )(
    '%s %s on %s ends with one copy of each status',
    async (_what, _kind, _host, c) => {
      const tag = `[${c.instance.host} ${c.kind} ${c.index} ${backend.name}]`
      rig.fault(nthStatus(tag, c.index), c.fault)
      const { status, body } = await rig.h.call('create_post', {
        content: `${tag} 1/ the post`,
        targetAccounts: [{ platform: 'mastodon', profileId: profiles.get(c.instance.host) }],
        thread: [
          { content: `${tag} 2/ the second`, mediaUrls: [rig.imageUrl] },
          { content: `${tag} 3/ the third` },
        ],
        mastodon: { visibility: 'unlisted', contentWarning: 'a test' },
        publishImmediately: true,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      await rig.drain()
      expect(rig.unapplied()).toBe(0)
      const held = await statuses(c.instance.host, tag)
      for (const part of ['1/', '2/', '3/']) expect(held.filter((s) => s.text.includes(part))).toHaveLength(1)
      // Where the instance keeps keys the lost call is repeated with its key at once; where it does not,
      // nothing is sent again (the account's statuses showed the one made).
      const part = ['1/', '2/', '3/'][c.index]!
      const sends = rig.calls.filter(
        (call) => call.operation === 'statuses' && JSON.stringify(call.body ?? '').includes(`${tag} ${part}`),
      )
      expect(sends).toHaveLength(c.instance.keys ? 2 : 1)
      const post = await rig.post(body.postIds[0])
      const [target] = post.targets
      expect(['published', 'failed']).toContain(target.status)
      if (target.status === 'published') {
        // Each item replies to the one before it.
        const byText = (part: string) => held.find((s) => s.text.includes(part))!
        expect(byText('2/').inReplyToId).toBe(byText('1/').id)
        expect(byText('3/').inReplyToId).toBe(byText('2/').id)
      } else expect(target.error).toMatch(/cannot tell|may or may not/)
    },
    60_000,
  )
})
