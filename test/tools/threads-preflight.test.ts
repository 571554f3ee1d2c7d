import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Harness } from '../helpers/harness.js'
import { usePreflightRig } from '../helpers/preflight-rig.js'

/** Preflight and create_post rules for Threads. */
describe('preflight for Threads', () => {
  const rig = usePreflightRig(
    async (h) =>
      (
        await sandboxConnect(h.app, {
          workspaceId: h.workspaceId,
          network: 'threads',
          username: 'rules.shop',
        })
      ).profileId,
    { platforms: ['threads'] },
  )
  const { url, preflight } = rig
  let h: Harness
  let userId: string
  beforeAll(() => {
    h = rig.h
    userId = rig.connected
  })

  it('passes text alone and a set of 20 mixing images and a video', async () => {
    expect((await preflight({ content: 'words only' })).ok).toBe(true)
    const twenty = [...Array.from({ length: 19 }, (_, i) => url(`p${i}.jpg`)), url('clip.mp4')]
    const set = await preflight({ content: 'set', mediaUrls: twenty })
    expect(set.blockers).toEqual([])
    expect(set.mediaSetLimits).toEqual({ threads: { min: 2, max: 20, mixesVideo: true } })
  })

  it('blocks 21 items in preflight per target, while create_post refuses them with a 400', async () => {
    const many = Array.from({ length: 21 }, () => url('a.jpg'))
    const big = await preflight({ content: 'set', mediaUrls: many })
    expect(big.ok).toBe(false)
    expect(big.blockers).toContain('threads @rules.shop: 21 attachments; threads takes at most 20')
    const refused = await h.call('create_post', {
      content: 'set',
      platforms: ['threads'],
      mediaUrls: many,
      publishImmediately: true,
    })
    expect(refused.status).toBe(400)
    // Beyond what even preflight takes, the request itself is malformed.
    const absurd = await h.call('preflight_post', {
      content: 'set',
      platforms: ['threads'],
      mediaUrls: Array.from({ length: 101 }, () => url('a.jpg')),
    })
    expect(absurd.status).toBe(400)
  })

  it('warns when the 24-hour Threads publishing allowance is nearly used', async () => {
    const set = (used: number) =>
      fetch(`${h.baseUrl}${sandboxPrefixes.threads}/_sandbox/allowance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userId, used }),
      })
    await set(240)
    const nearly = await preflight({ content: 'hi' })
    expect(nearly.ok).toBe(true)
    expect(nearly.warnings.join()).toMatch(/240 of 250 posts allowed in 24 hours are used; 10 left/)
    await set(250)
    expect((await preflight({ content: 'hi' })).warnings.join()).toMatch(/250-post allowance .* is used up/)
    await set(3)
    expect((await preflight({ content: 'hi' })).warnings.join()).not.toMatch(/allowed in 24 hours/)
  })
})
