import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { diesBeforeItem, useChainRig } from '../helpers/chain-rig.js'

/**
 * Threads and first comments end to end in sandbox mode: threads on Bluesky and Threads, and first comments
 * on every network that takes them, each counted on its simulator with the parent it answers.
 */
describe('threads and first comments on every network', () => {
  const rig = useChainRig()
  const profiles: Record<string, string> = {}
  const connect = async (network: string, username: string, organization = false) => {
    const { profileId } = await sandboxConnect(rig.h.app, {
      workspaceId: rig.h.workspaceId,
      network,
      username,
      ...(organization ? { organization } : {}),
    })
    profiles[`${network}${organization ? ':page' : ''}`] = profileId
    return profileId
  }
  const thread = (tag: string) => [
    { content: `${tag} 2/ with a picture`, mediaUrls: [rig.imageUrl] },
    { content: `${tag} 3/ the third` },
    { content: `${tag} 4/ the last` },
  ]
  const publish = async (input: Record<string, unknown>) => {
    const { status, body } = await rig.h.call('create_post', { ...input, publishImmediately: true })
    expect(status, JSON.stringify(body)).toBe(200)
    await rig.drain()
    return Promise.all((body.postIds as string[]).map((id) => rig.post(id)))
  }

  beforeAll(async () => {
    await connect('bluesky', 'chain.bsky')
    await connect('threads', 'chain.threads')
    await connect('facebook', 'Chain Cafe')
    await connect('instagram', 'chain.cafe')
    await connect('linkedin', 'Chain Member')
    await connect('linkedin', 'Chain Member', true)
    await connect('youtube', 'chain.creator@example.com')
  })

  it('a Bluesky thread of 4 posts: each reply names the first post as root and the one before as parent', async () => {
    const [post] = await publish({
      content: 'Sky thread 1/ the first',
      targetAccounts: [{ platform: 'bluesky', profileId: profiles.bluesky }],
      thread: thread('Sky thread'),
    })
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const state = await rig.state('/sandbox/bluesky')
    const posts = (state.records as Array<{ uri: string; cid: string; value: any }>).filter((r) =>
      String(r.value.text).startsWith('Sky thread'),
    )
    expect(posts).toHaveLength(4)
    const [first, ...replies] = ['1/', '2/', '3/', '4/'].map(
      (n) => posts.find((r) => r.value.text.startsWith(`Sky thread ${n}`))!,
    )
    expect(first!.value.reply).toBeUndefined()
    let parent = first!
    for (const reply of replies) {
      expect(reply!.value.reply).toEqual({
        root: { uri: first!.uri, cid: first!.cid },
        parent: { uri: parent.uri, cid: parent.cid },
      })
      parent = reply!
    }
    expect(replies[0]!.value.embed.$type).toBe('app.bsky.embed.images')
    expect(post.targets[0].items.map((i: { postId: string }) => i.postId)).toEqual(replies.map((r) => r!.uri))
    expect(state.violations).toEqual([])
  })

  it("a Bluesky item's answer lost after the PDS wrote it: its record key finds it, one reply", async () => {
    let writes = 0
    rig.fault(
      (call) =>
        call.network === 'bluesky' && call.operation === 'com.atproto.repo.createRecord' && ++writes === 3,
      { timing: 'after', answer: { kind: 'reset' } },
    )
    const [post] = await publish({
      content: 'Sky lost 1/ the first',
      targetAccounts: [{ platform: 'bluesky', profileId: profiles.bluesky }],
      thread: thread('Sky lost'),
    })
    expect(rig.unapplied()).toBe(0)
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const state = await rig.state('/sandbox/bluesky')
    expect(
      (state.records as Array<{ value: any }>).filter((r) => String(r.value.text).startsWith('Sky lost')),
    ).toHaveLength(4)
  })

  it('a Threads thread of 4 posts: each container names the post before as reply_to_id, one thread each', async () => {
    const [post] = await publish({
      content: 'Meta thread 1/ the first',
      targetAccounts: [{ platform: 'threads', profileId: profiles.threads }],
      thread: thread('Meta thread'),
    })
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const state = await rig.state('/sandbox/threads')
    const posts = (
      state.threads as Array<{ id: string; text: string; replyToId?: string; mediaType: string }>
    ).filter((t) => t.text.startsWith('Meta thread'))
    expect(posts).toHaveLength(4)
    const byNumber = ['1/', '2/', '3/', '4/'].map(
      (n) => posts.find((t) => t.text.startsWith(`Meta thread ${n}`))!,
    )
    expect(byNumber[0]!.replyToId).toBeUndefined()
    for (let i = 1; i < 4; i++) expect(byNumber[i]!.replyToId).toBe(byNumber[i - 1]!.id)
    expect(byNumber[1]!.mediaType).toBe('IMAGE')
    expect(post.targets[0].items.map((i: { postId: string }) => i.postId)).toEqual(
      byNumber.slice(1).map((t) => t.id),
    )
    expect(state.violations ?? []).toEqual([])
  })

  it("a Threads item's threads_publish answer lost after it went out: found among the parent's replies, once", async () => {
    let publishes = 0
    rig.fault(
      (call) => call.network === 'threads' && call.operation === 'threads_publish' && ++publishes === 3,
      { timing: 'after', answer: { kind: 'status', status: 500 } },
    )
    const [post] = await publish({
      content: 'Meta lost 1/ the first',
      targetAccounts: [{ platform: 'threads', profileId: profiles.threads }],
      thread: thread('Meta lost'),
    })
    expect(rig.unapplied()).toBe(0)
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const state = await rig.state('/sandbox/threads')
    expect(
      (state.threads as Array<{ text: string }>).filter((t) => t.text.startsWith('Meta lost')),
    ).toHaveLength(4)
  })

  it('a first comment on Facebook and Instagram: one comment on each published post, as the Page and the account', async () => {
    const posts = await publish({
      content: 'New pastries today',
      mediaUrls: [rig.imageUrl],
      targetAccounts: [
        { platform: 'facebook', profileId: profiles.facebook },
        { platform: 'instagram', profileId: profiles.instagram },
      ],
      firstComment: 'Order ahead: https://example.com/order',
    })
    const state = await rig.state('/sandbox/meta')
    for (const post of posts) {
      expect(post.status, JSON.stringify(post.targets)).toBe('published')
      const [target] = post.targets
      expect(target.items).toHaveLength(1)
      expect(target.items[0]).toMatchObject({ kind: 'firstComment', status: 'published' })
      const comments = (
        state.comments as Array<{ id: string; objectId: string; message: string; fromId: string }>
      ).filter((c) => c.objectId === target.postId)
      expect(comments).toEqual([
        expect.objectContaining({
          id: target.items[0].postId,
          message: 'Order ahead: https://example.com/order',
          fromId: target.profileId,
        }),
      ])
    }
    expect(state.violations).toEqual([])
  })

  it("a Facebook first comment's answer lost after Facebook made it: found among the post's comments, once", async () => {
    rig.fault((call) => call.network === 'facebook' && call.operation === 'comments', {
      timing: 'after',
      answer: { kind: 'reset' },
    })
    const [post] = await publish({
      content: 'Closed on Monday',
      targetAccounts: [{ platform: 'facebook', profileId: profiles.facebook }],
      firstComment: 'Open again on Tuesday at 8',
    })
    expect(rig.unapplied()).toBe(0)
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const state = await rig.state('/sandbox/meta')
    expect(
      (state.comments as Array<{ message: string }>).filter(
        (c) => c.message === 'Open again on Tuesday at 8',
      ),
    ).toHaveLength(1)
  })

  it('a first comment on LinkedIn as the member and as the page: each on its own post, by its own actor', async () => {
    const posts = await publish({
      content: 'We are hiring bakers',
      targetAccounts: [
        { platform: 'linkedin', profileId: profiles.linkedin },
        { platform: 'linkedin', profileId: profiles['linkedin:page'] },
      ],
      firstComment: 'Apply here: https://example.com/jobs',
    })
    const state = await rig.state('/sandbox/linkedin')
    const actors = []
    for (const post of posts) {
      expect(post.status, JSON.stringify(post.targets)).toBe('published')
      const [target] = post.targets
      const comments = (
        state.comments as Array<{ urn: string; object: string; actor: string; text: string }>
      ).filter((c) => c.object === target.postId)
      expect(comments).toHaveLength(1)
      expect(comments[0]).toMatchObject({
        text: 'Apply here: https://example.com/jobs',
        urn: target.items[0].postId,
      })
      const author = (state.posts as Array<{ id: string; author: string }>).find(
        (p) => p.id === target.postId,
      )?.author
      expect(comments[0]!.actor).toBe(author)
      actors.push(author)
    }
    expect(actors.map((a) => a?.split(':')[2]).sort()).toEqual(['organization', 'person'])
    expect(state.violations).toEqual([])
  })

  it('a LinkedIn first comment answered 429 after LinkedIn made it: looked up before sending again, one comment', async () => {
    rig.fault((call) => call.network === 'linkedin' && call.operation === 'comments.create', {
      timing: 'after',
      answer: { kind: 'status', status: 429 },
    })
    const [throttled] = await publish({
      content: 'Ovens are warm',
      targetAccounts: [{ platform: 'linkedin', profileId: profiles.linkedin }],
      firstComment: 'Fresh rolls at 7',
    })
    expect(rig.unapplied()).toBe(0)
    // LinkedIn gives no reset for a 429: Herald waits until midnight UTC. Midnight comes.
    await rig.h.app.store.db.updateTable('connections').set({ throttled_until: null }).execute()
    await rig.h.app.store.db
      .updateTable('targets')
      .set({ run_at: Date.now() })
      .where('post_id', '=', throttled.id)
      .execute()
    await rig.drain()
    const post = await rig.post(throttled.id)
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const state = await rig.state('/sandbox/linkedin')
    const comments = (state.comments as Array<{ urn: string; text: string }>).filter(
      (c) => c.text === 'Fresh rolls at 7',
    )
    expect(comments).toHaveLength(1)
    expect(post.targets[0].items[0].postId).toBe(comments[0]!.urn)
  })

  it('a first comment on YouTube: one comment thread on the uploaded Short, by the channel', async () => {
    const [post] = await publish({
      content: 'Bread in 9 seconds',
      mediaUrl: rig.videoUrl,
      targetAccounts: [{ platform: 'youtube', profileId: profiles.youtube }],
      firstComment: 'Recipe: https://example.com/bread',
    })
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const [target] = post.targets
    const state = await rig.state('/sandbox/youtube')
    const comments = (
      state.comments as Array<{ id: string; videoId: string; channelId: string; text: string }>
    ).filter((c) => c.videoId === target.postId)
    expect(comments).toEqual([
      expect.objectContaining({
        id: target.items[0].postId,
        channelId: target.profileId,
        text: 'Recipe: https://example.com/bread',
      }),
    ])
    expect(target.items[0].url).toContain(`lc=${target.items[0].postId}`)
  })

  it.each([
    ['bluesky', 'Sky crash', '/sandbox/bluesky'],
    ['threads', 'Meta crash', '/sandbox/threads'],
  ])(
    'the worker killed before item 3 of a %s thread: reset and publish now finish it, 4 posts, none twice',
    async (network, tag, prefix) => {
      const { status, body } = await rig.h.call('create_post', {
        content: `${tag} 1/ the first`,
        targetAccounts: [{ platform: network, profileId: profiles[network] }],
        thread: thread(tag),
        scheduleDate: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
        scheduleTime: '12:00',
      })
      expect(status, JSON.stringify(body)).toBe(200)
      const id = body.postIds[0] as string
      const adapter = rig.h.app.adapters[network as 'bluesky' | 'threads']!
      await rig.sendAsCrashingWorker(id, diesBeforeItem(adapter, 1), `doomed-${network}`)
      await rig.leaseRunsOut(id)
      expect((await rig.h.call('reset_stuck_post', { id })).status).toBe(200)
      expect((await rig.h.call('publish_post_now', { id })).status).toBe(200)
      await rig.drain()
      const post = await rig.post(id)
      expect(post.status, JSON.stringify(post.targets)).toBe('published')
      const state = await rig.state(prefix)
      const texts =
        network === 'bluesky'
          ? (state.records as Array<{ value: { text?: string } }>).map((r) => String(r.value.text ?? ''))
          : (state.threads as Array<{ text: string }>).map((t) => t.text)
      expect(texts.filter((t) => t.startsWith(tag)).sort()).toEqual([
        `${tag} 1/ the first`,
        `${tag} 2/ with a picture`,
        `${tag} 3/ the third`,
        `${tag} 4/ the last`,
      ])
    },
  )
})
