import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import { balanceOf, startPostHarness } from './post-harness.js'

/**
 * `thread` and `firstComment` on create_post, preflight_post and update_post. Bad input is a
 * 400 naming the field (create_post) or a blocker (preflight_post), and nothing is created or charged;
 * preflight prices every item and names the networks that take no thread.
 */
describe.each(backends)('threads and first comments as input ($name)', (backend) => {
  let h: Harness
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
  const slot = { scheduleDate: tomorrow, scheduleTime: '12:00' }
  const x = { platform: 'twitter', profileId: 'tw-1' }
  const li = { platform: 'linkedin', profileId: 'li-1' }
  const count = async () => (await h.call('list_posts', {})).body.counts.all as number

  beforeAll(async () => {
    h = await startPostHarness(backend, { credits: 1_000 })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
  })
  afterAll(() => h.close())

  const refused = async (input: Record<string, unknown>, message: RegExp) => {
    const before = { posts: await count(), balance: await balanceOf(h) }
    const { status, body } = await h.call('create_post', { content: 'Head post', ...slot, ...input })
    expect(status, JSON.stringify(body)).toBe(400)
    expect(body.error.code).toBe('invalid_request')
    expect(body.error.message).toMatch(message)
    expect(await count()).toBe(before.posts)
    expect(await balanceOf(h)).toBe(before.balance)
    const preflight = await h.call('preflight_post', { content: 'Head post', ...slot, ...input })
    expect(preflight.status).toBe(200)
    expect(preflight.body.ok).toBe(false)
    expect(preflight.body.blockers.join('\n')).toMatch(message)
  }

  it('refuses a thread on a network that takes none, naming the field', async () => {
    await refused(
      { targetAccounts: [{ ...li, thread: [{ content: 'two' }] }] },
      /targetAccounts\[\]\.thread: linkedin @acme-li: linkedin takes no threads/,
    )
    await refused(
      { targetAccounts: [li], thread: [{ content: 'two' }] },
      /thread: none of the profiles takes a thread/,
    )
  })

  it('refuses an empty item, an item over the limit as X counts it, and more than 25 items', async () => {
    await refused(
      { targetAccounts: [x], thread: [{ content: 'two' }, { content: '   ' }] },
      /thread\[1\]: twitter @acme: the thread post 3 of 3 is empty/,
    )
    await refused(
      { targetAccounts: [x], thread: [{ content: 'é'.repeat(281) }] },
      /thread\[0\]: twitter @acme: the thread post 2 of 2 is 281 characters; twitter allows 280/,
    )
    await refused(
      {
        targetAccounts: [x],
        thread: Array.from({ length: 26 }, (_, i) => ({ content: `item ${i}` })),
      },
      /thread: twitter @acme: 26 thread items; a thread takes at most 25/,
    )
  })

  it("refuses a first comment over the network's comment limit", async () => {
    await refused(
      { targetAccounts: [li], firstComment: 'c'.repeat(1_251) },
      /firstComment: linkedin @acme-li: the first comment is 1251 characters; linkedin allows 1250/,
    )
  })

  it('preflight prices every item, warns where a shared thread cannot go, and create_post charges the same', async () => {
    const input = {
      content: 'Launch day',
      ...slot,
      targetAccounts: [x, li],
      thread: [{ content: 'Launch day 2/ details' }, { content: 'Launch day 3/ thanks' }],
      firstComment: 'Questions welcome',
    }
    const preflight = await h.call('preflight_post', input)
    expect(preflight.body.ok, JSON.stringify(preflight.body.blockers)).toBe(true)
    // X: the post, 2 thread posts and the first comment at 5 each; LinkedIn: the post and its comment at 1.
    expect(preflight.body.credits.cost).toBe(5 * 4 + 1 * 2)
    expect(preflight.body.warnings).toContain(
      'linkedin @acme-li: linkedin takes no threads; the thread is left out there (first comments go to every network)',
    )
    const before = await balanceOf(h)
    const created = await h.call('create_post', input)
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(created.body.credits.charged).toBe(22)
    expect(await balanceOf(h)).toBe(before - 22)
    const [onX, onLinkedIn] = created.body.posts
    expect(onX.thread).toEqual(input.thread)
    expect(onX.firstComment).toBe('Questions welcome')
    expect(onX.targets[0].items.map((i: { kind: string }) => i.kind)).toEqual([
      'thread',
      'thread',
      'firstComment',
    ])
    expect(onLinkedIn.thread).toBeUndefined()
    expect(onLinkedIn.targets[0].items).toEqual([
      { kind: 'firstComment', content: 'Questions welcome', status: 'pending' },
    ])
  })

  it('a thread per network through threadVariants, and update_post replacing it before it goes out', async () => {
    const created = await h.call('create_post', {
      content: 'Per network',
      ...slot,
      targetAccounts: [x],
      threadVariants: { twitter: [{ content: 'Per network 2/ on X' }] },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.postIds[0]
    expect(created.body.posts[0].targets[0].items).toHaveLength(1)
    const updated = await h.call('update_post', {
      id,
      thread: [{ content: 'Per network 2/ changed' }, { content: 'Per network 3/ added' }],
    })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.post.targets[0].items.map((i: { content: string }) => i.content)).toEqual([
      'Per network 2/ changed',
      'Per network 3/ added',
    ])
    const cleared = await h.call('update_post', { id, thread: [] })
    expect(cleared.body.post.targets[0].items).toBeUndefined()
    expect(cleared.body.post.thread).toBeUndefined()
  })

  it('a post that uses neither field shows neither, and costs what it did', async () => {
    const created = await h.call('create_post', { content: 'Plain', ...slot, targetAccounts: [x] })
    expect(created.body.credits.charged).toBe(5)
    expect(created.body.posts[0].targets[0].items).toBeUndefined()
    expect(created.body.posts[0]).not.toHaveProperty('thread')
    expect(created.body.posts[0]).not.toHaveProperty('firstComment')
  })
})
