import { beforeAll, describe, expect, it } from 'vitest'
import type { Network } from '../../src/core/networks.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { useChainRig } from '../helpers/chain-rig.js'

/**
 * Alt text per image reaches each network that takes one, as the network's own state holds it: X's media
 * metadata, Bluesky's images embed, LinkedIn's image references, Instagram's and Threads' image containers
 * and Facebook's photos, for one image and for a set of two; the simulator's page of the post shows it.
 */

const ALT_A = 'A lemon cake on a blue plate, one slice cut'
const ALT_B = 'The bakery counter at 7 in the morning'

interface Case {
  network: Network
  username: string
  organization?: boolean
  /** The alt texts the network's simulator holds for the post's images, in order. */
  held(state: any, post: { targets: Array<{ postId: string }> }): Array<string | undefined>
}

const tweetMedia = async (rig: ReturnType<typeof useChainRig>, tweetId: string) => {
  const tweets = (await rig.state('/sandbox/twitter', '/_sandbox/tweets')) as Array<{
    id: string
    mediaIds: string[]
  }>
  const media = (await rig.state('/sandbox/twitter', '/_sandbox/media')) as Array<{
    id: string
    altText?: string
  }>
  const tweet = tweets.find((t) => t.id === tweetId)
  return (tweet?.mediaIds ?? []).map((id) => media.find((m) => m.id === id)?.altText)
}

const CASES: Case[] = [
  {
    network: 'bluesky',
    username: 'alts.sky',
    held: (state, post) => {
      const record = state.records.find((r: any) => r.uri === post.targets[0]!.postId)
      return record.value.embed.images.map((image: { alt: string }) => image.alt || undefined)
    },
  },
  {
    network: 'linkedin',
    username: 'Alt Member',
    organization: true,
    held: (state, post) => {
      const found = state.posts.find((p: any) => p.id === post.targets[0]!.postId)
      const content = found.content
      const refs = content.multiImage ? content.multiImage.images : [content.media]
      return refs.map((ref: { altText?: string }) => ref.altText)
    },
  },
  {
    network: 'facebook',
    username: 'Alt Cafe',
    held: (state, post) => {
      const found = state.posts.find((p: any) => p.id === post.targets[0]!.postId)
      return found.attachedMedia.map((id: string) => state.photos.find((p: any) => p.id === id)?.altText)
    },
  },
  {
    network: 'instagram',
    username: 'alt.cafe',
    held: (state, post) => {
      const media = state.media.find((m: any) => m.id === post.targets[0]!.postId)
      const items =
        media.children.length > 0
          ? media.children.map((id: string) => state.containers.find((c: any) => c.id === id))
          : [state.containers.find((c: any) => c.mediaId === media.id)]
      return items.map((c: { altText?: string }) => c.altText)
    },
  },
  {
    network: 'threads',
    username: 'alt.threads',
    held: (state, post) => {
      const thread = state.threads.find((t: any) => t.id === post.targets[0]!.postId)
      const items =
        thread.children.length > 0
          ? thread.children.map((id: string) => state.containers.find((c: any) => c.id === id))
          : [state.containers.find((c: any) => c.threadId === thread.id)]
      return items.map((c: { altText?: string }) => c.altText)
    },
  },
]

const prefixOf: Partial<Record<Network, string>> = {
  bluesky: '/sandbox/bluesky',
  linkedin: '/sandbox/linkedin',
  facebook: '/sandbox/meta',
  instagram: '/sandbox/meta',
  threads: '/sandbox/threads',
}

describe('alt text per image reaches the networks', () => {
  const rig = useChainRig()
  const profiles = new Map<Network, string>()
  const second = () => `${rig.imageUrl}?second`

  beforeAll(async () => {
    for (const network of ['twitter', ...CASES.map((c) => c.network)] as Network[]) {
      const c = CASES.find((entry) => entry.network === network)
      const { profileId } = await sandboxConnect(rig.h.app, {
        workspaceId: rig.h.workspaceId,
        network,
        username: c?.username ?? 'alts_x',
        ...(c?.organization ? { organization: true } : {}),
      })
      profiles.set(network, profileId)
    }
  })

  const publish = async (network: Network, mediaUrls: string[], mediaAltTexts: Record<string, string>) => {
    const { status, body } = await rig.h.call('create_post', {
      content: `Alt text on ${network}, ${mediaUrls.length} image${mediaUrls.length > 1 ? 's' : ''}`,
      targetAccounts: [{ platform: network, profileId: profiles.get(network) }],
      publishImmediately: true,
      mediaUrls,
      mediaAltTexts,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    await rig.drain()
    const post = await rig.post(body.postIds[0])
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    return post
  }

  it('X holds each image’s alt text from the media metadata call, and get_post returns them', async () => {
    const post = await publish('twitter', [rig.imageUrl, second()], {
      [rig.imageUrl]: ALT_A,
      [second()]: ALT_B,
    })
    expect(post.mediaAltTexts).toEqual({ [rig.imageUrl]: ALT_A, [second()]: ALT_B })
    expect(post.targets[0].uploadError).toBeUndefined()
    expect(await tweetMedia(rig, post.targets[0].postId)).toEqual([ALT_A, ALT_B])
    const page = await (await fetch(post.targets[0].url)).text()
    expect(page).toContain(`alt="${ALT_A}"`)
  })

  it.each(CASES.map((c) => [c.network, c] as const))(
    '%s holds the alt text of one image and of each image in a set of two',
    async (network, c) => {
      const one = await publish(network, [rig.imageUrl], { [rig.imageUrl]: ALT_A })
      expect(c.held(await rig.state(prefixOf[network]!), one)).toEqual([ALT_A])
      // In a set the words follow each image; an image without alt text has none.
      const two = await publish(network, [second(), rig.imageUrl], { [rig.imageUrl]: ALT_B })
      expect(c.held(await rig.state(prefixOf[network]!), two)).toEqual([undefined, ALT_B])
      const state = await rig.state(prefixOf[network]!)
      expect(state.violations ?? []).toEqual([])
      const page = await (await fetch(one.targets[0].url)).text()
      expect(page).toContain(`alt="${ALT_A}"`)
    },
    60_000,
  )
})
