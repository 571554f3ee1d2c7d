import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import type { Harness } from '../helpers/harness.js'
import { type SandboxCli, startSandboxCli } from '../helpers/herald-command.js'
import { mp4File } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * Every network a new user's demo reaches, each connected with `npm run herald -- sandbox connect` and
 * one profile each. A network joins the demo by adding its line here.
 */
const PROFILES: ReadonlyArray<{ network: string; username: string; flags?: string[]; url: RegExp }> = [
  {
    network: 'twitter',
    username: 'all_networks',
    url: /\/sandbox\/twitter\/web\/all_networks\/status\/\d+$/,
  },
  {
    network: 'youtube',
    username: 'allnetworks@example.com',
    url: /\/sandbox\/youtube\/web\/shorts\/[\w-]+$/,
  },
  {
    network: 'bluesky',
    username: 'allnetworks',
    url: /\/sandbox\/bluesky\/web\/profile\/allnetworks\.bsky\.social\/post\/[2-7a-z]{13}$/,
  },
  { network: 'linkedin', username: 'Jo Park', url: /\/sandbox\/linkedin\/web\/feed\/update\/urn:li:/ },
  {
    network: 'linkedin',
    username: 'Jo Park',
    flags: ['--organization'],
    url: /\/sandbox\/linkedin\/web\/feed\/update\/urn:li:/,
  },
  {
    network: 'facebook',
    username: 'Corner Shop',
    url: /\/sandbox\/meta\/web\/facebook\/\d+\/(posts|videos)\/\d+/,
  },
  { network: 'instagram', username: 'all.networks', url: /\/sandbox\/meta\/web\/instagram\/(reel|p)\// },
  {
    network: 'threads',
    username: 'allnetworks',
    url: /\/sandbox\/threads\/web\/@allnetworks\/post\/[\w-]+$/,
  },
]

/**
 * The whole demo on a fresh sandbox server: `sandbox connect` for every network (through the CLI, as an
 * operator runs it beside `HERALD_SANDBOX=1 npm start`), then ONE immediate create_post with a short
 * vertical MP4 to all of them, which publishes every target.
 */
describe('a sandbox server reaches every network', () => {
  let cli: SandboxCli
  let h: Harness
  let worker: Worker
  let media: TestServer
  const clip = mp4File({ width: 1080, height: 1920, durationMs: 9000, mdatBytes: 48 * 1024 })
  const connected: Array<{ platform: string; profileId: string; username: string }> = []

  beforeAll(async () => {
    media = await startServer((req, res) => {
      if (req.url !== '/short.mp4') {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(clip.length) })
      res.end(clip)
    })
    cli = await startSandboxCli('herald-all-networks-', {
      credits: 100,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '60000' },
    })
    h = cli.harness
    worker = createAppWorker(h.app, { id: 'e2e-all-networks' })
    worker.start()
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await cli?.close()
    await media?.close()
  })

  it.each(
    PROFILES.map(
      (profile) =>
        [`${profile.network}${profile.flags ? ` ${profile.flags.join(' ')}` : ''}`, profile] as const,
    ),
  )(
    'connects %s with `sandbox connect`',
    async (_label, profile) => {
      const result = await cli.connect(profile.network, profile.username, ...(profile.flags ?? []))
      expect(result).toMatchObject({
        workspaceId: h.workspaceId,
        platform: profile.network,
        status: 'active',
      })
      connected.push(result)
    },
    60_000,
  )

  it('publishes one immediate post with a vertical short video to every connected profile', async () => {
    expect(connected).toHaveLength(PROFILES.length)
    const { status, body } = await h.call('create_post', {
      content: 'One post, every network: a short from the Herald sandbox #herald',
      targetAccounts: connected.map(({ platform, profileId }) => ({ platform, profileId })),
      mediaUrl: `${media.url}/short.mp4`,
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    // Herald keeps one post per profile; all of them come from this one call.
    const posts = body.posts as Array<{
      status: string
      targets: Array<{ platform: string; profileId: string; status: string; url: string }>
    }>
    for (const post of posts) expect(post.status, JSON.stringify(post.targets)).toBe('published')
    const targets = posts.flatMap((post) => post.targets)
    expect(targets).toHaveLength(PROFILES.length)
    for (const [i, profile] of PROFILES.entries()) {
      const target = targets.find(
        (t) => t.platform === profile.network && t.profileId === connected[i]!.profileId,
      )
      expect(target, `${profile.network} ${profile.flags ?? ''}`).toMatchObject({ status: 'published' })
      expect(target?.url).toMatch(profile.url)
      // The URL opens the simulator's page of the post, as the network's own would.
      expect(target?.url.startsWith(`${h.baseUrl}/sandbox/`)).toBe(true)
      expect((await fetch(target!.url)).status, target?.url).toBe(200)
    }
    const bluesky = (await (await fetch(`${h.baseUrl}/sandbox/bluesky/_sandbox/state`)).json()) as {
      records: Array<{ collection: string; value: { embed?: { $type: string } } }>
      violations: string[]
    }
    const [short] = bluesky.records.filter((r) => r.collection === 'app.bsky.feed.post')
    expect(short?.value.embed?.$type).toBe('app.bsky.embed.video')
    expect(bluesky.violations).toEqual([])
  }, 120_000)
})
