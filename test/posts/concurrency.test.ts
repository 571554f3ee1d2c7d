import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import { type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'
import { balanceOf, startPostHarness } from './post-harness.js'

const T0 = Date.UTC(2031, 5, 1, 8, 0, 0)
const HOUR = 3_600_000

/**
 * Requests that race each other and the worker. Each case failed before the tools moved their decisions
 * into the transaction that writes (they read, decided, then opened a transaction of their own).
 */
describe.each(backends)('concurrent changes to one post on $name', (backend) => {
  let h: Harness
  let clock: FakeClock
  let twitter: ScriptedAdapter
  let linkedin: ScriptedAdapter
  let worker: Worker

  beforeAll(async () => {
    clock = new FakeClock(T0)
    twitter = scriptedAdapter('twitter')
    linkedin = scriptedAdapter('linkedin')
    h = await startPostHarness(backend, {
      clock,
      adapters: { twitter, linkedin },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    worker = createAppWorker(h.app, { id: 'race-worker' })
  })
  afterAll(() => h.close())
  beforeEach(() => {
    twitter.calls.length = 0
    linkedin.calls.length = 0
  })

  const scheduled = async (at = clock.now() + HOUR) => {
    const when = new Date(at)
    const res = await h.call('create_post', {
      content: `race ${Math.random()}`,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: when.toISOString().slice(0, 10),
      scheduleTime: when.toISOString().slice(11, 16),
      timezone: 'UTC',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.postIds[0] as string
  }
  const charges = (reference: string) =>
    h.app.store.db
      .selectFrom('credit_ledger')
      .select(['delta', 'reason'])
      .where('reference', '=', reference)
      .where('delta', '<', 0)
      .execute()
  const targets = (postId: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).execute()

  it('20 update_post calls adding the same profile make one target and one charge', async () => {
    const id = await scheduled()
    const before = await balanceOf(h)
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.call('update_post', {
          id,
          targetAccounts: [
            { platform: 'twitter', profileId: 'tw-1' },
            { platform: 'linkedin', profileId: 'li-1' },
          ],
        }),
      ),
    )
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const rows = await targets(id)
    expect(rows.filter((t) => t.platform === 'linkedin')).toHaveLength(1)
    expect(rows).toHaveLength(2)
    const added = (await charges(id)).filter((c) => c.reason === 'update_post_targets')
    expect(added).toEqual([{ delta: -1, reason: 'update_post_targets' }])
    expect(await balanceOf(h)).toBe(before - 1)
  })

  it('2 publish_post_now calls on a failed post charge once and send once', async () => {
    const id = await scheduled()
    await h.app.store.db
      .updateTable('targets')
      .set({ status: 'failed', run_at: null })
      .where('post_id', '=', id)
      .execute()
    await h.app.store.db.updateTable('posts').set({ status: 'failed' }).where('id', '=', id).execute()
    const before = await balanceOf(h)
    const answers = await Promise.all([
      h.call('publish_post_now', { id }),
      h.call('publish_post_now', { id }),
    ])
    for (const answer of answers) expect([200, 409]).toContain(answer.status)
    const charged = answers.reduce((sum, a) => sum + (a.status === 200 ? a.body.credits.charged : 0), 0)
    expect(charged).toBe(5)
    expect((await charges(id)).filter((c) => c.reason === 'publish_post_now')).toHaveLength(1)
    expect(await balanceOf(h)).toBe(before - 5)
    await worker.tick()
    await worker.idle()
    await worker.tick()
    await worker.idle()
    expect(twitter.calls.filter((c) => c.content.startsWith('race'))).toHaveLength(1)
  })

  it('delete_post racing a claim either deletes before the claim or is refused; a claimed target is never removed', async () => {
    const ids: string[] = []
    for (let i = 0; i < 12; i++) ids.push(await scheduled(clock.now() + HOUR + i * 60_000))
    const targetOf = new Map<string, string>()
    for (const id of ids) targetOf.set(id, (await targets(id))[0]?.id as string)
    clock.advance(2 * HOUR)
    const [claimed, ...deletes] = await Promise.all([
      worker.tick(),
      ...ids.map((id) => h.call('delete_post', { id })),
    ])
    await worker.idle()
    const sent = [...twitter.calls, ...linkedin.calls].map((c) => c.targetId)
    expect(sent).toHaveLength(claimed)
    const deleted = ids.filter((_, i) => deletes[i]?.status === 200)
    const refused = ids.filter((_, i) => deletes[i]?.status === 409)
    expect(deleted.length + refused.length).toBe(ids.length)
    for (const id of deleted) {
      expect(await targets(id)).toEqual([])
      expect(sent).not.toContain(targetOf.get(id))
    }
    // Every refused delete is a post the worker claimed; each was sent once and recorded.
    for (const id of refused) {
      const rows = await targets(id)
      expect(rows).toHaveLength(1)
      expect(rows[0]?.status).toBe('published')
      expect(sent.filter((t) => t === targetOf.get(id))).toHaveLength(1)
    }
  })
})
