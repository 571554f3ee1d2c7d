import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
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

  it('answers absent without reading when no container was recorded: the publish call comes after it', async () => {
    const { ig: grant } = await facebookGrant(world, 'Busy Quay')
    const since = Date.now()
    seedMedia(grant.profile.profileId, 230, since + 1000)
    const from = world.sandbox.calls.length
    const req = request(grant.profile, grant.credentials, 'Another post 5', [world.src('photo.jpg')])
    expect(await world.instagram.findPublished!({ ...req, since })).toEqual({ kind: 'absent' })
    expect(mediaLists(from)).toHaveLength(0)
  })

  /** An attempt whose publish went through with its answer lost: the container is PUBLISHED. */
  async function publishedContainer(name: string, copy: string) {
    const { ig: grant } = await facebookGrant(world, name)
    world.sandbox.failNext({ op: 'media_publish', action: 'drop_after' })
    const { req, progress } = keepingProgress(
      request(grant.profile, grant.credentials, copy, [world.src('photo.jpg')]),
    )
    await world.instagram.publish(req).catch(() => undefined)
    return { grant, req, progress }
  }

  it("reads every post since the attempt before saying a published container's post is not there yet", async () => {
    const { grant, req, progress } = await publishedContainer('Busy Pier', 'Published, then buried')
    // The attempt is taken as later than its post, so the post is outside the window.
    const since = Date.now() + 3 * 3600_000
    seedMedia(grant.profile.profileId, 230, since + 1000)
    const from = world.sandbox.calls.length
    const error = await world.instagram.findPublished!({ ...req, since, progress }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PublishFailure)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    expect(mediaLists(from)).toHaveLength(3)
  })

  it('is ambiguous rather than answer not found when 10 pages do not reach the attempt', async () => {
    const { grant, req, progress } = await publishedContainer('Busy Dock', 'Buried under a thousand posts')
    const since = Date.now()
    seedMedia(grant.profile.profileId, 1005, since + 1000)
    const from = world.sandbox.calls.length
    const answer = await world.instagram.findPublished!({ ...req, since: since - 10_000, progress })
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    expect((answer as { reason: string }).reason).toMatch(
      /more posts since the attempt than Herald reads back/,
    )
    expect(mediaLists(from)).toHaveLength(10)
  })
})
