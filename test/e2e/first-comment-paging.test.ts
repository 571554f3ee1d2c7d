import { beforeAll, describe, expect, it } from 'vitest'
import { LOOKUP_MAX_PAGES } from '../../src/adapters/lookup-scan.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { useChainRig } from '../helpers/chain-rig.js'

/**
 * A first comment whose answer was lost is looked up among its post's comments before it is sent
 * again. Between the lost answer and the lookup, others comment on the post, so many that Herald's comment
 * is no longer on the first page the network lists. The oracle is what each simulator holds.
 */

type Network = 'facebook' | 'instagram' | 'linkedin' | 'youtube'

/** What each network's first page holds when Herald asks (Graph's default 25, Herald's 100 elsewhere). */
const PAGE = { facebook: 25, instagram: 25, linkedin: 100, youtube: 100 } as const

const graphComments = (network: 'facebook' | 'instagram', method: 'GET' | 'POST') => (call: SimulatedCall) =>
  call.network === network && call.operation === 'comments' && call.method === method

/** The comment call, and the lookup's listing of comments, on each simulator. */
const COMMENT_CALL: Record<Network, (call: SimulatedCall) => boolean> = {
  facebook: graphComments('facebook', 'POST'),
  instagram: graphComments('instagram', 'POST'),
  linkedin: (call) => call.network === 'linkedin' && call.operation === 'comments.create',
  youtube: (call) => call.network === 'youtube' && call.operation === 'commentThreads.insert',
}
const LISTING_CALL: Record<Network, (call: SimulatedCall) => boolean> = {
  facebook: graphComments('facebook', 'GET'),
  instagram: graphComments('instagram', 'GET'),
  linkedin: (call) => call.network === 'linkedin' && call.operation === 'comments.list',
  youtube: (call) => call.network === 'youtube' && call.operation === 'commentThreads.list',
}

describe('a first comment looked up on a post with more comments than one page', () => {
  const rig = useChainRig()
  const profiles: Partial<Record<Network, string>> = {}

  beforeAll(async () => {
    for (const [network, username] of [
      ['facebook', 'Paging Cafe'],
      ['instagram', 'paging.cafe'],
      ['linkedin', 'Paging Member'],
      ['youtube', 'paging.creator@example.com'],
    ] as const) {
      const { profileId } = await sandboxConnect(rig.h.app, {
        workspaceId: rig.h.workspaceId,
        network,
        username,
      })
      profiles[network] = profileId
    }
  })

  /** The comments on the simulator with `text`, and the object each is on. */
  const held = (network: Network, text: string): Array<{ id: string; on: string }> => {
    const s = rig.h.sandboxes!
    if (network === 'linkedin')
      return [...s.linkedin.comments.values()]
        .filter((c) => c.text === text)
        .map((c) => ({ id: c.urn, on: c.object }))
    if (network === 'youtube')
      return [...s.youtube.comments.values()]
        .filter((c) => c.text === text)
        .map((c) => ({ id: c.id, on: c.videoId }))
    return [...s.meta.comments.values()]
      .filter((c) => c.network === network && c.message === text)
      .map((c) => ({ id: c.id, on: c.objectId }))
  }

  /** `count` people comment on the object Herald's comment `text` is on, each after the one before. */
  const othersComment = (network: Network, text: string, count: number) => {
    const s = rig.h.sandboxes!
    const [ours] = held(network, text)
    if (!ours) throw new Error(`no ${network} comment "${text}" to comment after`)
    for (let i = 1; i <= count; i++) {
      const words = `Someone else's comment ${i}`
      if (network === 'linkedin') {
        const id = s.linkedin.nextId()
        const urn = `urn:li:comment:(${ours.on},${id})`
        const createdAt = s.linkedin.now() + i
        s.linkedin.comments.set(urn, {
          id,
          urn,
          object: ours.on,
          actor: `urn:li:person:other${i}`,
          text: words,
          createdAt,
        })
      } else if (network === 'youtube') {
        const id = `UgzOther${i}_${ours.on}`
        s.youtube.comments.set(id, {
          id,
          videoId: ours.on,
          channelId: `UCother${i}`,
          text: words,
          publishedAt: new Date(s.youtube.clock.now() + i).toISOString(),
        })
      } else {
        const id = `other_${i}_${ours.on}`
        s.meta.comments.set(id, {
          id,
          objectId: ours.on,
          network,
          fromId: `other${i}`,
          message: words,
          createdAt: s.meta.now() + i,
        })
      }
    }
  }

  /** Publishes a post with a first comment whose answer is lost after the network made it. */
  const publishLosingTheComment = async (network: Network, comment: string, othersMeanwhile: number) => {
    rig.fault(COMMENT_CALL[network], { timing: 'after', answer: { kind: 'reset' } })
    rig.meanwhile(LISTING_CALL[network], () => othersComment(network, comment, othersMeanwhile))
    const media =
      network === 'youtube'
        ? { mediaUrl: rig.videoUrl }
        : network === 'instagram'
          ? { mediaUrls: [rig.imageUrl] }
          : {}
    const { status, body } = await rig.h.call('create_post', {
      content: `Paging ${network} ${othersMeanwhile}`,
      ...media,
      targetAccounts: [{ platform: network, profileId: profiles[network] }],
      firstComment: comment,
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    await rig.drain()
    expect(rig.unapplied()).toBe(0)
    return rig.post(body.postIds[0] as string)
  }

  it.each(['facebook', 'instagram', 'linkedin', 'youtube'] as const)(
    'on %s, a lost comment pushed past the first page by newer ones is found on a later page, and not sent again',
    async (network) => {
      const comment = `Order the ${network} loaf before noon`
      const post = await publishLosingTheComment(network, comment, PAGE[network] + 10)
      expect(post.status, JSON.stringify(post.targets)).toBe('published')
      const copies = held(network, comment)
      expect(copies).toHaveLength(1)
      expect(post.targets[0].items[0]).toMatchObject({ status: 'published', postId: copies[0]!.id })
    },
  )

  it.each(['facebook', 'instagram', 'linkedin', 'youtube'] as const)(
    'on %s, a lost comment beyond the pages Herald reads leaves the post stuck with the reason, never sent again',
    async (network) => {
      const comment = `Ask the ${network} baker about rye`
      const post = await publishLosingTheComment(network, comment, PAGE[network] * LOOKUP_MAX_PAGES)
      expect(held(network, comment)).toHaveLength(1)
      const [target] = post.targets
      expect(post.status, JSON.stringify(post.targets)).not.toBe('published')
      expect(target.items[0]).toMatchObject({ status: 'pending' })
      const row = await rig.h.app.store.db
        .selectFrom('targets')
        .select(['stuck_reason'])
        .where('post_id', '=', post.id)
        .executeTakeFirstOrThrow()
      expect(row.stuck_reason).toBe('ambiguous')
      expect(target.error).toContain(
        `more than Herald reads back (${PAGE[network] * LOOKUP_MAX_PAGES} read in ${LOOKUP_MAX_PAGES} pages`,
      )
    },
  )
})
