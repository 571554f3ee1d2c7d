import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { backends } from '../helpers/backends.js'
import { useChainRig } from '../helpers/chain-rig.js'

/**
 * The worker's lookups after an unanswered call, on profiles whose pages do not say much: a busy X
 * profile whose newest posts all belong to other conversations, a Page whose first page Graph answers
 * empty with a cursor. Counted on the simulators, never in Herald's rows: what the network holds and how
 * many publishing calls reached it.
 */
describe.each(backends)('lookups that page past what does not match ($name)', (backend) => {
  const rig = useChainRig(backend)
  let xProfile = ''
  let page = ''

  beforeAll(async () => {
    const connect = async (network: 'twitter' | 'facebook', username: string) =>
      (await sandboxConnect(rig.h.app, { workspaceId: rig.h.workspaceId, network, username })).profileId
    xProfile = await connect('twitter', 'busybee')
    page = await connect('facebook', 'Filtered Bakery')
  })

  const x = () => rig.h.sandboxes!.twitter
  const createPosts = () =>
    rig.calls.filter((call) => call.network === 'twitter' && call.operation === 'createPosts')

  it('an X reply whose answer was lost is found under 120 newer posts of other conversations, and sent once', async () => {
    const before = createPosts().length
    let calls = 0
    // The post goes out; the reply is made, then its answer is lost.
    rig.fault((call) => call.operation === 'createPosts' && ++calls === 2, {
      timing: 'after',
      answer: { kind: 'status', status: 503 },
    })
    // Before the lookup reads the profile, it posts 120 times on X itself: a whole first page of posts that
    // are not replies in this thread.
    rig.meanwhile(
      (call) => call.operation === 'getUsersPosts',
      () => {
        for (let i = 0; i < 120; i++) x().postOnX({ username: 'busybee', text: `Busy on X, post ${i}` })
      },
    )
    const { status, body } = await rig.h.call('create_post', {
      content: 'Busy 1/ the first post',
      targetAccounts: [{ platform: 'twitter', profileId: xProfile }],
      thread: [{ content: 'Busy 2/ the reply whose answer was lost' }],
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    await rig.drain()
    expect(rig.unapplied()).toBe(0)
    // The post and the reply, one call each: a second reply was never attempted (X's own duplicate check
    // is no safety net, it does not catch every repeat).
    expect(createPosts().length - before).toBe(2)
    const replies = x()
      .tweets()
      .filter((tweet) => tweet.text === 'Busy 2/ the reply whose answer was lost')
    expect(replies).toHaveLength(1)
    const post = await rig.post(body.postIds[0])
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    expect(post.targets[0].items[0].url).toBe(
      `${rig.h.baseUrl}/sandbox/twitter/web/busybee/status/${replies[0]!.id}`,
    )
  })

  it('a Page post whose answer was lost is found behind an empty page with a cursor, and posted once', async () => {
    const feed = () => rig.calls.filter((call) => call.network === 'facebook' && call.operation === 'feed')
    const before = feed().length
    rig.fault((call) => call.network === 'facebook' && call.operation === 'feed', {
      timing: 'after',
      answer: { kind: 'status', status: 500 },
    })
    // Graph answers the lookup's first page empty, with a cursor to the rest, as it does when it filters.
    rig.shortPages((call) => call.network === 'facebook' && call.operation === 'published_posts', 0)
    const content = 'Fresh rye today, behind a filtered page'
    const { status, body } = await rig.h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'facebook', profileId: page }],
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    await rig.drain()
    expect(rig.unapplied()).toBe(0)
    expect(feed().length - before).toBe(1)
    const held = [...rig.h.sandboxes!.meta.posts.values()].filter((post) => post.message === content)
    expect(held).toHaveLength(1)
    const post = await rig.post(body.postIds[0])
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    expect(post.targets[0].postId).toBe(held[0]!.id)
  })
})
