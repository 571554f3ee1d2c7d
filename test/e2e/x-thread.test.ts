import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { backends } from '../helpers/backends.js'
import { diesBeforeItem, useChainRig } from '../helpers/chain-rig.js'

/**
 * Threads on X: a thread is a chain of posts, each `reply.in_reply_to_tweet_id` the one before, each sent
 * exactly once. Counted on the X simulator, never in Herald's rows.
 */
describe.each(backends)('an X thread ($name)', (backend) => {
  const rig = useChainRig(backend)
  let profileId = ''
  const X = '/sandbox/twitter'
  const tweets = async () =>
    (await rig.state(X, '/_sandbox/tweets')) as Array<{
      id: string
      text: string
      inReplyToId?: string
      conversationId: string
      mediaIds: string[]
    }>
  const thread = (tag: string) => [
    { content: `${tag} 2/ the second post, with a picture`, mediaUrls: [rig.imageUrl] },
    { content: `${tag} 3/ the third post` },
    { content: `${tag} 4/ the fourth post` },
  ]
  const create = async (content: string, items: Array<{ content: string; mediaUrls?: string[] }>) => {
    const { status, body } = await rig.h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', profileId }],
      thread: items,
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    return body.postIds[0] as string
  }
  /** The chain on X starting at the post with `text`: each reply's parent is the one before. */
  const chainFrom = async (text: string) => {
    const all = await tweets()
    const head = all.find((t) => t.text === text)
    const chain = head ? [head] : []
    for (;;) {
      const last = chain.at(-1)
      const next = all.filter((t) => last && t.inReplyToId === last.id)
      if (next.length !== 1) {
        expect(next.length).toBeLessThanOrEqual(1)
        return { chain, all }
      }
      chain.push(next[0]!)
    }
  }

  beforeAll(async () => {
    profileId = (
      await sandboxConnect(rig.h.app, {
        workspaceId: rig.h.workspaceId,
        network: 'twitter',
        username: 'threader',
      })
    ).profileId
  })

  it('publishes a 4-post thread with an image on post 2, each post replying to the one before, once', async () => {
    const id = await create('Thread A 1/ the first post', thread('Thread A'))
    await rig.drain()
    const post = await rig.post(id)
    expect(post.status).toBe('published')
    const [target] = post.targets
    expect(target.status).toBe('published')
    const { chain, all } = await chainFrom('Thread A 1/ the first post')
    expect(chain).toHaveLength(4)
    expect(all.filter((t) => t.text.startsWith('Thread A'))).toHaveLength(4)
    expect(chain[1]!.mediaIds).toHaveLength(1)
    expect(new Set(chain.map((t) => t.conversationId))).toEqual(new Set([chain[0]!.id]))
    expect(target.url).toBe(`${rig.h.baseUrl}/sandbox/twitter/web/threader/status/${chain[0]!.id}`)
    expect(target.items.map((i: { url: string }) => i.url)).toEqual(
      chain.slice(1).map((t) => `${rig.h.baseUrl}/sandbox/twitter/web/threader/status/${t.id}`),
    )
    expect(target.items.every((i: { status: string }) => i.status === 'published')).toBe(true)
  })

  it("item 3's answer is lost after X made it: the lookup under the thread finds it and nothing is sent twice", async () => {
    let replies = 0
    rig.fault((call) => call.operation === 'createPosts' && call.network === 'twitter' && ++replies === 3, {
      timing: 'after',
      answer: { kind: 'status', status: 503 },
    })
    const id = await create('Thread B 1/ the first post', thread('Thread B'))
    await rig.drain()
    expect(rig.unapplied()).toBe(0)
    const post = await rig.post(id)
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const { chain, all } = await chainFrom('Thread B 1/ the first post')
    expect(chain.map((t) => t.text)).toEqual([
      'Thread B 1/ the first post',
      expect.stringMatching(/^Thread B 2\/ the second post, with a picture/),
      'Thread B 3/ the third post',
      'Thread B 4/ the fourth post',
    ])
    expect(all.filter((t) => t.text.startsWith('Thread B'))).toHaveLength(4)
  })

  it('the worker killed after item 2 of 4: after reset and publish now, items 3 and 4 go out once, in order', async () => {
    const { status, body } = await rig.h.call('create_post', {
      content: 'Thread C 1/ the first post',
      targetAccounts: [{ platform: 'twitter', profileId }],
      thread: thread('Thread C'),
      scheduleDate: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '12:00',
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const id = body.postIds[0] as string
    // Posts 1 and 2 go out; the process dies as post 3 (item index 1) is about to be sent.
    await rig.sendAsCrashingWorker(id, diesBeforeItem(rig.h.app.adapters.twitter!, 1), 'doomed-worker')
    expect((await chainFrom('Thread C 1/ the first post')).chain).toHaveLength(2)
    // Partly delivered: the target stays pending (the post processing) with its post live and item 1 done.
    const partly = await rig.post(id)
    expect(partly.status).toBe('processing')
    expect(partly.targets[0]).toMatchObject({ status: 'pending', url: expect.stringMatching(/status\/\d+$/) })
    expect(partly.targets[0].items.map((i: { status: string }) => i.status)).toEqual([
      'published',
      'pending',
      'pending',
    ])
    await rig.leaseRunsOut(id)
    const reset = await rig.h.call('reset_stuck_post', { id })
    expect(reset.status, JSON.stringify(reset.body)).toBe(200)
    const again = await rig.h.call('publish_post_now', { id })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    await rig.drain()
    const post = await rig.post(id)
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const { chain, all } = await chainFrom('Thread C 1/ the first post')
    expect(chain).toHaveLength(4)
    expect(all.filter((t) => t.text.startsWith('Thread C'))).toHaveLength(4)
  })

  it('a chain whose post 3 X refuses stops there with posts 1-2 live; publish now after fixing it sends items 3-4 only', async () => {
    // X refuses the same copy twice from one account: post 4 repeats a post already on the profile.
    const items = [
      { content: 'Thread D 2/ the second post' },
      { content: 'Thread A 3/ the third post' },
      { content: 'Thread D 4/ the fourth post' },
    ]
    const id = await create('Thread D 1/ the first post', items)
    await rig.drain()
    const failed = await rig.post(id)
    expect(failed.status).toBe('failed')
    const [target] = failed.targets
    expect(target.status).toBe('failed')
    expect(target.error).toMatch(/thread post 3 of 4 was refused by twitter/)
    expect(target.items.map((i: { status: string }) => i.status)).toEqual(['published', 'failed', 'pending'])
    const live = await chainFrom('Thread D 1/ the first post')
    expect(live.chain).toHaveLength(2)
    expect(target.items[0].url).toBe(
      `${rig.h.baseUrl}/sandbox/twitter/web/threader/status/${live.chain[1]!.id}`,
    )
    expect(target.url).toBe(`${rig.h.baseUrl}/sandbox/twitter/web/threader/status/${live.chain[0]!.id}`)

    const fixed = [items[0]!, { content: 'Thread D 3/ the third post' }, items[2]!]
    const changedLive = await rig.h.call('update_post', {
      id,
      thread: [{ content: 'Thread D 2/ changed' }, ...fixed.slice(1)],
    })
    expect(changedLive.status).toBe(409)
    const update = await rig.h.call('update_post', { id, thread: fixed })
    expect(update.status, JSON.stringify(update.body)).toBe(200)
    const before = (await tweets()).length
    const again = await rig.h.call('publish_post_now', { id })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    // Two items still to go out on X: 2 x 5 credits.
    expect(again.body.credits.charged).toBe(10)
    await rig.drain()
    const post = await rig.post(id)
    expect(post.status).toBe('published')
    expect((await tweets()).length).toBe(before + 2)
    const { chain } = await chainFrom('Thread D 1/ the first post')
    expect(chain.map((t) => t.text)).toEqual([
      'Thread D 1/ the first post',
      'Thread D 2/ the second post',
      'Thread D 3/ the third post',
      'Thread D 4/ the fourth post',
    ])
  })
})
