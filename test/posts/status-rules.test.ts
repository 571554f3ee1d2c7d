import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

/** Spec §3's table, row by row, and DESIGN.md's status rules, each a named test. */
describe.each(backends)('post states and transitions on $name', (backend) => {
  let h: Harness
  let worker: Worker
  let twitter: ScriptedAdapter
  let linkedin: ScriptedAdapter
  const clock = new FakeClock(Date.UTC(2030, 0, 1))
  const slot = { scheduleDate: '2030-02-01', scheduleTime: '09:00' }
  const slotInstant = Date.UTC(2030, 1, 1, 9)

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter')
    linkedin = scriptedAdapter('linkedin')
    h = await startHarness({
      backend,
      clock,
      adapters: { twitter, linkedin },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
      credits: 100_000,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    worker = createAppWorker(h.app, { id: 'rules-worker' })
  })
  afterAll(() => h.close())
  beforeEach(() => {
    clock.set(Date.UTC(2030, 0, 1))
    twitter.script.length = 0
    linkedin.script.length = 0
  })

  const run = async () => {
    const n = await worker.tick()
    await worker.idle()
    return n
  }
  const get = async (id: string) => (await h.call('get_post', { id })).body
  const create = async (body: Record<string, unknown> = {}) => {
    const res = await h.call('create_post', {
      content: `copy ${Math.random()}`,
      platforms: ['twitter'],
      ...slot,
      ...body,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.postIds as string[]
  }
  const fire = async () => {
    clock.set(slotInstant)
    return run()
  }

  describe('(new) → create_post', () => {
    it('queues a scheduled post per targeted profile with pending targets when publishImmediately is false', async () => {
      const ids = await create({ platforms: ['twitter', 'linkedin'] })
      expect(ids).toHaveLength(2)
      for (const id of ids) {
        const post = await get(id)
        expect(post.status).toBe('scheduled')
        expect(post.targets).toHaveLength(1)
        expect(post.targets[0].status).toBe('pending')
      }
    })

    it('broadcasts on receipt when publishImmediately is true', async () => {
      const live = createAppWorker(h.app, { id: 'live-worker' })
      live.start()
      try {
        const res = await h.call('create_post', {
          content: `now ${Math.random()}`,
          platforms: ['twitter'],
          publishImmediately: true,
        })
        await new Promise((resolve) => setTimeout(resolve, 300))
        await live.idle()
        const post = await get(res.body.postIds[0])
        expect(post.status).toBe('published')
        expect(post.targets[0]).toMatchObject({
          status: 'published',
          postId: expect.any(String),
          url: expect.any(String),
        })
      } finally {
        await live.stop()
      }
    })

    it('answers published for an immediate post that settles within the wait', async () => {
      const waiting = await startHarness({
        backend,
        adapters: { twitter },
        env: { HERALD_IMMEDIATE_WAIT_MS: '5000' },
      })
      const live = createAppWorker(waiting.app, { id: 'immediate-worker' })
      try {
        await connectProfile(waiting, 'twitter', 'tw-9', 'now')
        live.start()
        const res = await waiting.call('create_post', {
          content: 'right now',
          platforms: ['twitter'],
          publishImmediately: true,
        })
        expect(res.body.post.status).toBe('published')
        expect(res.body.posts[0].targets[0].status).toBe('published')
      } finally {
        await live.stop()
        await waiting.close()
      }
    })
  })

  describe('scheduled, draft or failed → update_post with status', () => {
    it('moves a scheduled post to draft, which pulls it out of the queue without deleting it', async () => {
      const [id] = await create()
      const res = await h.call('update_post', { id, status: 'draft' })
      expect(res.body.post.status).toBe('draft')
      await fire()
      const post = await get(id as string)
      expect(post.status).toBe('draft')
      expect(post.targets[0].status).toBe('pending')
      expect(post.attempts).toBe(0)
    })

    it('moves a draft back to scheduled, and it fires at its slot', async () => {
      const [id] = await create()
      await h.call('update_post', { id, status: 'draft' })
      expect((await h.call('update_post', { id, status: 'scheduled' })).body.post.status).toBe('scheduled')
      expect(await fire()).toBeGreaterThanOrEqual(1)
      expect((await get(id as string)).status).toBe('published')
    })

    it('moves a scheduled post to failed, out of the queue', async () => {
      const [id] = await create()
      expect((await h.call('update_post', { id, status: 'failed' })).body.post.status).toBe('failed')
      await fire()
      expect((await get(id as string)).attempts).toBe(0)
    })

    it('moves a failed post to draft', async () => {
      const [id] = await create()
      await h.call('update_post', { id, status: 'failed' })
      expect((await h.call('update_post', { id, status: 'draft' })).body.post.status).toBe('draft')
    })

    it('refuses other status values', async () => {
      const [id] = await create()
      for (const status of ['published', 'processing', 'deleted']) {
        expect((await h.call('update_post', { id, status })).status).toBe(400)
      }
    })
  })

  describe('failed or draft → reschedule_post', () => {
    it('re-arms a draft for the new slot', async () => {
      const [id] = await create()
      await h.call('update_post', { id, status: 'draft' })
      const res = await h.call('reschedule_post', { id, scheduleDate: '2030-03-01', scheduleTime: '10:00' })
      expect(res.body.post.status).toBe('scheduled')
      clock.set(Date.UTC(2030, 2, 1, 10))
      expect(await run()).toBeGreaterThanOrEqual(1)
      expect((await get(id as string)).status).toBe('published')
    })

    it('re-arms a failed post and does not send again to profiles that already received it', async () => {
      const [id] = await create()
      await h.call('update_post', {
        id,
        targetAccounts: [
          { platform: 'twitter', profileId: 'tw-1' },
          { platform: 'linkedin', profileId: 'li-1' },
        ],
      })
      twitter.script.push(fail('invalid_content', 'refused'))
      linkedin.script.push(fail('invalid_content', 'refused too'))
      await fire()
      expect((await get(id as string)).status).toBe('failed')
      const twitterCalls = twitter.calls.length
      await h.call('reschedule_post', { id, scheduleDate: '2030-03-02', scheduleTime: '10:00' })
      expect((await get(id as string)).targets.map((t: { status: string }) => t.status)).toEqual([
        'pending',
        'pending',
      ])
      clock.set(Date.UTC(2030, 2, 2, 10))
      await run()
      const post = await get(id as string)
      expect(post.status).toBe('published')
      expect(twitter.calls.length).toBe(twitterCalls + 1)
    })
  })

  describe('published or currently publishing → reschedule_post', () => {
    it('refuses to move a published post (409) and leaves it unchanged', async () => {
      const [id] = await create()
      await fire()
      const res = await h.call('reschedule_post', { id, scheduleDate: '2030-05-01', scheduleTime: '10:00' })
      expect(res.status).toBe(409)
      expect(res.body.error.code).toBe('conflict')
      expect((await get(id as string)).scheduleDate).toBe('2030-02-01')
    })

    it('refuses to move a post that is being published (409)', async () => {
      const [id] = await create()
      twitter.script.push(fail('transient', 'flaky'))
      await fire()
      expect((await get(id as string)).status).toBe('processing')
      expect(
        (await h.call('reschedule_post', { id, scheduleDate: '2030-05-01', scheduleTime: '10:00' })).status,
      ).toBe(409)
    })
  })

  describe('scheduled or draft → delete_post', () => {
    it('removes a scheduled post from the queue', async () => {
      const [id] = await create({ content: 'to be deleted' })
      expect((await h.call('delete_post', { id })).body).toEqual({
        success: true,
        message: 'Post deleted',
        id,
      })
      expect((await h.call('get_post', { id })).status).toBe(404)
      const calls = twitter.calls.length
      await fire()
      expect(twitter.calls.slice(calls).map((c) => c.content)).not.toContain('to be deleted')
    })

    it('removes a draft', async () => {
      const [id] = await create()
      await h.call('update_post', { id, status: 'draft' })
      expect((await h.call('delete_post', { id })).status).toBe(200)
    })

    it.each(['failed', 'published', 'processing'])('refuses to delete a %s post (409)', async (status) => {
      const [id] = await create()
      if (status === 'failed') await h.call('update_post', { id, status: 'failed' })
      if (status === 'processing') twitter.script.push(fail('transient', 'flaky'))
      if (status !== 'failed') await fire()
      expect((await get(id as string)).status).toBe(status)
      expect((await h.call('delete_post', { id })).status).toBe(409)
    })
  })

  describe('queued post → publish_post_now', () => {
    it('sends a scheduled post ahead of its slot at no extra charge', async () => {
      const [id] = await create()
      const res = await h.call('publish_post_now', { id })
      expect(res.body.credits.charged).toBe(0)
      expect(await run()).toBeGreaterThanOrEqual(1)
      expect((await get(id as string)).status).toBe('published')
    })

    it('sends a draft now', async () => {
      const [id] = await create()
      await h.call('update_post', { id, status: 'draft' })
      await h.call('publish_post_now', { id })
      await run()
      expect((await get(id as string)).status).toBe('published')
    })

    it('retries only the failed profiles of a published post, charging their network price again', async () => {
      const [id] = await create()
      await h.call('update_post', {
        id,
        targetAccounts: [
          { platform: 'twitter', profileId: 'tw-1' },
          { platform: 'linkedin', profileId: 'li-1' },
        ],
      })
      linkedin.script.push(fail('invalid_content', 'nope'))
      await fire()
      expect((await get(id as string)).status).toBe('published')
      const before = (await h.call('get_user_info')).body.credits.balance
      const twitterCalls = twitter.calls.length
      const res = await h.call('publish_post_now', { id })
      expect(res.body.credits).toEqual({ charged: 1, remaining: before - 1 })
      await run()
      const post = await get(id as string)
      expect(post.targets.map((t: { status: string }) => t.status)).toEqual(['published', 'published'])
      expect(twitter.calls.length).toBe(twitterCalls)
    })

    it('refuses a published post with nothing failed (409) and a post being published (409)', async () => {
      const [done] = await create()
      await fire()
      expect((await h.call('publish_post_now', { id: done })).status).toBe(409)
      const [busy] = await create({ scheduleDate: '2030-02-02' })
      twitter.script.push(fail('transient', 'flaky'))
      clock.set(Date.UTC(2030, 1, 2, 9))
      await run()
      expect((await h.call('publish_post_now', { id: busy })).status).toBe(409)
    })

    it('refuses a retry the balance cannot pay (402) and changes nothing', async () => {
      const poor = await startHarness({
        backend,
        adapters: { twitter },
        env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
        credits: 5,
      })
      const poorWorker = createAppWorker(poor.app, { id: 'poor-worker' })
      try {
        await connectProfile(poor, 'twitter', 'tw-poor', 'poor')
        const id = (
          await poor.call('create_post', { content: 'x', platforms: ['twitter'], publishImmediately: true })
        ).body.postIds[0]
        twitter.script.push(fail('invalid_content', 'nope'))
        await poorWorker.tick()
        await poorWorker.idle()
        const res = await poor.call('publish_post_now', { id })
        expect(res.status).toBe(402)
        expect((await poor.call('get_post', { id })).body.targets[0].status).toBe('failed')
      } finally {
        await poor.close()
      }
    })
  })

  describe('stuck mid-publish → reset_stuck_post', () => {
    it('releases a stuck post as failed with an unknown-outcome reason, and publish_post_now retries it', async () => {
      const [id] = await create()
      twitter.script.push(fail('unknown_outcome', 'connection dropped after sending'))
      await fire()
      expect((await get(id as string)).status).toBe('processing')
      const reset = await h.call('reset_stuck_post', { id })
      expect(reset.body.post.status).toBe('failed')
      expect(reset.body.post.targets[0]).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/unknown/),
      })
      await h.call('publish_post_now', { id })
      await run()
      expect((await get(id as string)).status).toBe('published')
    })

    it.each(['scheduled', 'published'])(
      'refuses to reset a %s post that is not stuck (409)',
      async (status) => {
        const [id] = await create()
        if (status === 'published') await fire()
        expect((await h.call('reset_stuck_post', { id })).status).toBe(409)
      },
    )

    it('does not count a live lease as stuck', async () => {
      const [id] = await create()
      await h.app.store.db
        .updateTable('targets')
        .set({ lease_owner: 'alive', lease_expires_at: clock.now() + 60_000 })
        .where('post_id', '=', id as string)
        .execute()
      expect((await h.call('reset_stuck_post', { id })).status).toBe(409)
      await h.app.store.db
        .updateTable('targets')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('post_id', '=', id as string)
        .execute()
    })
  })

  describe('DESIGN.md status rules', () => {
    it('refuses update_post on processing and published posts (409)', async () => {
      const [published] = await create()
      await fire()
      expect((await h.call('update_post', { id: published, content: 'changed' })).status).toBe(409)
      const [processing] = await create({ scheduleDate: '2030-02-03' })
      twitter.script.push(fail('transient', 'flaky'))
      clock.set(Date.UTC(2030, 1, 3, 9))
      await run()
      expect((await h.call('update_post', { id: processing, content: 'changed' })).status).toBe(409)
      expect((await get(published as string)).content).not.toBe('changed')
    })

    it('shows a post as processing while a target waits for a retry, then settles it', async () => {
      const [id] = await create()
      twitter.script.push(fail('transient', 'flaky'))
      await fire()
      expect((await get(id as string)).status).toBe('processing')
      clock.advance(10 * 60_000)
      await run()
      expect((await get(id as string)).status).toBe('published')
    })

    it('settles a post as failed when no target was published', async () => {
      const [id] = await create()
      await h.call('update_post', {
        id,
        targetAccounts: [
          { platform: 'twitter', profileId: 'tw-1' },
          { platform: 'linkedin', profileId: 'li-1' },
        ],
      })
      twitter.script.push(fail('invalid_content', 'no'))
      linkedin.script.push(fail('invalid_content', 'no'))
      await fire()
      const post = await get(id as string)
      expect(post.status).toBe('failed')
      expect(post.lastError).toBe('no')
    })

    it('settles a post with one published and one failed target as published', async () => {
      const [id] = await create()
      await h.call('update_post', {
        id,
        targetAccounts: [
          { platform: 'twitter', profileId: 'tw-1' },
          { platform: 'linkedin', profileId: 'li-1' },
        ],
      })
      linkedin.script.push(fail('invalid_content', 'no'))
      await fire()
      const post = await get(id as string)
      expect(post.status).toBe('published')
      expect(post.targets.map((t: { status: string }) => t.status)).toEqual(['published', 'failed'])
    })
  })
})
