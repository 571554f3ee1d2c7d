import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Network } from '../../src/core/networks.js'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'
import {
  balanceOf,
  checkOutput,
  connectAll,
  type MediaServer,
  otherWorkspace,
  snapshot,
  startMediaServer,
  startPostHarness,
  targetRows,
} from './post-harness.js'

const T0 = Date.UTC(2030, 0, 1, 12)
/** Posts that must never fire during this file sit at this slot; tests that publish use earlier ones. */
const later = { scheduleDate: '2030-06-01', scheduleTime: '09:30' }

type Call = Harness['call']
type TargetView = { platform: string; profileId: string; status: string }
const profilesOf = (post: { targets: TargetView[] }) => post.targets.map((t) => t.profileId)

describe.each(backends)('reading and updating posts on $name', (backend) => {
  let h: Harness
  let media: MediaServer
  let worker: Worker
  let twitter: ScriptedAdapter
  let linkedin: ScriptedAdapter
  const clock = new FakeClock(T0)

  beforeAll(async () => {
    media = await startMediaServer()
    twitter = scriptedAdapter('twitter')
    linkedin = scriptedAdapter('linkedin')
    h = await startPostHarness(backend, {
      clock,
      adapters: { twitter, linkedin },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    await connectAll(h)
    worker = createAppWorker(h.app, { id: 'read-update-worker' })
  })
  afterAll(async () => {
    await h.close()
    await media.close()
  })
  beforeEach(() => {
    clock.set(T0)
    twitter.script.length = 0
    linkedin.script.length = 0
  })

  const run = async () => {
    const n = await worker.tick()
    await worker.idle()
    return n
  }
  const createWith = async (call: Call, body: Record<string, unknown>) => {
    const res = await call('create_post', { content: `copy ${Math.random()}`, ...later, ...body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.postIds as string[]
  }
  const create = (body: Record<string, unknown>) => createWith(h.call, body)
  const createOne = async (body: Record<string, unknown>) => (await create(body))[0] as string
  const get = async (id: string, call: Call = h.call) => (await call('get_post', { id })).body
  const update = (body: Record<string, unknown>) => h.call('update_post', body)

  /** A workspace of its own (so its counts start at zero) with X, LinkedIn, Bluesky and Threads profiles. */
  const freshWorkspace = async (label: string, credits = 10_000) => {
    const w = await otherWorkspace(h, label, credits)
    const profiles: Array<[Network, string]> = [
      ['twitter', `${label}-tw`],
      ['linkedin', `${label}-li`],
      ['bluesky', `${label}-bs`],
      ['threads', `${label}-th`],
    ]
    for (const [platform, profileId] of profiles)
      await connectProfile(h, platform, profileId, profileId, { workspaceId: w.workspaceId })
    const call: Call = (tool, body = {}, options = {}) => h.call(tool, body, { key: w.apiKey, ...options })
    return { ...w, call }
  }

  describe('list_posts', () => {
    it('lists posts newest first', async () => {
      const w = await freshWorkspace('newest')
      const ids: string[] = []
      for (let i = 0; i < 3; i++) ids.push(...(await createWith(w.call, { platforms: ['linkedin'] })))
      const { status, body } = await w.call('list_posts', {})
      expect(status).toBe(200)
      checkOutput('list_posts', body)
      expect(body.posts.map((p: { id: string }) => p.id)).toEqual([...ids].reverse())
    })

    it('answers each post with its targets, as get_post does', async () => {
      const w = await freshWorkspace('shape')
      const [id] = await createWith(w.call, { platforms: ['twitter'] })
      const listed = (await w.call('list_posts', {})).body.posts[0]
      expect(listed).toEqual(await get(id as string, w.call))
      expect(listed.targets).toEqual([
        { platform: 'twitter', profileId: 'shape-tw', username: 'shape-tw', status: 'pending' },
      ])
    })

    it.each(['scheduled', 'draft', 'failed'])('filters by status %s', async (status) => {
      const w = await freshWorkspace(`filter-${status}`)
      const ids = await createWith(w.call, { platforms: ['twitter', 'linkedin', 'bluesky'] })
      await w.call('update_post', { id: ids[1], status: 'draft' })
      await w.call('update_post', { id: ids[2], status: 'failed' })
      const expected = { scheduled: ids[0], draft: ids[1], failed: ids[2] }[status]
      const { body } = await w.call('list_posts', { status })
      expect(body.posts.map((p: { id: string; status: string }) => [p.id, p.status])).toEqual([
        [expected, status],
      ])
      expect(body.pagination).toEqual({ page: 1, limit: 9, totalPosts: 1, totalPages: 1 })
      expect((await w.call('list_posts', { status: 'published' })).body.posts).toEqual([])
    })

    describe('pagination', () => {
      let w: Awaited<ReturnType<typeof freshWorkspace>>
      let newestFirst: string[]
      beforeAll(async () => {
        w = await freshWorkspace('pages')
        const ids: string[] = []
        for (let i = 0; i < 3; i++)
          ids.push(
            ...(await createWith(w.call, { platforms: ['twitter', 'linkedin', 'bluesky', 'threads'] })),
          )
        newestFirst = ids.reverse()
        expect(newestFirst).toHaveLength(12)
      })
      const idsOf = (body: { posts: Array<{ id: string }> }) => body.posts.map((p) => p.id)

      it('answers 9 posts on page 1 by default, with the totals', async () => {
        const { body } = await w.call('list_posts', {})
        expect(idsOf(body)).toEqual(newestFirst.slice(0, 9))
        expect(body.pagination).toEqual({ page: 1, limit: 9, totalPosts: 12, totalPages: 2 })
      })

      it.each([
        [1, 9, 0, 9, 2],
        [2, 9, 9, 12, 2],
        [1, 5, 0, 5, 3],
        [2, 5, 5, 10, 3],
        [3, 5, 10, 12, 3],
        [4, 5, 12, 12, 3],
        [1, 12, 0, 12, 1],
        [1, 100, 0, 12, 1],
      ])(
        'answers page %i at limit %i with posts %i to %i of %i pages',
        async (page, limit, from, to, pages) => {
          const { body } = await w.call('list_posts', { page, limit })
          expect(idsOf(body)).toEqual(newestFirst.slice(from, to))
          expect(body.pagination).toEqual({ page, limit, totalPosts: 12, totalPages: pages })
        },
      )

      it('returns every match with all: true, ignoring page and limit', async () => {
        const { body } = await w.call('list_posts', { all: true, page: 3, limit: 2 })
        expect(idsOf(body)).toEqual(newestFirst)
        expect(body.pagination).toMatchObject({ totalPosts: 12, totalPages: 1 })
      })

      it('returns every match of a status filter with all: true', async () => {
        await w.call('update_post', { id: newestFirst[3], status: 'draft' })
        await w.call('update_post', { id: newestFirst[10], status: 'draft' })
        const { body } = await w.call('list_posts', { all: true, status: 'draft' })
        expect(idsOf(body)).toEqual([newestFirst[3], newestFirst[10]])
        expect(body.pagination.totalPosts).toBe(2)
        await w.call('update_post', { id: newestFirst[3], status: 'scheduled' })
        await w.call('update_post', { id: newestFirst[10], status: 'scheduled' })
      })

      it.each([
        ['page 0', { page: 0 }],
        ['limit 0', { limit: 0 }],
        ['limit 101', { limit: 101 }],
        ['an unknown status', { status: 'deleted' }],
      ])('refuses %s with a 400', async (_name, args) => {
        expect((await w.call('list_posts', args)).status).toBe(400)
      })
    })

    it('keeps counts exact after creates, drafts, deletes, failures and publishing', async () => {
      const w = await freshWorkspace('counts')
      const counts = async () => (await w.call('list_posts', {})).body.counts
      const zero = { all: 0, scheduled: 0, published: 0, failed: 0, draft: 0, processing: 0 }
      expect(await counts()).toEqual(zero)

      const [tw, li, bs] = await createWith(w.call, { platforms: ['twitter', 'linkedin', 'bluesky'] })
      expect(await counts()).toEqual({ ...zero, all: 3, scheduled: 3 })

      await w.call('update_post', { id: bs, status: 'draft' })
      expect(await counts()).toEqual({ ...zero, all: 3, scheduled: 2, draft: 1 })

      expect((await w.call('delete_post', { id: bs })).status).toBe(200)
      expect(await counts()).toEqual({ ...zero, all: 2, scheduled: 2 })

      const [th] = await createWith(w.call, { platforms: ['threads'] })
      await w.call('update_post', { id: th, status: 'failed' })
      expect(await counts()).toEqual({ ...zero, all: 3, scheduled: 2, failed: 1 })

      await w.call('publish_post_now', { id: tw })
      await run()
      expect((await get(tw as string, w.call)).status).toBe('published')
      expect(await counts()).toEqual({ ...zero, all: 3, scheduled: 1, published: 1, failed: 1 })

      linkedin.script.push(fail('transient', 'upstream 503'))
      await w.call('publish_post_now', { id: li })
      await run()
      expect((await get(li as string, w.call)).status).toBe('processing')
      expect(await counts()).toEqual({ ...zero, all: 3, published: 1, failed: 1, processing: 1 })

      expect((await w.call('delete_post', { id: th })).status).toBe(409)
      expect(await counts()).toEqual({ ...zero, all: 3, published: 1, failed: 1, processing: 1 })
      clock.advance(60 * 60_000)
      await run()
      expect(await counts()).toEqual({ ...zero, all: 3, published: 2, failed: 1 })
    })

    it('never shows another workspace’s posts', async () => {
      const mine = await freshWorkspace('mine')
      const theirs = await freshWorkspace('theirs')
      const myIds = await createWith(mine.call, { platforms: ['twitter', 'linkedin'] })
      const theirIds = await createWith(theirs.call, { platforms: ['twitter', 'linkedin', 'bluesky'] })
      const listed = (await mine.call('list_posts', { all: true })).body
      expect(listed.posts.map((p: { id: string }) => p.id).sort()).toEqual([...myIds].sort())
      expect(listed.counts.all).toBe(2)
      for (const status of ['scheduled', 'all'])
        for (const id of theirIds)
          expect(
            (await mine.call('list_posts', { status, all: true })).body.posts.map(
              (p: { id: string }) => p.id,
            ),
          ).not.toContain(id)
      expect((await theirs.call('list_posts', {})).body.counts.all).toBe(3)
    })
  })

  describe('get_post', () => {
    it('answers the post with its targets, attempts 0 and an empty lastError before publishing', async () => {
      const id = await createOne({
        content: 'Read me',
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        mediaUrls: [media.png('get-1'), media.png('get-2')],
        scheduleDate: '2030-02-01',
        scheduleTime: '09:30',
        timezone: 'Asia/Kolkata',
      })
      const { status, body } = await h.call('get_post', { id })
      expect(status).toBe(200)
      checkOutput('get_post', body)
      expect(body).toEqual({
        id,
        content: 'Read me',
        platforms: ['twitter'],
        targets: [{ platform: 'twitter', profileId: 'tw-1', username: 'acme', status: 'pending' }],
        status: 'scheduled',
        scheduleDate: '2030-02-01',
        scheduleTime: '09:30',
        timezone: 'Asia/Kolkata',
        dueAt: '2030-02-01T04:00:00.000Z',
        mediaUrl: media.png('get-1'),
        mediaUrls: [media.png('get-1'), media.png('get-2')],
        createdAt: new Date(T0).toISOString(),
        attempts: 0,
        lastError: '',
        // One profile: its own compose.
        composeId: id,
      })
    })

    it('shows each target’s live url and remote id once published', async () => {
      const id = await createOne({
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        scheduleDate: '2030-02-02',
        scheduleTime: '09:30',
      })
      const [row] = await targetRows(h, id)
      clock.set(Date.UTC(2030, 1, 2, 9, 30))
      expect(await run()).toBeGreaterThanOrEqual(1)
      const body = await get(id)
      checkOutput('get_post', body)
      expect(body).toMatchObject({ id, status: 'published', attempts: 1, lastError: '' })
      expect(body.targets).toEqual([
        {
          platform: 'twitter',
          profileId: 'tw-1',
          username: 'acme',
          status: 'published',
          postId: expect.stringMatching(/^remote-/),
          url: `https://twitter.example/${row?.id}`,
          publishedAt: new Date(clock.now()).toISOString(),
        },
      ])
      expect(body.publishedAt).toBe(new Date(clock.now()).toISOString())
    })

    it('shows a failed delivery in lastError and on the target', async () => {
      const id = await createOne({
        targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
        scheduleDate: '2030-02-03',
        scheduleTime: '09:30',
      })
      linkedin.script.push(fail('invalid_content', 'LinkedIn refused the copy'))
      clock.set(Date.UTC(2030, 1, 3, 9, 30))
      await run()
      const body = await get(id)
      expect(body).toMatchObject({ status: 'failed', attempts: 1, lastError: 'LinkedIn refused the copy' })
      expect(body.targets).toEqual([
        expect.objectContaining({ status: 'failed', error: 'LinkedIn refused the copy' }),
      ])
      expect(body.targets[0].url).toBeUndefined()
    })

    it('answers an unknown id with 404 not_found', async () => {
      const { status, body } = await h.call('get_post', { id: 'ffffffffffffffffffffffff' })
      expect(status).toBe(404)
      expect(body.error.code).toBe('not_found')
    })
  })

  describe('another workspace', () => {
    let outsider: Awaited<ReturnType<typeof freshWorkspace>>
    let theirPost: string
    beforeAll(async () => {
      outsider = await freshWorkspace('outsider')
      ;[theirPost] = (await createWith(outsider.call, { content: 'theirs', platforms: ['twitter'] })) as [
        string,
      ]
    })

    it.each([
      ['get_post', {}],
      ['update_post', { content: 'hijacked' }],
      ['reschedule_post', { scheduleDate: '2030-07-01', scheduleTime: '10:00' }],
      ['delete_post', {}],
      ['publish_post_now', {}],
      ['reset_stuck_post', {}],
    ])('answers %s on its post id with 404 not_found and changes nothing', async (tool, args) => {
      const theirsBefore = await get(theirPost, outsider.call)
      const mineBefore = await snapshot(h)
      const { status, body } = await h.call(tool, { id: theirPost, ...args })
      expect(status).toBe(404)
      expect(body.error.code).toBe('not_found')
      expect(body.error.message).not.toMatch(/theirs|outsider/)
      expect(await get(theirPost, outsider.call)).toEqual(theirsBefore)
      expect(await snapshot(h)).toEqual(mineBefore)
      expect(await balanceOf(h, outsider.workspaceId)).toBe(10_000 - 5)
    })

    it('reports its profile in create_post targetAccounts as unknown (400) and creates nothing', async () => {
      const before = await snapshot(h)
      const theirsBefore = (await outsider.call('list_posts', {})).body.counts
      const { status, body } = await h.call('create_post', {
        content: 'where does this go?',
        targetAccounts: [{ platform: 'twitter', profileId: 'outsider-tw' }],
        ...later,
      })
      expect(status).toBe(400)
      expect(body.error.details.unknownTargets).toEqual([
        expect.objectContaining({ platform: 'twitter', profileId: 'outsider-tw' }),
      ])
      expect(await snapshot(h)).toEqual(before)
      expect((await outsider.call('list_posts', {})).body.counts).toEqual(theirsBefore)
    })

    it('reports its profile in update_post targetAccounts as unknown (400) and keeps the targets', async () => {
      const id = await createOne({ targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }] })
      const res = await update({ id, targetAccounts: [{ platform: 'twitter', profileId: 'outsider-tw' }] })
      expect(res.status).toBe(400)
      expect(res.body.error.details.unknownTargets).toEqual([
        expect.objectContaining({ profileId: 'outsider-tw' }),
      ])
      expect(profilesOf(await get(id))).toEqual(['tw-1'])
    })
  })

  describe('update_post', () => {
    it('changes only the content when only content is sent, keeping slot, media and targets', async () => {
      const id = await createOne({
        content: 'before',
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        mediaUrls: [media.png('keep-1'), media.png('keep-2')],
        scheduleDate: '2030-06-02',
        scheduleTime: '18:45',
        timezone: 'America/New_York',
      })
      const before = await get(id)
      const balance = await balanceOf(h)
      const res = await update({ id, content: 'after' })
      expect(res.status).toBe(200)
      checkOutput('update_post', res.body)
      expect(res.body).toMatchObject({ success: true, message: expect.any(String) })
      expect(res.body.post).toMatchObject({
        id,
        content: 'after',
        scheduleDate: '2030-06-02',
        scheduleTime: '18:45',
        status: 'scheduled',
      })
      expect(await get(id)).toEqual({ ...before, content: 'after' })
      expect(res.body.post).toEqual({ ...before, content: 'after' })
      const [row] = await targetRows(h, id)
      expect(row).toMatchObject({ content: 'after', media_urls: [media.png('keep-1'), media.png('keep-2')] })
      expect(row?.run_at).toBe(Date.parse(before.dueAt))
      expect(await balanceOf(h)).toBe(balance)
    })

    it('keeps a target’s own copy when something else is patched', async () => {
      const id = await createOne({
        content: 'shared',
        variants: { twitter: 'network copy' },
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1', content: 'own copy' }],
        mediaUrl: media.png('own-copy'),
      })
      expect((await update({ id, mediaUrls: [] })).status).toBe(200)
      expect((await get(id)).content).toBe('own copy')
      expect((await targetRows(h, id))[0]?.content).toBe('own copy')
    })

    it('replaces the target list through targetAccounts, charging only the added profiles', async () => {
      const id = await createOne({ targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }] })
      const balance = await balanceOf(h)
      const res = await update({
        id,
        targetAccounts: [
          { platform: 'linkedin', profileId: 'li-1' },
          { platform: 'bluesky', profileId: 'bs-1' },
        ],
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(profilesOf(res.body.post)).toEqual(['li-1', 'bs-1'])
      expect(res.body.post.platforms).toEqual(['linkedin', 'bluesky'])
      expect((await targetRows(h, id)).map((t) => t.profile_id)).toEqual(['li-1', 'bs-1'])
      expect(await balanceOf(h)).toBe(balance - 2)
    })

    it('replaces the target list through platforms, expanding to every connected profile', async () => {
      const id = await createOne({ targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }] })
      const balance = await balanceOf(h)
      const res = await update({ id, platforms: ['twitter'] })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(profilesOf(res.body.post).sort()).toEqual(['tw-1', 'tw-2'])
      expect(await balanceOf(h)).toBe(balance - 10)
    })

    it.each<[Network, string, number]>([
      ['twitter', 'tw-2', 5],
      ['bluesky', 'bs-1', 1],
      ['linkedin', 'li-1', 1],
      ['facebook', 'fb-1', 1],
    ])(
      'charges an added %s profile %i credits and a kept one nothing',
      async (platform, profileId, price) => {
        const id = await createOne({ targetAccounts: [{ platform: 'threads', profileId: 'th-1' }] })
        const balance = await balanceOf(h)
        const res = await update({
          id,
          targetAccounts: [
            { platform: 'threads', profileId: 'th-1' },
            { platform, profileId },
          ],
        })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        expect(profilesOf(res.body.post)).toEqual(['th-1', profileId])
        expect(await balanceOf(h)).toBe(balance - price)
        expect((await update({ id, targetAccounts: [{ platform, profileId }] })).status).toBe(200)
        expect(await balanceOf(h)).toBe(balance - price)
      },
    )

    it('refuses added profiles the balance cannot pay with a 402 and changes nothing', async () => {
      const poor = await freshWorkspace('poor-update', 6)
      const [id] = await createWith(poor.call, {
        targetAccounts: [{ platform: 'linkedin', profileId: 'poor-update-li' }],
      })
      const before = await get(id as string, poor.call)
      const res = await poor.call('update_post', {
        id,
        content: 'changed',
        targetAccounts: [
          { platform: 'linkedin', profileId: 'poor-update-li' },
          { platform: 'twitter', profileId: 'poor-update-tw' },
          { platform: 'bluesky', profileId: 'poor-update-bs' },
        ],
      })
      expect(res.status).toBe(402)
      expect(res.body.error.code).toBe('insufficient_credits')
      expect(await get(id as string, poor.call)).toEqual(before)
      expect(await balanceOf(h, poor.workspaceId)).toBe(5)
    })

    it('replaces the whole attachment set with one file on mediaUrl', async () => {
      const id = await createOne({
        targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
        mediaUrls: [media.png('set-1'), media.png('set-2')],
      })
      const res = await update({ id, mediaUrl: media.png('single') })
      expect(res.body.post.mediaUrls).toEqual([media.png('single')])
      expect(res.body.post.mediaUrl).toBe(media.png('single'))
      expect((await targetRows(h, id))[0]?.media_urls).toEqual([media.png('single')])
    })

    it('refuses mediaUrl and mediaUrls together with a 400', async () => {
      const id = await createOne({ targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }] })
      const res = await update({ id, mediaUrl: media.png('one'), mediaUrls: [media.png('two')] })
      expect(res.status).toBe(400)
      expect((await get(id)).mediaUrls).toEqual([])
    })

    it('removes all media on mediaUrls []', async () => {
      const id = await createOne({
        targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
        mediaUrls: [media.png('gone-1'), media.png('gone-2')],
      })
      const res = await update({ id, mediaUrls: [] })
      expect(res.body.post.mediaUrls).toEqual([])
      expect(res.body.post).not.toHaveProperty('mediaUrl')
      expect((await targetRows(h, id))[0]?.media_urls).toEqual([])
    })

    it('merges youtube fields: privacyStatus alone keeps the title and description', async () => {
      const id = await createOne({
        content: 'Copy line',
        targetAccounts: [{ platform: 'youtube', profileId: 'yt-1' }],
        mediaUrl: media.mp4('yt-merge'),
        youtube: { title: 'My title', description: 'My description', privacyStatus: 'unlisted' },
      })
      const res = await update({ id, youtube: { privacyStatus: 'private' } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.post.youtube).toEqual({
        title: 'My title',
        description: 'My description',
        privacyStatus: 'private',
      })
      expect((await targetRows(h, id))[0]?.youtube).toEqual({
        title: 'My title',
        description: 'My description\n\n#Shorts',
        privacyStatus: 'private',
      })
      await update({ id, youtube: { title: 'New title' } })
      expect((await targetRows(h, id))[0]?.youtube).toMatchObject({
        title: 'New title',
        privacyStatus: 'private',
      })
    })

    it('keeps the default title from the copy when only privacyStatus is sent', async () => {
      const id = await createOne({
        content: 'Default title line\nbody',
        targetAccounts: [{ platform: 'youtube', profileId: 'yt-1' }],
        mediaUrl: media.mp4('yt-default'),
      })
      await update({ id, youtube: { privacyStatus: 'unlisted' } })
      expect((await targetRows(h, id))[0]?.youtube).toEqual({
        title: 'Default title line',
        description: 'Default title line\nbody\n\n#Shorts',
        privacyStatus: 'unlisted',
      })
    })

    it('refuses a youtube title over 100 characters with a 400', async () => {
      const id = await createOne({
        targetAccounts: [{ platform: 'youtube', profileId: 'yt-1' }],
        mediaUrl: media.mp4('yt-long'),
      })
      expect((await update({ id, youtube: { title: 'x'.repeat(101) } })).status).toBe(400)
    })

    it.each<[string, string[], string]>([
      ['scheduled', [], 'draft'],
      ['draft', ['draft'], 'scheduled'],
      ['scheduled', [], 'failed'],
      ['failed', ['failed'], 'draft'],
      ['failed', ['failed'], 'scheduled'],
      ['draft', ['draft'], 'failed'],
    ])('moves a %s post to %s', async (from, steps, to) => {
      const id = await createOne({ targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }] })
      for (const status of steps) await update({ id, status })
      expect((await get(id)).status).toBe(from)
      const res = await update({ id, status: to })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.post.status).toBe(to)
      const [row] = await targetRows(h, id)
      expect(row?.run_at).toBe(to === 'scheduled' ? Date.UTC(2030, 5, 1, 9, 30) : null)
    })

    it.each([
      ['a past date', { scheduleDate: '2029-12-31' }],
      ['a past time today', { scheduleDate: '2030-01-01', scheduleTime: '11:58' }],
      [
        'a zone that puts the slot in the past',
        { scheduleDate: '2030-01-01', scheduleTime: '12:30', timezone: 'Europe/Paris' },
      ],
    ])('refuses %s with a 400 and keeps the slot', async (_name, slot) => {
      const id = await createOne({ targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }] })
      const before = await get(id)
      const res = await update({ id, ...slot })
      expect(res.status).toBe(400)
      expect(res.body.error.message).toMatch(/in the past/)
      expect(await get(id)).toEqual(before)
    })

    it('refuses copy a target’s network would block with a 400 listing the blockers', async () => {
      const id = await createOne({
        content: 'short',
        targetAccounts: [{ platform: 'bluesky', profileId: 'bs-1' }],
      })
      const res = await update({ id, content: 'b'.repeat(301) })
      expect(res.status).toBe(400)
      expect(res.body.error.details.blockers).toEqual([expect.stringMatching(/bluesky allows 300/)])
      expect((await get(id)).content).toBe('short')
    })

    it.each(['published', 'processing'])('refuses to change a %s post with a 409', async (state) => {
      const id = await createOne({
        content: 'frozen',
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        scheduleDate: '2030-02-10',
        scheduleTime: '09:30',
      })
      if (state === 'processing') twitter.script.push(fail('transient', 'upstream 503'))
      clock.set(Date.UTC(2030, 1, 10, 9, 30))
      await run()
      expect((await get(id)).status).toBe(state)
      for (const patch of [{ content: 'changed' }, { status: 'draft' }, { mediaUrls: [] }]) {
        const res = await update({ id, ...patch })
        expect(res.status).toBe(409)
        expect(res.body.error.code).toBe('conflict')
      }
      expect((await get(id)).content).toBe('frozen')
    })
  })
})
