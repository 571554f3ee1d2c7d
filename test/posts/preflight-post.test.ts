import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import {
  checkOutput,
  connectAll,
  type MediaServer,
  otherWorkspace,
  snapshot,
  startMediaServer,
  startPostHarness,
} from './post-harness.js'

const slot = { scheduleDate: '2030-02-01', scheduleTime: '09:30' }
const profileOf = {
  twitter: 'tw-1',
  linkedin: 'li-1',
  facebook: 'fb-1',
  instagram: 'ig-1',
  threads: 'th-1',
  bluesky: 'bs-1',
  youtube: 'yt-1',
} as const
type Net = keyof typeof profileOf

const X_LENGTH_WARNING = /X allows 280 on standard access/
const LINK_WARNING = /one-off surcharge of 50 credits/
const family = '👨‍👩‍👧'
const url = `https://example.com/${'p'.repeat(100)}`

describe.each(backends)('preflight_post on $name', (backend) => {
  let h: Harness
  let media: MediaServer
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12))

  beforeAll(async () => {
    media = await startMediaServer()
    h = await startPostHarness(backend, { clock })
    await connectAll(h)
    await connectProfile(h, 'linkedin', 'li-dead', 'acme-old', { status: 'needs_reconnect' })
  })
  afterAll(async () => {
    await h.close()
    await media.close()
  })

  const preflight = async (body: Record<string, unknown>) => {
    const res = await h.call('preflight_post', { content: 'Hello from Herald', ...slot, ...body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    checkOutput('preflight_post', res.body)
    return res.body
  }
  const to = (...networks: Net[]) =>
    networks.map((platform) => ({ platform, profileId: profileOf[platform] }))

  describe('the response', () => {
    it('answers every field for a post that would go out', async () => {
      const balance = (await h.call('get_user_info')).body.credits.balance
      const body = await preflight({ content: 'Hello world', targetAccounts: to('twitter', 'linkedin') })
      expect(Object.keys(body).sort()).toEqual([
        'blockers',
        'characterCount',
        'credits',
        'limits',
        'ok',
        'resolvedTargets',
        'unknownTargets',
        'warnings',
      ])
      expect(body).toEqual({
        ok: true,
        characterCount: 11,
        resolvedTargets: [
          { platform: 'twitter', profileId: 'tw-1', username: 'acme' },
          { platform: 'linkedin', profileId: 'li-1', username: 'acme-li' },
        ],
        unknownTargets: [],
        limits: {
          twitter: 280,
          linkedin: 3000,
          facebook: 63206,
          instagram: 2200,
          threads: 500,
          bluesky: 300,
          youtube: 5000,
          googlebusiness: 1500,
          tiktok: 2200,
          pinterest: 800,
          mastodon: 500,
        },
        credits: { cost: 6, balance, remainingAfter: balance - 6 },
        blockers: [],
        warnings: [],
      })
    })

    it('resolves platforms to every connected profile on the network', async () => {
      const body = await preflight({ platforms: ['twitter'] })
      expect(body.resolvedTargets).toEqual([
        { platform: 'twitter', profileId: 'tw-1', username: 'acme' },
        { platform: 'twitter', profileId: 'tw-2', username: 'acme_two' },
      ])
      expect(body.credits.cost).toBe(10)
    })

    it('lists profiles that are not connected in unknownTargets and blocks on them', async () => {
      const body = await preflight({
        targetAccounts: [
          { platform: 'linkedin', profileId: 'li-1' },
          { platform: 'twitter', profileId: 'tw-404' },
        ],
      })
      expect(body.ok).toBe(false)
      expect(body.unknownTargets).toEqual([
        { platform: 'twitter', profileId: 'tw-404', reason: expect.stringContaining('tw-404') },
      ])
      expect(body.blockers).toContain(body.unknownTargets[0].reason)
      expect(body.resolvedTargets).toEqual([{ platform: 'linkedin', profileId: 'li-1', username: 'acme-li' }])
    })

    it('blocks on a profile that needs reconnecting', async () => {
      const body = await preflight({ targetAccounts: [{ platform: 'linkedin', profileId: 'li-dead' }] })
      expect(body.ok).toBe(false)
      expect(body.blockers).toEqual([expect.stringMatching(/acme-old needs to be reconnected/)])
    })

    it('blocks on a price the balance cannot pay and shows what would remain', async () => {
      const poor = await otherWorkspace(h, 'Poor', 4)
      await connectProfile(h, 'twitter', 'tw-poor', 'poor', { workspaceId: poor.workspaceId })
      const res = await poor.call('preflight_post', { content: 'hi', platforms: ['twitter'], ...slot })
      expect(res.body.ok).toBe(false)
      expect(res.body.credits).toEqual({ cost: 5, balance: 4, remainingAfter: -1 })
      expect(res.body.blockers).toEqual([expect.stringMatching(/costs 5 credits and the workspace has 4/)])
    })

    it('blocks on a slot in the past', async () => {
      const body = await preflight({ targetAccounts: to('linkedin'), scheduleDate: '2029-12-31' })
      expect(body.ok).toBe(false)
      expect(body.blockers).toEqual([expect.stringMatching(/in the past/)])
    })

    it('charges nothing and writes nothing to the ledger', async () => {
      const before = await snapshot(h)
      await preflight({ targetAccounts: to('twitter', 'linkedin', 'bluesky') })
      await preflight({ content: `with a link ${url}`, platforms: ['twitter'] })
      await preflight({ targetAccounts: to('instagram') })
      expect(await snapshot(h)).toEqual(before)
    })
  })

  describe('copy length as each network counts it', () => {
    it.each<[string, 'fits' | 'warns' | 'blocks', Net, string]>([
      ['280 Latin characters on X', 'fits', 'twitter', 'a'.repeat(280)],
      ['281 Latin characters on X', 'warns', 'twitter', 'a'.repeat(281)],
      ['140 emoji on X (each weighs 2)', 'fits', 'twitter', '😀'.repeat(140)],
      ['141 emoji on X', 'warns', 'twitter', '😀'.repeat(141)],
      ['140 CJK characters on X (each weighs 2)', 'fits', 'twitter', '日'.repeat(140)],
      ['141 CJK characters on X', 'warns', 'twitter', '日'.repeat(141)],
      ['a long URL counted as 23 on X, 280 in all', 'fits', 'twitter', `${'a'.repeat(256)} ${url}`],
      ['a long URL counted as 23 on X, 281 in all', 'warns', 'twitter', `${'a'.repeat(257)} ${url}`],
      ['25,000 weighted on X (premium ceiling)', 'warns', 'twitter', 'a'.repeat(25_000)],
      ['25,001 weighted on X', 'blocks', 'twitter', 'a'.repeat(25_001)],
      ['25,002 weighted CJK on X', 'blocks', 'twitter', '日'.repeat(12_501)],
      ['300 family emoji graphemes on Bluesky', 'fits', 'bluesky', family.repeat(300)],
      ['301 family emoji graphemes on Bluesky', 'blocks', 'bluesky', family.repeat(301)],
      ['300 characters on Bluesky', 'fits', 'bluesky', 'a'.repeat(300)],
      ['301 characters on Bluesky', 'blocks', 'bluesky', 'a'.repeat(301)],
      ['500 characters on Threads', 'fits', 'threads', 'a'.repeat(500)],
      ['501 characters on Threads', 'blocks', 'threads', 'a'.repeat(501)],
      ['3,000 characters on LinkedIn', 'fits', 'linkedin', 'a'.repeat(3000)],
      ['3,001 characters on LinkedIn', 'blocks', 'linkedin', 'a'.repeat(3001)],
      ['63,206 characters on Facebook', 'fits', 'facebook', 'a'.repeat(63_206)],
      ['63,207 characters on Facebook', 'blocks', 'facebook', 'a'.repeat(63_207)],
      ['2,200 characters on Instagram', 'fits', 'instagram', 'a'.repeat(2200)],
      ['2,201 characters on Instagram', 'blocks', 'instagram', 'a'.repeat(2201)],
    ])('%s %s', async (_name, expected, network, content) => {
      const body = await preflight({
        content,
        targetAccounts: to(network),
        ...(network === 'instagram' ? { mediaUrl: media.png('square') } : {}),
      })
      const lengthBlockers = body.blockers.filter((b: string) => /the copy is \d+ characters/.test(b))
      const lengthWarnings = body.warnings.filter((w: string) => X_LENGTH_WARNING.test(w))
      expect({ ok: body.ok, blockers: lengthBlockers.length, warnings: lengthWarnings.length }).toEqual({
        ok: expected !== 'blocks',
        blockers: expected === 'blocks' ? 1 : 0,
        warnings: expected === 'warns' ? 1 : 0,
      })
      expect(body.blockers).toHaveLength(lengthBlockers.length)
    })

    it('names the network, its limit and the counted length in a blocker', async () => {
      const body = await preflight({ content: family.repeat(301), targetAccounts: to('bluesky') })
      expect(body.blockers).toEqual([
        'bluesky @acme.bsky.social: the copy is 301 characters; bluesky allows 300',
      ])
    })

    it('checks each target’s own copy, not only the shared content', async () => {
      const body = await preflight({
        content: 'short',
        variants: { threads: 'a'.repeat(501) },
        targetAccounts: to('threads', 'linkedin'),
      })
      expect(body.ok).toBe(false)
      expect(body.blockers).toEqual([expect.stringMatching(/threads.*501 characters; threads allows 500/)])
    })
  })

  describe('networks that require media', () => {
    it.each<[string, () => Record<string, unknown>, RegExp | null]>([
      [
        'blocks Instagram without media',
        () => ({ targetAccounts: to('instagram') }),
        /instagram requires media/,
      ],
      [
        'blocks YouTube without media',
        () => ({ targetAccounts: to('youtube') }),
        /YouTube Shorts needs a video \(mediaUrl\)/,
      ],
      [
        'passes Instagram with an image',
        () => ({ targetAccounts: to('instagram'), mediaUrl: media.png('square') }),
        null,
      ],
      [
        'passes YouTube with a vertical video',
        () => ({ targetAccounts: to('youtube'), mediaUrl: media.mp4('vertical') }),
        null,
      ],
    ])('%s', async (_name, request, blocker) => {
      const body = await preflight(request())
      if (blocker) expect(body.blockers).toEqual([expect.stringMatching(blocker)])
      else expect(body.blockers).toEqual([])
      expect(body.ok).toBe(blocker === null)
    })

    it('blocks a still image for YouTube by its URL, without needing to fetch it', async () => {
      const body = await preflight({
        targetAccounts: to('youtube'),
        mediaUrl: `${media.url}/missing/still.png`,
      })
      expect(body.ok).toBe(false)
      expect(body.blockers).toContainEqual(
        expect.stringMatching(/needs a video; .*still\.png does not look like one/),
      )
    })
  })

  describe('attachment sets', () => {
    const pngs = (n: number, prefix = 'set') =>
      Array.from({ length: n }, (_, i) => media.png(`${prefix}-${i + 1}`))

    it.each<[string, Net[], () => string[], RegExp[]]>([
      ['passes four images to X', ['twitter'], () => pngs(4), []],
      [
        'blocks five images to X',
        ['twitter'],
        () => pngs(5),
        [/twitter @acme: 5 attachments; twitter takes at most 4/],
      ],
      [
        'blocks five images to Bluesky',
        ['bluesky'],
        () => pngs(5),
        [/bluesky .*: 5 attachments; bluesky takes at most 4/],
      ],
      [
        'blocks an image and a video to LinkedIn',
        ['linkedin'],
        () => [media.png('a'), media.mp4('clip')],
        [/linkedin @acme-li: linkedin does not mix video into a set of several/],
      ],
      ['passes ten images to Instagram', ['instagram'], () => pngs(10), []],
      [
        'blocks eleven images to Instagram',
        ['instagram'],
        () => pngs(11),
        [/instagram .*: 11 attachments; instagram takes at most 10/],
      ],
      [
        'passes two images and a video to Instagram',
        ['instagram'],
        () => [...pngs(2), media.mp4('clip')],
        [],
      ],
      ['passes an image and a video to Threads', ['threads'], () => [media.png('a'), media.mp4('clip')], []],
      ['passes twenty images to LinkedIn', ['linkedin'], () => pngs(20), []],
    ])('%s', async (_name, networks, mediaUrls, expected) => {
      const urls = mediaUrls()
      const body = await preflight({ targetAccounts: to(...networks), mediaUrls: urls })
      expect(body.mediaCount).toBe(urls.length)
      expect(body.blockers).toHaveLength(expected.length)
      for (const pattern of expected) expect(body.blockers).toContainEqual(expect.stringMatching(pattern))
      expect(body.ok).toBe(expected.length === 0)
    })

    it('returns mediaCount and every target’s set limits, blocking only the targets that take fewer', async () => {
      const body = await preflight({
        targetAccounts: to('twitter', 'bluesky', 'linkedin'),
        mediaUrls: pngs(5),
      })
      expect(body.mediaCount).toBe(5)
      expect(body.mediaSetLimits).toEqual({
        twitter: { min: 2, max: 4, mixesVideo: false },
        bluesky: { min: 2, max: 4, mixesVideo: false },
        linkedin: { min: 2, max: 20, mixesVideo: false },
      })
      expect(body.blockers).toEqual([
        expect.stringMatching(/^twitter .*at most 4/),
        expect.stringMatching(/^bluesky .*at most 4/),
      ])
    })

    it('reports the set limits of Instagram and Threads as mixing video', async () => {
      const body = await preflight({ targetAccounts: to('instagram', 'threads'), mediaUrls: pngs(2) })
      expect(body.mediaSetLimits).toEqual({
        instagram: { min: 2, max: 10, mixesVideo: true },
        threads: { min: 2, max: 20, mixesVideo: true },
      })
    })

    it('leaves mediaCount and mediaSetLimits out for a single attachment', async () => {
      const body = await preflight({ targetAccounts: to('linkedin'), mediaUrls: [media.png('one')] })
      expect(body).not.toHaveProperty('mediaCount')
      expect(body).not.toHaveProperty('mediaSetLimits')
    })
  })

  describe('the link surcharge', () => {
    it.each<[string, Record<string, unknown>, number, boolean]>([
      ['a copy with no link', { targetAccounts: to('twitter', 'linkedin') }, 6, false],
      [
        'a link in the shared copy to one profile',
        { content: `read ${url}`, targetAccounts: to('twitter') },
        55,
        true,
      ],
      [
        'a link in the shared copy to two profiles, charged once',
        { content: `read ${url}`, targetAccounts: to('twitter', 'linkedin') },
        56,
        true,
      ],
      [
        'links in two copies, charged once',
        {
          content: `read ${url}`,
          variants: { linkedin: 'see https://example.org/b' },
          targetAccounts: to('twitter', 'linkedin'),
        },
        56,
        true,
      ],
      [
        'a link only in one profile’s variant',
        {
          content: 'no link here',
          variants: { linkedin: `see ${url}` },
          targetAccounts: to('twitter', 'linkedin'),
        },
        56,
        true,
      ],
    ])('%s costs %i', async (_name, request, cost, surcharge) => {
      const body = await preflight(request)
      expect(body.credits.cost).toBe(cost)
      expect(body.credits.remainingAfter).toBe(body.credits.balance - cost)
      expect(body.warnings.filter((w: string) => LINK_WARNING.test(w))).toHaveLength(surcharge ? 1 : 0)
      expect(body.ok).toBe(true)
    })

    it('charges create_post what preflight quoted, surcharge included', async () => {
      const request = { content: `read ${url}`, targetAccounts: to('twitter', 'bluesky') }
      const quoted = await preflight(request)
      const created = await h.call('create_post', { ...request, ...slot })
      expect(created.body.credits).toEqual({
        charged: quoted.credits.cost,
        remaining: quoted.credits.remainingAfter,
      })
      expect(quoted.credits.cost).toBe(56)
    })
  })

  describe('media probing', () => {
    it.each<[string, () => string, RegExp | null]>([
      [
        'blocks a PNG served under a .mp4 name',
        () => `${media.url}/fake.mp4`,
        /fake\.mp4: YouTube needs a video; this is an image \(image\/png\)/,
      ],
      [
        'blocks a horizontal MP4',
        () => `${media.url}/wide.mp4`,
        /is not a Short: it must be vertical or square/,
      ],
      ['blocks a vertical MP4 over 3 minutes', () => `${media.url}/long.mp4`, /is not a Short/],
      ['passes a vertical MP4 of 30 seconds', () => media.mp4('vertical'), null],
    ])('%s to YouTube', async (_name, mediaUrl, blocker) => {
      const body = await preflight({ targetAccounts: to('youtube'), mediaUrl: mediaUrl() })
      if (blocker) expect(body.blockers).toEqual([expect.stringMatching(blocker)])
      else expect(body.blockers).toEqual([])
      expect(body.ok).toBe(blocker === null)
    })

    it('fetches each attachment from the server to probe it', async () => {
      const before = media.requests.length
      await preflight({ targetAccounts: to('youtube'), mediaUrl: media.mp4('probed-once') })
      expect(media.requests.slice(before).map((r) => r.url)).toContain('/probed-once.mp4')
    })
  })
})
