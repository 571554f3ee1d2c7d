import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mediaUrlRefusal } from '../../src/platform/egress/url-policy.js'
import { backends } from '../helpers/backends.js'
import type { Harness } from '../helpers/harness.js'
import { connectAll, snapshot, startPostHarness } from './post-harness.js'

const slot = { scheduleDate: '2031-03-01', scheduleTime: '10:00' }
const metadata = 'http://169.254.169.254/latest/meta-data/x.png'
const networks = [
  ['twitter', 'tw-1'],
  ['linkedin', 'li-1'],
  ['facebook', 'fb-1'],
  ['instagram', 'ig-1'],
  ['threads', 'th-1'],
  ['bluesky', 'bs-1'],
  ['youtube', 'yt-1'],
] as const

describe('a media URL Herald will never fetch', () => {
  const resolvesTo = (address: string) => async () => [{ address, family: 4 as const }]

  it.each([
    ['the metadata address', metadata, { allowPrivate: true }],
    ['loopback', 'http://127.0.0.1/a.png', { allowPrivate: false }],
    ['a private network', 'https://10.1.2.3/a.png', { allowPrivate: false }],
    ['a loopback name', 'http://localhost:8080/a.png', { allowPrivate: false }],
    ['a scheme other than http(s)', 'file:///etc/passwd', { allowPrivate: true }],
    ['an IPv6 mapped loopback', 'http://[::ffff:127.0.0.1]/a.png', { allowPrivate: false }],
  ])('is refused when it points at %s', async (_label, url, options) => {
    const reason = await mediaUrlRefusal(url, options)
    expect(reason).toContain(url)
    expect(reason).toMatch(/public addresses/)
  })

  it('is refused when a public-looking name resolves inside the network, without naming the answer', async () => {
    const reason = await mediaUrlRefusal('https://cdn.example.com/a.png', {
      allowPrivate: false,
      lookup: resolvesTo('10.20.30.40'),
    })
    expect(reason).toContain('cdn.example.com resolves to a private-network address')
    expect(reason).not.toContain('10.20.30.40')
  })

  it('passes a public address, and a name that does not resolve now (checked again at send time)', async () => {
    expect(
      await mediaUrlRefusal('https://cdn.example.com/a.png', {
        allowPrivate: false,
        lookup: resolvesTo('93.184.216.34'),
      }),
    ).toBeUndefined()
    expect(
      await mediaUrlRefusal('https://nowhere.example/a.png', {
        allowPrivate: false,
        lookup: async () => {
          throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
        },
      }),
    ).toBeUndefined()
  })
})

describe.each(backends)(
  'create_post, update_post and preflight_post refuse such URLs on $name',
  (backend) => {
    let h: Harness

    beforeAll(async () => {
      h = await startPostHarness(backend)
      await connectAll(h)
    })
    afterAll(async () => {
      await h.close()
    })

    it.each(networks)(
      'create_post to %s: 400 naming the URL and the rule, nothing created or charged',
      async (platform, profileId) => {
        const url = platform === 'youtube' ? metadata.replace('.png', '.mp4') : metadata
        const before = await snapshot(h)
        const res = await h.call('create_post', {
          content: 'Look at this',
          targetAccounts: [{ platform, profileId }],
          mediaUrl: url,
          ...(platform === 'youtube' ? { youtube: { title: 'A clip', privacyStatus: 'public' } } : {}),
          ...slot,
        })
        expect(res.status).toBe(400)
        expect(res.body.error.code).toBe('invalid_request')
        expect(res.body.error.message).toContain(url)
        expect(res.body.error.message).toMatch(/public addresses/)
        expect(res.body.error.details).toEqual([{ path: 'mediaUrls', message: expect.stringContaining(url) }])
        expect(await snapshot(h)).toEqual(before)
      },
    )

    it('update_post: 400 and the post unchanged', async () => {
      const created = await h.call('create_post', {
        content: 'Text only for now',
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        ...slot,
      })
      expect(created.status).toBe(200)
      const id = created.body.postIds[0]
      const before = await snapshot(h)
      const res = await h.call('update_post', { id, mediaUrls: ['http://[::1]:9/x.png', metadata] })
      expect(res.status).toBe(400)
      expect(res.body.error.message).toContain(metadata)
      const post = await h.call('get_post', { id })
      expect(post.body.mediaUrls ?? []).toEqual([])
      expect(await snapshot(h)).toEqual(before)
    })

    it('preflight_post reports it as a blocker', async () => {
      const res = await h.call('preflight_post', {
        content: 'Look at this',
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        mediaUrl: metadata,
      })
      expect(res.status).toBe(200)
      expect(res.body.ok).toBe(false)
      expect(res.body.blockers.join(' ')).toContain(metadata)
    })

    it("preflight_post answers ok: true for the spec's own request (content and targetAccounts, no schedule)", async () => {
      const res = await h.call('preflight_post', {
        content: 'Hello from Herald',
        targetAccounts: [{ platform: 'bluesky', profileId: 'bs-1' }],
      })
      expect(res.status).toBe(200)
      expect(res.body.blockers).toEqual([])
      expect(res.body.ok).toBe(true)
    })
  },
)
