import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PublishFailure } from '../../src/adapters/adapter.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { facebookGrant, type MetaWorld, request, startMetaWorld } from './meta-fixtures.js'

describe("looking for an unanswered Facebook post on a busy Page (paging back through the Page's lists)", () => {
  let world: MetaWorld
  beforeAll(async () => {
    world = await startMetaWorld()
  })
  afterAll(async () => {
    expect(world.sandbox.violations).toEqual([])
    await world.close()
  })

  async function busyPage(name: string) {
    const grant = await facebookGrant(world, name)
    return grant.page
  }
  /** Posts other attempts made on the Page, `at` onwards, a second apart (seeded: a Page at 50 posts/s). */
  function seedPosts(pageId: string, count: number, at: number, message = 'Another post') {
    for (let i = 0; i < count; i++) {
      const id = `${pageId}_${world.sandbox.newId('9')}`
      world.sandbox.posts.set(id, {
        id,
        pageId,
        message: `${message} ${i}`,
        attachedMedia: [],
        createdAt: at + i * 1000,
        kind: 'status',
      })
    }
  }
  const listCalls = (edge: string) =>
    world.sandbox.calls.filter((call) => call.method === 'GET' && call.path.endsWith(`/${edge}`))

  it('finds the post when 250 newer posts pushed it to the third page', async () => {
    const page = await busyPage('Busy Bakery')
    const since = Date.now()
    const req = request(page.profile, page.credentials, 'The post whose answer was lost', [])
    const sent = await world.facebook.publish(req)
    seedPosts(page.profile.profileId, 250, Date.now() + 1000)
    const before = listCalls('published_posts').length
    const found = await lookupMatch(world.facebook)({ ...req, since })
    expect(found?.remoteId).toBe(sent.remoteId)
    const calls = listCalls('published_posts').slice(before)
    expect(calls).toHaveLength(3)
    expect(calls[0]!.params.after).toBeUndefined()
    expect(calls.slice(1).every((call) => typeof call.params.after === 'string')).toBe(true)
  })

  it('answers not found after reading every post since the attempt, and stops at the first older post', async () => {
    const page = await busyPage('Busy Florist')
    const pageId = page.profile.profileId
    const since = Date.now()
    // 1,200 older posts (one with the same copy) would trip the bound if the scan did not stop at them.
    seedPosts(pageId, 1200, since - 2 * 3600_000, 'Older post')
    seedPosts(pageId, 1, since - 10 * 60_000, 'Sent long ago')
    seedPosts(pageId, 230, since + 1000)
    const before = listCalls('published_posts').length
    const req = request(page.profile, page.credentials, 'Sent long ago 0', [])
    expect(await lookupMatch(world.facebook)({ ...req, since })).toBeNull()
    // 230 newer posts fill pages of 100 and 100; the third page reaches the posts older than the attempt.
    expect(listCalls('published_posts').slice(before)).toHaveLength(3)
  })

  it('is ambiguous rather than answer not found when 10 pages do not reach the attempt', async () => {
    const page = await busyPage('Busy Cafe')
    const since = Date.now()
    seedPosts(page.profile.profileId, 1005, since + 1000)
    const before = listCalls('published_posts').length
    const req = request(page.profile, page.credentials, 'Buried under a thousand posts', [])
    const answer = await world.facebook.findPublished!({ ...req, since })
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    expect((answer as { reason: string }).reason).toMatch(
      /more posts since the attempt than Herald reads back/,
    )
    expect(listCalls('published_posts').slice(before)).toHaveLength(10)
  })

  it('finds a video whose upload answer was lost when 250 newer videos came after it', async () => {
    const page = await busyPage('Busy Cinema')
    const pageId = page.profile.profileId
    world.sandbox.failNext({ op: 'videos', action: 'drop_after' })
    const since = Date.now()
    const req = request(page.profile, page.credentials, 'Lost video answer', [world.src('clip.mp4')])
    const error = await world.facebook.publish(req).catch((e: unknown) => e)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    const lost = [...world.sandbox.videos.values()].find((v) => v.description === 'Lost video answer')!
    for (let i = 0; i < 250; i++) {
      const id = world.sandbox.newId('7')
      world.sandbox.videos.set(id, {
        id,
        createdAt: Date.now() + i,
        pageId,
        fileUrl: world.src('clip.mp4'),
        description: `Another video ${i}`,
        polls: 1,
        state: 'processing',
      })
    }
    const before = listCalls('videos').length
    const found = await lookupMatch(world.facebook)({ ...req, since })
    expect(found?.url).toContain(`/videos/${lost.id}`)
    expect(
      listCalls('videos')
        .slice(before)
        .filter((call) => call.params.after),
    ).toHaveLength(2)
  })
})
