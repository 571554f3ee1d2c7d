import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { LookupAnswer } from '../../src/adapters/adapter.js'
import type { Network } from '../../src/core/networks.js'
import type { Fault } from '../../src/sandbox/fault-injector.js'
import { publishingOn, useFaultRig } from '../helpers/fault-rig.js'
import { afterEffect500, before500 } from '../helpers/fault-script.js'
import { lookUpAs } from '../helpers/sandbox-adapters.js'

/**
 * A lookup never decides on ambiguous evidence (docs/adr/0011-lookups.md). Each case sets up, on the
 * simulators, what a naive lookup (the first post since the attempt with the same copy) would take for the
 * attempt's post: someone else's post of links alone, a photo post with an empty caption, a post another
 * target holds. The lookup must use the strongest key the network offers, leave out held posts, and say
 * "ambiguous" (with the posts to check) rather than claim a post it cannot tell apart.
 */

const profiles = [
  { network: 'twitter', username: 'evidence_x' },
  { network: 'facebook', username: 'Evidence Bakery' },
  { network: 'instagram', username: 'evidence.bakery' },
  { network: 'threads', username: 'evidencebakery' },
  { network: 'linkedin', username: 'Evidence Park' },
  { network: 'bluesky', username: 'evidencebakery' },
] as const

