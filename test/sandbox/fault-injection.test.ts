import { describe, expect, it } from 'vitest'
import type { Network } from '../../src/core/networks.js'
import { heldOn as held, publishingOn as publishing, useFaultRig } from '../helpers/fault-rig.js'
import { afterEffect500, before500 } from '../helpers/fault-script.js'

/**
 * The fault injector reaches every simulator of a sandbox-mode Herald: a publishing call failed before its
 * effect leaves nothing on the network, one failed after its effect leaves exactly the one item it made,
 * whatever the adapter then concludes. The count is what the simulator holds, not what Herald recorded.
 */

/** Who publishes on each network, and with which media (Instagram needs an image, YouTube a video). */
const cases: ReadonlyArray<{ network: Network; username: string; media?: 'photo.jpg' | 'short.mp4' }> = [
  { network: 'twitter', username: 'fault_x' },
  { network: 'facebook', username: 'Fault Bakery' },
  { network: 'instagram', username: 'fault.bakery', media: 'photo.jpg' },
  { network: 'threads', username: 'faultbakery' },
  { network: 'linkedin', username: 'Fault Park' },
  { network: 'bluesky', username: 'faultbakery' },
  { network: 'youtube', username: 'fault@example.com', media: 'short.mp4' },
]

describe('the fault injector in every simulator', () => {
  const rig = useFaultRig(cases)
  const { script } = rig
  const publish = async (network: Network, content: string) => {
    const media = cases.find((c) => c.network === network)?.media
    const outcome = await rig.publish(network, content, media ? [rig.media(media)] : [])
    return outcome instanceof Error ? (outcome.kind ?? outcome.message) : 'published'
  }

  it.each(cases.map((c) => [c.network] as const))(
    '%s: a publishing call answered 500 after its effect leaves exactly one item on the network',
    async (network) => {
      const before = held[network](rig.h)
      script.on(publishing(network), afterEffect500)
      await publish(network, `After the effect on ${network}, answered 500`)
      expect(script.calls.filter(publishing(network)).length).toBeGreaterThan(0)
      expect(held[network](rig.h)).toBe(before + 1)
    },
    60_000,
  )

  it.each(cases.map((c) => [c.network] as const))(
    '%s: a publishing call refused before its effect leaves nothing on the network',
    async (network) => {
      const before = held[network](rig.h)
      script.on(publishing(network), before500, 10)
      const outcome = await publish(network, `Refused before the effect on ${network}`)
      expect(outcome).not.toBe('published')
      expect(held[network](rig.h)).toBe(before)
    },
    60_000,
  )

  it('a publishing call cut after its effect (a reset connection) leaves one post and an unknown outcome', async () => {
    const before = held.twitter(rig.h)
    script.on(publishing('twitter'), { timing: 'after', answer: { kind: 'reset' } })
    expect(await publish('twitter', 'Cut after the effect')).toBe('unknown_outcome')
    expect(held.twitter(rig.h)).toBe(before + 1)
  })

  it('a publishing call left hanging after its effect holds the client until it gives up, then one post is there', async () => {
    const before = held.twitter(rig.h)
    script.on(publishing('twitter'), { timing: 'after', answer: { kind: 'hang' } })
    const started = Date.now()
    const failure = await rig.publish('twitter', 'Hanging after the effect', [], {
      signal: AbortSignal.timeout(400),
    })
    expect(Date.now() - started).toBeGreaterThanOrEqual(350)
    expect(failure).toMatchObject({ kind: 'unknown_outcome' })
    expect(held.twitter(rig.h)).toBe(before + 1)
  })

  it('a call left hanging before its effect makes nothing, and a hung connection does not keep the server open', async () => {
    const before = held.linkedin(rig.h)
    script.on(publishing('linkedin'), { timing: 'before', answer: { kind: 'hang' } })
    const failure = await rig.publish('linkedin', 'Hanging before the effect', [], {
      signal: AbortSignal.timeout(300),
    })
    expect(failure).toBeInstanceOf(Error)
    expect(held.linkedin(rig.h)).toBe(before)
  })

  it("a 429 carries the network's own body and reset headers, so the adapter reports when to try again", async () => {
    script.on(publishing('twitter'), { timing: 'before', answer: { kind: 'status', status: 429 } })
    const failure = await rig.publish('twitter', 'Throttled')
    expect(failure).toMatchObject({ kind: 'rate_limited' })
    const resetAt = (failure as { options?: { resetAt?: number } }).options?.resetAt ?? 0
    expect(resetAt).toBeGreaterThan(Date.now() + 14 * 60_000)
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 1000)
  })

  it('describes each call with its network, operation, effect, method, path under the prefix and body', () => {
    const tweet = script.calls.find((call) => call.operation === 'createPosts')
    expect(tweet).toMatchObject({
      network: 'twitter',
      operation: 'createPosts',
      effectful: true,
      method: 'POST',
      path: '/api/2/tweets',
    })
    expect(tweet?.body).toMatchObject({ text: expect.any(String) })
    const container = script.calls.find((call) => call.network === 'instagram' && call.operation === 'media')
    expect(container).toMatchObject({ effectful: false, method: 'POST' })
    expect(script.calls.some((call) => call.path.startsWith('/_sandbox'))).toBe(false)
  })
})
