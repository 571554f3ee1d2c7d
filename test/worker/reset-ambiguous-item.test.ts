import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { backends } from '../helpers/backends.js'
import { useChainRig } from '../helpers/chain-rig.js'

/**
 * A thread item whose call went unanswered and whose lookup cannot decide (X's timeline answers empty
 * pages with a cursor past the lookup's budget) leaves the post stuck for a person. Only they can tell, so
 * a reset waits for their word: not there, publish_post_now sends it once (instead of looking again,
 * deciding nothing again, and leaving the post stuck after every try); there, it is recorded under the id
 * they saw and nothing is sent. Counted on the X simulator.
 */
describe.each(backends)('a reset after an item lookup that could not decide ($name)', (backend) => {
  const rig = useChainRig(backend)
  let profileId = ''
  beforeAll(async () => {
    profileId = (
      await sandboxConnect(rig.h.app, {
        workspaceId: rig.h.workspaceId,
        network: 'twitter',
        username: 'undecided',
      })
    ).profileId
  })

  const createPosts = () =>
    rig.calls.filter((call) => call.network === 'twitter' && call.operation === 'createPosts')
  const copies = (text: string) => rig.h.sandboxes!.twitter.tweets().filter((tweet) => tweet.text === text)

  it('lets publish_post_now send the item once, and never the post again', async () => {
    const reply = 'Undecided 2/ the reply X never made'
    let creates = 0
    // The post goes out; the reply's call is refused before X makes it, with a 503 Herald cannot tell apart.
    rig.fault((call) => call.operation === 'createPosts' && ++creates === 2, {
      timing: 'before',
      answer: { kind: 'status', status: 503 },
    })
    // Every timeline page the lookups read comes back empty with a cursor to more.
    rig.shortPages((call) => call.operation === 'getUsersPosts', 0, Number.POSITIVE_INFINITY)
    const { status, body } = await rig.h.call('create_post', {
      content: 'Undecided 1/ the first post',
      targetAccounts: [{ platform: 'twitter', profileId }],
      thread: [{ content: reply }],
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const id = body.postIds[0] as string
    await rig.drain()
    const stuck = await rig.post(id)
    expect(stuck.status).toBe('processing')
    expect(stuck.targets[0].error).toMatch(/cannot tell whether the unanswered attempt went out/)
    expect(copies(reply)).toHaveLength(0)
    expect(createPosts()).toHaveLength(2)

    // Herald cannot tell, so a reset without the person's word changes nothing and says what to check.
    const unsure = await rig.h.call('reset_stuck_post', { id })
    expect(unsure.status, JSON.stringify(unsure.body)).toBe(409)
    expect(unsure.body.error.message).toMatch(
      /could not tell whether X @undecided holds this post.*onNetwork/,
    )
    expect((await rig.post(id)).status).toBe('processing')
    // The person checked the profile: the reply is not there. They say so and publish it now.
    const reset = await rig.h.call('reset_stuck_post', { id, onNetwork: false })
    expect(reset.status, JSON.stringify(reset.body)).toBe(200)
    const again = await rig.h.call('publish_post_now', { id })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    await rig.drain()

    expect(createPosts()).toHaveLength(3)
    expect(copies('Undecided 1/ the first post')).toHaveLength(1)
    expect(copies(reply)).toHaveLength(1)
    const post = await rig.post(id)
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    expect(post.targets[0].items[0]).toMatchObject({
      status: 'published',
      url: expect.stringContaining(copies(reply)[0]!.id),
    })
  })

  it('records the item the person saw under the id they give, and sends nothing again', async () => {
    const reply = 'Seen 2/ the reply X made but did not confirm'
    let creates = 0
    // The post goes out; X makes the reply, then answers 503: Herald cannot tell it went out.
    rig.fault((call) => call.operation === 'createPosts' && ++creates === 2, {
      timing: 'after',
      answer: { kind: 'status', status: 503 },
    })
    rig.shortPages((call) => call.operation === 'getUsersPosts', 0, Number.POSITIVE_INFINITY)
    const { body } = await rig.h.call('create_post', {
      content: 'Seen 1/ the first post',
      targetAccounts: [{ platform: 'twitter', profileId }],
      thread: [{ content: reply }],
      publishImmediately: true,
    })
    const id = body.postIds[0] as string
    await rig.drain()
    expect(copies(reply)).toHaveLength(1)
    const sent = createPosts().length

    const seen = copies(reply)[0]!
    const missingId = await rig.h.call('reset_stuck_post', { id, onNetwork: true })
    expect(missingId.status).toBe(400)
    const reset = await rig.h.call('reset_stuck_post', { id, onNetwork: true, postId: seen.id })
    expect(reset.status, JSON.stringify(reset.body)).toBe(200)
    await rig.drain()

    expect(createPosts()).toHaveLength(sent)
    expect(copies(reply)).toHaveLength(1)
    const post = await rig.post(id)
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    expect(post.targets[0].items[0]).toMatchObject({ status: 'published', postId: seen.id })
  })
})
