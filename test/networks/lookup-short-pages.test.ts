import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { LOOKUP_MAX_PAGES } from '../../src/adapters/lookup-scan.js'
import type { Network } from '../../src/core/networks.js'
import type { SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { heldOn, publishingOn, useFaultRig } from '../helpers/fault-rig.js'
import { afterEffect500, before500 } from '../helpers/fault-script.js'
import { lookUpAs } from '../helpers/sandbox-adapters.js'

/**
 * How a lookup pages: X, Graph and LinkedIn may answer a page with fewer rows than asked, or none, and a
 * cursor to more (they filter a page after reading it), so only a page without a cursor is the last. Each
 * simulator serves such pages when its fault injector asks (`shortPage`); each network's lookup must read
 * past them, and answer `ambiguous`, never `absent`, when its page budget runs out on them. What the
 * network holds is counted in the simulator.
 */

const profiles = [
  { network: 'twitter', username: 'pages_x' },
  { network: 'facebook', username: 'Paging Bakery' },
  { network: 'instagram', username: 'paging.bakery' },
  { network: 'threads', username: 'pagingbakery' },
  { network: 'linkedin', username: 'Paging Park' },
  { network: 'youtube', username: 'pages@example.com' },
] as const

/** The list each network's lookup of a post reads. */
const postList: Partial<Record<Network, string>> = {
  twitter: 'getUsersPosts',
  facebook: 'published_posts',
  instagram: 'media',
  threads: 'threads',
  linkedin: 'posts.findByAuthor',
}

const listing = (network: Network, operation: string) => (call: SimulatedCall) =>
  call.network === network && call.method === 'GET' && call.operation === operation

describe('a lookup reads past short and empty pages that carry a cursor', () => {
  const rig = useFaultRig(profiles)

  /** Instagram takes no post without an image. */
  const mediaOf = (network: Network) =>
    network === 'instagram' ? [rig.media(`page-${randomBytes(4).toString('hex')}.jpg`)] : []

  const publish = async (network: Network, content: string) => {
    const result = await rig.publish(network, content, mediaOf(network))
    if (result instanceof Error) throw result
    return result
  }

  /** An attempt whose publishing call met `fault`, and the lookup its unknown outcome leads to. */
  const attempt = async (network: Network, content: string, fault: typeof afterEffect500) => {
    const since = Date.now() - 1000
    const targetId = `tgt_${randomBytes(8).toString('hex')}`
    const progress: Record<string, string> = {}
    const mediaUrls = mediaOf(network)
    rig.script.on(publishingOn(network), fault, fault.timing === 'before' ? 10 : 1)
    const outcome = await rig.publish(network, content, mediaUrls, {
      targetId,
      saveProgress: async (entries) => {
        Object.assign(progress, entries)
      },
    })
    expect(outcome).toBeInstanceOf(Error)
    rig.script.clear()
    return () => lookUpAs(rig.h, rig.profile(network), { targetId, content, mediaUrls, since, progress })
  }

  const listCalls = (network: Network, operation: string) =>
    rig.script.calls.filter(listing(network, operation)).length

  describe.each(Object.entries(postList) as [Network, string][])('%s', (network, operation) => {
    it('finds the post that went out behind an empty first page and a page of one row', async () => {
      const held = heldOn[network](rig.h)
      const lookUp = await attempt(network, `Went out on ${network}, behind short pages`, afterEffect500)
      await publish(network, `Newer post one on ${network}`)
      await publish(network, `Newer post two on ${network}`)
      expect(heldOn[network](rig.h)).toBe(held + 3)
      rig.script.shortPages(listing(network, operation), 0)
      rig.script.shortPages(listing(network, operation), 1)
      const before = listCalls(network, operation)
      const answer = await lookUp()
      expect(answer, JSON.stringify(answer)).toMatchObject({ kind: 'found' })
      expect(listCalls(network, operation) - before).toBeGreaterThanOrEqual(3)
      // Nothing more went out: the lookup only read.
      expect(heldOn[network](rig.h)).toBe(held + 3)
    })

    it('is ambiguous, never absent, when pages come back empty with a cursor past the budget', async () => {
      const lookUp = await attempt(network, `Went out on ${network}, then empty pages`, afterEffect500)
      rig.script.shortPages(listing(network, operation), 0, Number.POSITIVE_INFINITY)
      const before = listCalls(network, operation)
      const answer = await lookUp().catch((error: Error) => error)
      expect(answer).toMatchObject({ kind: 'ambiguous' })
      expect(listCalls(network, operation) - before).toBe(LOOKUP_MAX_PAGES)
    })
  })

  /** The list each network's lookup of a comment (or reply) reads. */
  const commentList: Partial<Record<Network, string>> = {
    facebook: 'comments',
    instagram: 'comments',
    threads: 'replies',
    linkedin: 'comments.list',
    youtube: 'commentThreads.list',
  }

  describe.each(Object.entries(commentList) as [Network, string][])('%s comments', (network, operation) => {
    it('finds the first comment that went out behind an empty first page and a page of one row', async () => {
      const adapter = rig.h.app.adapters[network]!
      const who = rig.profile(network)
      const media = network === 'youtube' ? [rig.media('clip.mp4')] : mediaOf(network)
      const root = await rig.publish(network, `A post on ${network} to comment on`, media)
      if (root instanceof Error) throw root
      const item = (content: string, index: number) => {
        const progress: Record<string, string> = {}
        return {
          targetId: `tgt_${randomBytes(8).toString('hex')}`,
          index,
          role: 'firstComment' as const,
          profile: who.profile,
          credentials: who.credentials,
          content,
          mediaUrls: [],
          root,
          parent: root,
          signal: AbortSignal.timeout(60_000),
          progress,
          saveProgress: async (entries: Record<string, string>) => {
            Object.assign(progress, entries)
          },
        }
      }
      const since = Date.now() - 1000
      const lost = item(`Our comment on ${network}, its answer lost`, 0)
      rig.script.on(publishingOn(network), afterEffect500)
      expect(await adapter.publishItem!(lost).catch((error: Error) => error)).toBeInstanceOf(Error)
      rig.script.clear()
      await adapter.publishItem!(item(`A newer comment on ${network}`, 1))
      await adapter.publishItem!(item(`The newest comment on ${network}`, 2))
      rig.script.shortPages(listing(network, operation), 0)
      rig.script.shortPages(listing(network, operation), 1)
      const before = listCalls(network, operation)
      const answer = await adapter.findItem!({ ...lost, since, excludeRemoteIds: [] })
      expect(answer, JSON.stringify(answer)).toMatchObject({ kind: 'found' })
      expect(listCalls(network, operation) - before).toBeGreaterThanOrEqual(3)
    })
  })

  it('X: an attempt that never went out is absent once the pages end, after empty ones with a cursor', async () => {
    const lookUp = await attempt('twitter', 'Never went out on X', before500)
    await publish('twitter', 'Another post on X, after the attempt')
    rig.script.shortPages(listing('twitter', 'getUsersPosts'), 0, 3)
    const before = listCalls('twitter', 'getUsersPosts')
    expect(await lookUp()).toEqual({ kind: 'absent' })
    expect(listCalls('twitter', 'getUsersPosts') - before).toBe(4)
  })
})
