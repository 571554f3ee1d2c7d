import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { keepingProgress } from '../helpers/hosted-media.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { request, startThreadsWorld, type ThreadsWorld, threadsGrant } from './threads-fixtures.js'

describe("looking for an unanswered Threads post on a busy profile (paging back through the profile's threads)", () => {
  let world: ThreadsWorld
  beforeAll(async () => {
    world = await startThreadsWorld()
  })
  afterAll(async () => {
    expect(world.sandbox.violations).toEqual([])
    await world.close()
  })

  /** Threads other attempts published on the profile, `at` onwards, a second apart (seeded). */
  function seedThreads(userId: string, count: number, at: number, text = 'Another post') {
    for (let i = 0; i < count; i++) {
      const id = world.sandbox.newId('17')
      world.sandbox.threads.set(id, {
        id,
        userId,
        text: `${text} ${i}`,
        mediaType: 'TEXT_POST',
        shortcode: `seed${id}`,
        children: [],
        createdAt: at + i * 1000,
      })
    }
  }
  const threadLists = (from: number) =>
    world.sandbox.calls.slice(from).filter((call) => call.method === 'GET' && call.path.endsWith('/threads'))

  it('finds the post when 250 newer posts pushed it to the third page', async () => {
    const grant = await threadsGrant(world, 'Busy Harbour')
    world.sandbox.failNext({ op: 'threads_publish', action: 'drop_after' })
    const since = Date.now()
    const { req, progress } = keepingProgress(
      request(grant.profile, grant.credentials, 'Lost publish answer', []),
    )
    const error = await world.threads.publish(req).catch((e: unknown) => e)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    seedThreads(grant.profile.profileId, 250, Date.now() + 1000)
    const from = world.sandbox.calls.length
    const found = await lookupMatch(world.threads)({ ...req, since, progress })
    expect(world.sandbox.threads.get(found!.remoteId)?.text).toBe('Lost publish answer')
    const lists = threadLists(from)
    expect(lists).toHaveLength(3)
    expect(lists[0]!.params.after).toBeUndefined()
    expect(Number(lists[0]!.params.since)).toBeLessThanOrEqual(Math.floor(since / 1000))
  })

  it('answers absent without reading when no container was recorded: the publish call comes after it', async () => {
    const grant = await threadsGrant(world, 'Busy Quay')
    const since = Date.now()
    seedThreads(grant.profile.profileId, 230, since + 1000)
    const from = world.sandbox.calls.length
    const req = request(grant.profile, grant.credentials, 'Another post 5', [])
    expect(await world.threads.findPublished!({ ...req, since })).toEqual({ kind: 'absent' })
    expect(threadLists(from)).toHaveLength(0)
  })

  /** An attempt whose publish went through with its answer lost: the container is PUBLISHED. */
  async function publishedContainer(name: string, copy: string) {
    const grant = await threadsGrant(world, name)
    world.sandbox.failNext({ op: 'threads_publish', action: 'drop_after' })
    const { req, progress } = keepingProgress(request(grant.profile, grant.credentials, copy, []))
    await world.threads.publish(req).catch(() => undefined)
    return { grant, req, progress }
  }

  it("reads every post since the attempt before saying a published container's post is not there yet", async () => {
    const { grant, req, progress } = await publishedContainer('Busy Pier', 'Published, then buried')
    // The attempt is taken as later than its post, so the post is outside the window.
    const since = Date.now() + 3 * 3600_000
    seedThreads(grant.profile.profileId, 230, since + 1000)
    const from = world.sandbox.calls.length
    const error = await world.threads.findPublished!({ ...req, since, progress }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PublishFailure)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    expect(threadLists(from)).toHaveLength(3)
  })

  it('is ambiguous rather than answer not found when 10 pages do not reach the attempt', async () => {
    const { grant, req, progress } = await publishedContainer('Busy Dock', 'Buried under a thousand posts')
    const since = Date.now()
    seedThreads(grant.profile.profileId, 1005, since + 1000)
    const from = world.sandbox.calls.length
    const answer = await world.threads.findPublished!({ ...req, since: since - 10_000, progress })
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    expect((answer as { reason: string }).reason).toMatch(
      /more posts since the attempt than Herald reads back/,
    )
    expect(threadLists(from)).toHaveLength(10)
  })
})
