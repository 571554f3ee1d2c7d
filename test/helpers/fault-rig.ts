import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import type { PublishRequest, PublishResult } from '../../src/adapters/adapter.js'
import type { Network } from '../../src/core/networks.js'
import type { SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'
import { type ScriptedFaults, scriptedFaults } from './fault-script.js'
import { type Harness, startHarness } from './harness.js'
import { connectSandboxProfile, publishAs, type SandboxProfile } from './sandbox-adapters.js'

/**
 * A sandbox-mode Herald whose simulators a suite controls call by call (a {@link ScriptedFaults}, cleared
 * after each test), one profile connected per network, and a media server answering any `.mp4` path with a
 * short vertical video and any other path with a 1080×1080 JPEG.
 */
export interface FaultRig {
  readonly h: Harness
  readonly script: ScriptedFaults
  profile(network: Network): SandboxProfile
  /** A media URL of the rig's server (`photo.jpg`, `clip.mp4`, ...). */
  media(name: string): string
  /** The harness's adapter publishing as the network's profile; the failure is returned, not thrown. */
  publish(
    network: Network,
    content: string,
    mediaUrls?: string[],
    extra?: Partial<PublishRequest>,
  ): Promise<PublishResult | (Error & { kind?: string; options?: Record<string, any> })>
}

/** What each network holds that a publish makes, counted in the simulator itself. */
export const heldOn: Record<Network, (h: Harness) => number> = {
  twitter: (h) => h.sandboxes!.twitter.tweets().length,
  facebook: (h) => h.sandboxes!.meta.posts.size + h.sandboxes!.meta.videos.size,
  instagram: (h) => h.sandboxes!.meta.media.size,
  threads: (h) => h.sandboxes!.threads.threads.size,
  linkedin: (h) => h.sandboxes!.linkedin.posts.size,
  bluesky: (h) =>
    [...h.sandboxes!.bluesky.records.values()].filter((r) => r.collection === 'app.bsky.feed.post').length,
  youtube: (h) => h.sandboxes!.youtube.videos.size,
  googlebusiness: (h) => h.sandboxes!.googlebusiness.posts.size,
  tiktok: (h) => h.sandboxes!.tiktok.posts.size + h.sandboxes!.tiktok.drafts.size,
  pinterest: (h) => h.sandboxes!.pinterest.pins.size,
  mastodon: (h) =>
    [...h.sandboxes!.mastodon.instances.values()].reduce((sum, instance) => sum + instance.statuses.size, 0),
}

/** A matcher of the calls that can make something visible on `network`. */
export const publishingOn = (network: Network) => (call: SimulatedCall) =>
  call.network === network && call.effectful

export function useFaultRig(profiles: ReadonlyArray<{ network: Network; username: string }>): FaultRig {
  const script = scriptedFaults()
  const connected = new Map<Network, SandboxProfile>()
  let h: Harness
  let server: TestServer
  beforeAll(async () => {
    server = await serveJpegOrVideo(
      await solidImage(1080, 1080, 'jpeg'),
      mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 32 * 1024 }),
    )
    h = await startHarness({ sandbox: true, faults: script, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
    for (const { network, username } of profiles)
      connected.set(network, await connectSandboxProfile(h, network, username))
  }, 60_000)
  afterAll(async () => {
    // Every call the adapters made still matched each network's own description of its API.
    const s = h?.sandboxes
    const violations = s
      ? [
          ...s.meta.violations,
          ...s.threads.violations,
          ...s.bluesky.violations,
          ...s.linkedin.violations,
          ...s.tiktok.violations,
          ...s.pinterest.violations,
          ...s.mastodon.violations,
        ]
      : []
    await h?.close()
    await server?.close()
    expect(violations).toEqual([])
  })
  afterEach(() => script.clear())
  return {
    get h() {
      return h
    },
    script,
    profile(network) {
      const found = connected.get(network)
      if (!found) throw new Error(`no ${network} profile in this rig`)
      return found
    },
    media: (name) => `${server.url}/${name}`,
    publish: (network, content, mediaUrls = [], extra = {}) =>
      publishAs(h, connected.get(network)!, content, mediaUrls, extra).catch((error: Error) => error),
  }
}
