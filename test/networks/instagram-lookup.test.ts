import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/networks/adapter.js'
import { keepingProgress } from '../helpers/hosted-media.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { facebookGrant, type MetaWorld, request, startMetaWorld } from './meta-fixtures.js'

describe("looking for an unanswered Instagram post on a busy account (paging back through the account's media)", () => {
  let world: MetaWorld
  beforeAll(async () => {
    world = await startMetaWorld()
  })
  afterAll(async () => {
    expect(world.sandbox.violations).toEqual([])
    await world.close()
  })

  /** Media other attempts published on the account, `at` onwards, a second apart (seeded). */
  function seedMedia(igUserId: string, count: number, at: number, caption = 'Another post') {
    for (let i = 0; i < count; i++) {
      const id = world.sandbox.newId('18')
      world.sandbox.media.set(id, {
        id,
        igUserId,
        caption: `${caption} ${i}`,
        mediaType: 'IMAGE',
        productType: 'FEED',
        shortcode: `seed${id}`,
        createdAt: at + i * 1000,
        children: [],
      })
    }
  }
  const mediaLists = (from: number) =>
    world.sandbox.calls.slice(from).filter((call) => call.method === 'GET' && call.path.endsWith('/media'))

  it('finds the post when 250 newer posts pushed it to the third page', async () => {
    const { ig } = await facebookGrant(world, 'Busy Bakery')
    world.sandbox.failNext({ op: 'media_publish', action: 'drop_after' })
    const since = Date.now()
    const { req, progress } = keepingProgress(
      request(ig.profile, ig.credentials, 'Lost publish answer', [world.src('photo.jpg')]),
    )
    const error = await world.instagram.publish(req).catch((e: unknown) => e)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    seedMedia(ig.profile.profileId, 250, Date.now() + 1000)
    const from = world.sandbox.calls.length
    const found = await lookupMatch(world.instagram)({ ...req, since, progress })
    expect(world.sandbox.media.get(found!.remoteId)?.caption).toBe('Lost publish answer')
    const lists = mediaLists(from)
    expect(lists).toHaveLength(3)
    expect(lists[0]!.params.after).toBeUndefined()
    expect(Number(lists[0]!.params.since)).toBeLessThanOrEqual(Math.floor(since / 1000))
  })

  it('answers not found only after reading every post since the attempt', async () => {
    const { ig } = await facebookGrant(world, 'Busy Florist')
    const since = Date.now()
    // Posts older than the attempt are left out by `since`: 1,200 of them do not trip the bound.
    seedMedia(ig.profile.profileId, 1200, since - 3 * 3600_000, 'Older post')
    seedMedia(ig.profile.profileId, 230, since + 1000)
    const from = world.sandbox.calls.length
    const req = request(ig.profile, ig.credentials, 'Older post 5', [world.src('photo.jpg')])
    expect(await lookupMatch(world.instagram)({ ...req, since })).toBeNull()
    expect(mediaLists(from)).toHaveLength(3)
  })

  it('throws rather than answer not found when 10 pages do not reach the attempt', async () => {
    const { ig } = await facebookGrant(world, 'Busy Cafe')
    const since = Date.now()
    seedMedia(ig.profile.profileId, 1005, since + 1000)
    const from = world.sandbox.calls.length
    const req = request(ig.profile, ig.credentials, 'Buried under a thousand posts', [world.src('photo.jpg')])
    const error = await lookupMatch(world.instagram)({ ...req, since }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PublishFailure)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    expect((error as PublishFailure).message).toMatch(/too many posts since the attempt/)
    expect(mediaLists(from)).toHaveLength(10)
  })
})