describe('a lookup decides only on evidence that tells the attempt apart', () => {
  const rig = useFaultRig(profiles)

  /** The newest item the network holds (what a publish or an attempt just made). */
  const newest = (network: Network): string => {
    const s = rig.h.sandboxes!
    const ids: Record<string, () => string[]> = {
      twitter: () => s.twitter.tweets().map((t) => t.id),
      facebook: () => [...s.meta.posts.keys()],
      instagram: () => [...s.meta.media.keys()],
      threads: () => [...s.threads.threads.keys()],
      linkedin: () => [...s.linkedin.posts.keys()],
    }
    return ids[network]!().at(-1)!
  }

  /** Someone else's post (or another target's): published normally; its remote id. */
  const other = async (network: Network, content: string, media: string[] = []) => {
    const result = await rig.publish(network, content, media.map(rig.media))
    if (result instanceof Error) throw result
    return result.remoteId
  }

  /**
   * A target's attempt whose publishing call meets `fault` (before: it never went out; after: it did, and
   * the answer was lost), and the lookup its unknown outcome leads to.
   */
  const attempt = async (network: Network, content: string, media: string[], fault: Fault) => {
    const since = Date.now() - 1000
    const targetId = `tgt_${randomBytes(8).toString('hex')}`
    const progress: Record<string, string> = {}
    rig.script.on(publishingOn(network), fault, fault.timing === 'before' ? 10 : 1)
    const outcome = await rig.publish(network, content, media.map(rig.media), {
      targetId,
      saveProgress: async (entries) => {
        Object.assign(progress, entries)
      },
    })
    expect(outcome).toBeInstanceOf(Error)
    rig.script.clear()
    return {
      lookUp: (excludeRemoteIds: string[] = []): Promise<LookupAnswer> =>
        lookUpAs(rig.h, rig.profile(network), {
          targetId,
          content,
          mediaUrls: media.map(rig.media),
          since,
          progress,
          excludeRemoteIds,
        }),
    }
  }

  describe('X', () => {
    it('does not take another post of links alone for an attempt of links alone that never went out', async () => {
      await other('twitter', 'https://example.com/their-link')
      const lost = await attempt('twitter', 'https://example.com/our-link', [], before500)
      expect(await lost.lookUp()).toEqual({ kind: 'absent' })
    })

    it('is ambiguous for copy of links alone even when the only match is the attempt', async () => {
      const lost = await attempt('twitter', 'https://example.com/only-a-link', [], afterEffect500)
      const answer = await lost.lookUp()
      expect(answer).toMatchObject({ kind: 'ambiguous' })
      expect((answer as { reason: string }).reason).toContain(`/status/${newest('twitter')}`)
    })

    it('finds a photo-only post by the media it uploaded, not a newer photo-only post', async () => {
      const lost = await attempt('twitter', '', ['x-ours.jpg'], afterEffect500)
      const ours = newest('twitter')
      await other('twitter', '', ['x-theirs.jpg'])
      expect(await lost.lookUp()).toMatchObject({ kind: 'found', result: { remoteId: ours } })
    })

    it('answers absent for a photo-only attempt that never went out, whatever other photo posts there are', async () => {
      await other('twitter', '', ['x-someone.jpg'])
      const lost = await attempt('twitter', '', ['x-never.jpg'], before500)
      expect(await lost.lookUp()).toEqual({ kind: 'absent' })
    })
  })

  describe('Facebook', () => {
    it('is ambiguous for a photo-only post with an empty caption when another photo post is there', async () => {
      await other('facebook', '', ['fb-theirs.jpg'])
      const lost = await attempt('facebook', '', ['fb-ours.jpg'], before500)
      const answer = await lost.lookUp()
      expect(answer).toMatchObject({ kind: 'ambiguous' })
      // The reason names the posts to check by their URLs: the simulator's pages of them in sandbox mode.
      expect((answer as { reason: string }).reason).toContain('/sandbox/meta/web/facebook/')
    })

    it('never takes the post another target of the Page holds', async () => {
      const held = await other('facebook', 'Weekly special: rye')
      const lost = await attempt('facebook', 'Weekly special: rye', [], before500)
      expect(await lost.lookUp([held])).toEqual({ kind: 'absent' })
    })

    it("decides a photo set by its first photo's story: absent when the set was never posted", async () => {
      await other('facebook', '', ['fb-single.jpg'])
      const lost = await attempt('facebook', '', ['fb-set-1.jpg', 'fb-set-2.jpg'], before500)
      expect(await lost.lookUp()).toEqual({ kind: 'absent' })
    })

    it("decides a photo set by its first photo's story: found when it was", async () => {
      const lost = await attempt('facebook', '', ['fb-set-3.jpg', 'fb-set-4.jpg'], afterEffect500)
      const ours = newest('facebook')
      await other('facebook', '', ['fb-later.jpg'])
      expect(await lost.lookUp()).toMatchObject({ kind: 'found', result: { remoteId: ours } })
    })
  })

  describe('Instagram and Threads', () => {
    it('is ambiguous for a published container with an empty caption: Meta links no container to its post', async () => {
      await other('instagram', '', ['ig-theirs.jpg'])
      const lost = await attempt('instagram', '', ['ig-ours.jpg'], afterEffect500)
      expect(await lost.lookUp()).toMatchObject({ kind: 'ambiguous' })
    })

    it('never takes the newer post another target holds with the same caption', async () => {
      const lost = await attempt('instagram', 'Rye loaf, fresh today', ['ig-rye-1.jpg'], afterEffect500)
      const ours = newest('instagram')
      const held = await other('instagram', 'Rye loaf, fresh today', ['ig-rye-2.jpg'])
      expect(await lost.lookUp([held])).toMatchObject({ kind: 'found', result: { remoteId: ours } })
    })

    it('never takes the newer thread another target holds with the same text', async () => {
      const lost = await attempt('threads', 'Rye loaf, fresh today', [], afterEffect500)
      const ours = newest('threads')
      const held = await other('threads', 'Rye loaf, fresh today')
      expect(await lost.lookUp([held])).toMatchObject({ kind: 'found', result: { remoteId: ours } })
    })
  })

  describe('LinkedIn', () => {
    it('finds an image post with no commentary by the image it uploaded, not a newer such post', async () => {
      const lost = await attempt('linkedin', '', ['li-ours.jpg'], afterEffect500)
      const ours = newest('linkedin')
      await other('linkedin', '', ['li-theirs.jpg'])
      expect(await lost.lookUp()).toMatchObject({ kind: 'found', result: { remoteId: ours } })
    })

    it('answers absent for an image post that never went out, whatever other image posts there are', async () => {
      await other('linkedin', '', ['li-someone.jpg'])
      const lost = await attempt('linkedin', '', ['li-never.jpg'], before500)
      expect(await lost.lookUp()).toEqual({ kind: 'absent' })
    })
  })

  describe('Bluesky', () => {
    it('looks an attempt up by the record key derived from its target: absent when it never went out', async () => {
      await other('bluesky', 'Same words on Bluesky')
      const lost = await attempt('bluesky', 'Same words on Bluesky', [], before500)
      expect(await lost.lookUp()).toEqual({ kind: 'absent' })
    })

    it('looks an attempt up by the record key derived from its target: found when it went out', async () => {
      const targetId = `tgt_${randomBytes(8).toString('hex')}`
      const published = await rig.publish('bluesky', 'Went out on Bluesky', [], { targetId })
      if (published instanceof Error) throw published
      const answer = await lookUpAs(rig.h, rig.profile('bluesky'), {
        targetId,
        content: 'Went out on Bluesky',
        mediaUrls: [],
        since: Date.now() - 60_000,
      })
      expect(answer).toEqual({ kind: 'found', result: published })
    })
  })
})
