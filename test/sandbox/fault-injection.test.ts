import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Network } from '../../src/domain/networks.js'
import type { SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { afterEffect500, before500, scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { connectSandboxProfile, publishAs, type SandboxProfile } from '../helpers/sandbox-adapters.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'

/**
 * The fault injector reaches every simulator of a sandbox-mode Herald: a publishing call failed before its
 * effect leaves nothing on the network, one failed after its effect leaves exactly the one item it made,
 * whatever the adapter then concludes. The count is what the simulator holds, not what Herald recorded.
 */

const script = scriptedFaults()

/** What each network holds that a publish makes, counted in the simulator. */
const held: Record<Network, (h: Harness) => number> = {
  twitter: (h) => h.sandboxes!.twitter.tweets().length,
  facebook: (h) => h.sandboxes!.meta.posts.size,
  instagram: (h) => h.sandboxes!.meta.media.size,
  threads: (h) => h.sandboxes!.threads.threads.size,
  linkedin: (h) => h.sandboxes!.linkedin.posts.size,
  bluesky: (h) =>
    [...h.sandboxes!.bluesky.records.values()].filter((r) => r.collection === 'app.bsky.feed.post').length,
  youtube: (h) => h.sandboxes!.youtube.videos.size,
}

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
  let h: Harness
  let media: TestServer
  const profiles = new Map<Network, SandboxProfile>()

  beforeAll(async () => {
    media = await serveJpegOrVideo(
      await solidImage(1080, 1080, 'jpeg'),
      mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 32 * 1024 }),
    )
    h = await startHarness({ sandbox: true, faults: script, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
    for (const { network, username } of cases)
      profiles.set(network, await connectSandboxProfile(h, network, username))
  }, 60_000)
  afterAll(async () => {
    await h?.close()
    await media?.close()
  })
  afterEach(() => script.clear())

  const publish = (network: Network, content: string) => {
    const media = cases.find((c) => c.network === network)?.media
    return publishAs(h, profiles.get(network)!, content, media ? [`${mediaUrl()}/${media}`] : []).then(
      () => 'published',
      (error: Error & { kind?: string }) => error.kind ?? error.message,
    )
  }
  const mediaUrl = () => media.url
  const publishing = (network: Network) => (call: SimulatedCall) => call.network === network && call.effectful

  it.each(cases.map((c) => [c.network] as const))(
    '%s: a publishing call answered 500 after its effect leaves exactly one item on the network',
    async (network) => {
      const before = held[network](h)
      script.on(publishing(network), afterEffect500)
      await publish(network, `After the effect on ${network}, answered 500`)
      expect(script.calls.filter(publishing(network)).length).toBeGreaterThan(0)
      expect(held[network](h)).toBe(before + 1)
    },
    60_000,
  )

  it.each(cases.map((c) => [c.network] as const))(
    '%s: a publishing call refused before its effect leaves nothing on the network',
    async (network) => {
      const before = held[network](h)
      script.on(publishing(network), before500, 10)
      const outcome = await publish(network, `Refused before the effect on ${network}`)
      expect(outcome).not.toBe('published')
      expect(held[network](h)).toBe(before)
    },
    60_000,
  )

  it('a publishing call cut after its effect (a reset connection) leaves one post and an unknown outcome', async () => {
    const before = held.twitter(h)
    script.on(publishing('twitter'), { timing: 'after', answer: { kind: 'reset' } })
    expect(await publish('twitter', 'Cut after the effect')).toBe('unknown_outcome')
    expect(held.twitter(h)).toBe(before + 1)
  })

  it('a publishing call left hanging after its effect holds the client until it gives up, then one post is there', async () => {
    const before = held.twitter(h)
    script.on(publishing('twitter'), { timing: 'after', answer: { kind: 'hang' } })
    const started = Date.now()
    const failure = await publishAs(h, profiles.get('twitter')!, 'Hanging after the effect', [], {
      signal: AbortSignal.timeout(400),
    }).catch((error: Error & { kind?: string }) => error)
    expect(Date.now() - started).toBeGreaterThanOrEqual(350)
    expect(failure).toMatchObject({ kind: 'unknown_outcome' })
    expect(held.twitter(h)).toBe(before + 1)
  })

  it('a call left hanging before its effect makes nothing, and a hung connection does not keep the server open', async () => {
    const before = held.linkedin(h)
    script.on(publishing('linkedin'), { timing: 'before', answer: { kind: 'hang' } })
    const failure = await publishAs(h, profiles.get('linkedin')!, 'Hanging before the effect', [], {
      signal: AbortSignal.timeout(300),
    }).catch((error: Error) => error)
    expect(failure).toBeInstanceOf(Error)
    expect(held.linkedin(h)).toBe(before)
  })

  it("a 429 carries the network's own body and reset headers, so the adapter reports when to try again", async () => {
    script.on(publishing('twitter'), { timing: 'before', answer: { kind: 'status', status: 429 } })
    const failure = await publishAs(h, profiles.get('twitter')!, 'Throttled').catch(
      (error: Error & { kind?: string; options?: { resetAt?: number } }) => error,
    )
    expect(failure).toMatchObject({ kind: 'rate_limited' })
    const resetAt = (failure as { options: { resetAt: number } }).options.resetAt
    expect(resetAt).toBeGreaterThan(Date.now() + 14 * 60_000)
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 1000)
  })

  it('describes each call with its network, operation, effect, method and path under the prefix', () => {
    const tweet = script.calls.find((call) => call.operation === 'createPosts')
    expect(tweet).toEqual({
      network: 'twitter',
      operation: 'createPosts',
      effectful: true,
      method: 'POST',
      path: '/api/2/tweets',
    })
    const container = script.calls.find((call) => call.network === 'instagram' && call.operation === 'media')
    expect(container).toMatchObject({ effectful: false, method: 'POST' })
    expect(script.calls.some((call) => call.path.startsWith('/_sandbox'))).toBe(false)
  })
})
