import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ItemRequest, PublishFailure } from '../../src/adapters/adapter.js'
import { request, startThreadsWorld, type ThreadsWorld, threadsGrant } from './threads-fixtures.js'

/**
 * A Threads thread item (a reply) whose `threads_publish` answer was lost after Meta published it
 * (simulation seeds 145 and 213: a 429 after the effect). Whatever asks next, the lookup or a retry that
 * finds its saved container already `PUBLISHED`, the reply is found among the profile's own replies
 * (`GET /{user}/replies`, the reference's "list of all a user's replies"), never posted twice. Replies
 * counted on the Threads simulator.
 */
describe('a Threads reply whose publish answer was lost', () => {
  let world: ThreadsWorld
  beforeAll(async () => {
    world = await startThreadsWorld()
  })
  afterAll(async () => {
    expect(world.sandbox.violations).toEqual([])
    await world.close()
  })

  /** A profile's post, and an item replying to it whose threads_publish answered 429 after publishing. */
  async function lostReply(name: string, copy: string) {
    const grant = await threadsGrant(world, name)
    const head = await world.threads.publish(
      request(grant.profile, grant.credentials, `${copy}: the post`, []),
    )
    const progress: Record<string, string> = {}
    const item: ItemRequest = {
      targetId: 'target-1',
      index: 0,
      role: 'thread',
      profile: grant.profile,
      credentials: grant.credentials,
      content: copy,
      mediaUrls: [],
      root: head,
      parent: head,
      signal: new AbortController().signal,
      saveProgress: async (entries) => {
        Object.assign(progress, entries)
      },
    }
    const since = world.now()
    world.sandbox.failNext({ op: 'threads_publish', action: 'error_after', status: 429, code: 4 })
    const error = await world.threads.publishItem!(item).catch((e: unknown) => e)
    expect((error as PublishFailure).kind).toBe('rate_limited')
    const replies = () => [...world.sandbox.threads.values()].filter((t) => t.text === copy)
    expect(replies()).toHaveLength(1)
    expect(replies()[0]?.replyToId).toBe(head.remoteId)
    return { grant, head, item: { ...item, progress: { ...progress } }, since, replies }
  }

  it('a retry that finds the saved container published finds the reply, and posts nothing', async () => {
    const { item, replies } = await lostReply('Reply Harbour', 'Second post of the thread')
    const result = await world.threads.publishItem!(item)
    expect(replies()).toHaveLength(1)
    expect(result.remoteId).toBe(replies()[0]?.id)
  })

  it("the lookup pages back through the profile's replies since the call, newer replies to other posts first", async () => {
    const { grant, head, item, since, replies } = await lostReply('Reply Quay', 'Buried under later replies')
    // 150 later replies of the same profile, to its post: more than a page of replies.
    for (let i = 0; i < 150; i++) {
      const id = world.sandbox.newId('18')
      world.sandbox.threads.set(id, {
        id,
        userId: grant.profile.profileId,
        text: `A later reply ${i}`,
        mediaType: 'TEXT_POST',
        shortcode: `later${id}`,
        children: [],
        createdAt: world.now() + 1000 + i,
        replyToId: head.remoteId,
      })
    }
    const answer = await world.threads.findItem!({ ...item, since, excludeRemoteIds: [] })
    expect(answer).toEqual({ kind: 'found', result: expect.objectContaining({ remoteId: replies()[0]?.id }) })
    expect(replies()).toHaveLength(1)
  })
})
