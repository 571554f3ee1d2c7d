import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import {
  balanceOf,
  checkOutput,
  connectAll,
  type MediaServer,
  snapshot,
  startMediaServer,
  startPostHarness,
  targetRows,
} from './post-harness.js'

const T0 = Date.UTC(2030, 0, 1, 12, 0)
const HOUR = 3_600_000
const slot = { scheduleDate: '2030-02-01', scheduleTime: '09:30' }

describe.each(backends)('create_post on $name', (backend) => {
  let h: Harness
  let media: MediaServer
  const clock = new FakeClock(T0)

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

  const create = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    h.call('create_post', { content: 'Hello from Herald', ...slot, ...body }, headers ? { headers } : {})

  describe('the response', () => {
    it('answers success, message, postIds, posts, post and credits exactly as spec §4 describes', async () => {
      const before = await balanceOf(h)
      const { status, body } = await create({
        content: 'Launch day',
        targetAccounts: [
          { platform: 'twitter', profileId: 'tw-1' },
          { platform: 'linkedin', profileId: 'li-1' },
        ],
        timezone: 'Europe/Paris',
      })
      expect(status).toBe(200)
      checkOutput('create_post', body)
      expect(Object.keys(body).sort()).toEqual(['credits', 'message', 'post', 'postIds', 'posts', 'success'])
      expect(body.success).toBe(true)
      expect(body.message).toEqual(expect.any(String))
      expect(body.message.length).toBeGreaterThan(0)
      expect(body.postIds).toHaveLength(2)
      for (const id of body.postIds) expect(id).toMatch(/^[0-9a-f]{24}$/)
      expect(new Set(body.postIds).size).toBe(2)
      expect(body.posts).toHaveLength(2)
      const expected = [
        ['twitter', 'tw-1'],
        ['linkedin', 'li-1'],
      ]
      body.posts.forEach((post: Record<string, unknown>, i: number) => {
        expect(post).toMatchObject({
          id: body.postIds[i],
          content: 'Launch day',
          targets: [{ platform: expected[i]?.[0], profileId: expected[i]?.[1], status: 'pending' }],
          status: 'scheduled',
          scheduleDate: '2030-02-01',
          scheduleTime: '09:30',
          timezone: 'Europe/Paris',
        })
        expect(post.targets).toHaveLength(1)
      })
      expect(body.post).toEqual(body.posts[0])
      expect(body.credits).toEqual({ charged: 6, remaining: before - 6 })
      expect(await balanceOf(h)).toBe(before - 6)
    })

    it('makes one post per profile, each findable by its own id', async () => {
      const { body } = await create({
        targetAccounts: [
          { platform: 'bluesky', profileId: 'bs-1' },
          { platform: 'threads', profileId: 'th-1' },
          { platform: 'facebook', profileId: 'fb-1' },
        ],
      })
      expect(body.postIds).toHaveLength(3)
      const profiles = []
      for (const id of body.postIds) {
        const post = (await h.call('get_post', { id })).body
        expect(post.targets).toHaveLength(1)
        profiles.push(post.targets[0].profileId)
      }
      expect(profiles).toEqual(['bs-1', 'th-1', 'fb-1'])
      expect(body.credits.charged).toBe(3)
    })

    it('expands platforms to every connected profile on the network', async () => {
      const { status, body } = await create({ platforms: ['twitter'] })
      expect(status).toBe(200)
      const profiles = body.posts.map(
        (p: { targets: Array<{ profileId: string }> }) => p.targets[0]?.profileId,
      )
      expect(profiles.sort()).toEqual(['tw-1', 'tw-2'])
      expect(body.credits.charged).toBe(10)
    })

    it('does not target a profile twice when it is named in targetAccounts and covered by platforms', async () => {
      const { body } = await create({
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1', content: 'own copy' }],
        platforms: ['twitter'],
      })
      expect(body.postIds).toHaveLength(2)
      const byProfile = Object.fromEntries(
        body.posts.map((p: { targets: Array<{ profileId: string }>; content: string }) => [
          p.targets[0]?.profileId,
          p.content,
        ]),
      )
      expect(byProfile).toEqual({ 'tw-1': 'own copy', 'tw-2': 'Hello from Herald' })
    })
  })

  describe('unknown profiles', () => {
    it.each([
      ['a profile id that is not connected', [{ platform: 'twitter', profileId: 'tw-404' }], 'tw-404'],
      ['a profile id of another network', [{ platform: 'twitter', profileId: 'li-1' }], 'li-1'],
      [
        'one unknown entry beside a connected one',
        [
          { platform: 'linkedin', profileId: 'li-1' },
          { platform: 'bluesky', profileId: 'nobody.bsky.social' },
        ],
        'nobody.bsky.social',
      ],
    ])(
      'refuses %s with a 400 listing it, creating and charging nothing',
      async (_name, targetAccounts, missing) => {
        const before = await snapshot(h)
        const { status, body } = await create({ targetAccounts })
        expect(status).toBe(400)
        expect(body.success).toBe(false)
        expect(body.error.code).toBe('invalid_request')
        expect(body.error.details.unknownTargets).toEqual([
          expect.objectContaining({ profileId: missing, reason: expect.stringContaining(missing) }),
        ])
        expect(await snapshot(h)).toEqual(before)
      },
    )

    it('matches an entry by username when profileId is omitted', async () => {
      const { status, body } = await create({
        targetAccounts: [{ platform: 'twitter', username: '@ACME_two' }],
      })
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.post.targets).toEqual([
        expect.objectContaining({ profileId: 'tw-2', username: 'acme_two' }),
      ])
    })

    it('refuses an entry naming only a network that has several profiles, asking for a profileId', async () => {
      const before = await snapshot(h)
      const { status, body } = await create({ targetAccounts: [{ platform: 'twitter' }] })
      expect(status).toBe(400)
      expect(body.error.details.unknownTargets).toEqual([
        { platform: 'twitter', reason: '2 twitter profiles are connected; name one with profileId' },
      ])
      expect(await snapshot(h)).toEqual(before)
    })

    it('refuses a platform with no connected profile and names it', async () => {
      const other = await startPostHarness(backend)
      try {
        await connectProfile(other, 'twitter', 'tw-x', 'x')
        const { status, body } = await other.call('create_post', {
          content: 'hi',
          platforms: ['twitter', 'linkedin'],
          ...slot,
        })
        expect(status).toBe(400)
        expect(body.error.details.unknownTargets).toEqual([expect.objectContaining({ platform: 'linkedin' })])
        expect((await other.call('list_posts', {})).body.counts.all).toBe(0)
      } finally {
        await other.close()
      }
    })
  })

  describe('copy per target: targetAccounts[].content > variants["<platform>:<profileId>"] > variants[platform] > content', () => {
    let byProfile: Record<string, { postContent: string; targetContent: string }>
    beforeAll(async () => {
      const { status, body } = await create({
        content: 'shared copy',
        variants: {
          twitter: 'network copy for X',
          'twitter:tw-1': 'profile copy for tw-1',
          'twitter:tw-2': 'profile copy for tw-2',
          linkedin: 'network copy for LinkedIn',
        },
        targetAccounts: [
          { platform: 'twitter', profileId: 'tw-1', content: 'own copy for tw-1' },
          { platform: 'twitter', profileId: 'tw-2' },
          { platform: 'linkedin', profileId: 'li-1' },
          { platform: 'bluesky', profileId: 'bs-1' },
        ],
      })
      expect(status, JSON.stringify(body)).toBe(200)
      byProfile = {}
      for (const post of body.posts) {
        const [row] = await targetRows(h, post.id)
        byProfile[post.targets[0].profileId] = {
          postContent: post.content,
          targetContent: row?.content ?? '',
        }
      }
    })

    it.each([
      ['the entry’s own content wins over a per-profile variant', 'tw-1', 'own copy for tw-1'],
      ['a per-profile variant wins over the network variant', 'tw-2', 'profile copy for tw-2'],
      ['a network variant wins over the shared content', 'li-1', 'network copy for LinkedIn'],
      ['the shared content is used without a variant', 'bs-1', 'shared copy'],
    ])('%s', (_name, profileId, copy) => {
      expect(byProfile[profileId]).toEqual({ postContent: copy, targetContent: copy })
    })
  })

  describe('media per target: targetAccounts[].mediaUrls > .mediaUrl > mediaUrls > mediaUrl', () => {
    const urls = (names: string[]) => names.map((n) => `${media.url}/${n}.png`)
    let byProfile: Record<string, { mediaUrls: string[]; mediaUrl: string | undefined; stored: string[] }>
    beforeAll(async () => {
      const { status, body } = await create({
        mediaUrls: urls(['shared-1', 'shared-2']),
        mediaUrl: media.png('shared-single'),
        targetAccounts: [
          {
            platform: 'twitter',
            profileId: 'tw-1',
            mediaUrls: urls(['own-1', 'own-2', 'own-3']),
            mediaUrl: media.png('own-single'),
          },
          { platform: 'twitter', profileId: 'tw-2', mediaUrl: media.png('own-single-tw2') },
          { platform: 'linkedin', profileId: 'li-1' },
        ],
      })
      expect(status, JSON.stringify(body)).toBe(200)
      byProfile = {}
      for (const post of body.posts) {
        const [row] = await targetRows(h, post.id)
        byProfile[post.targets[0].profileId] = {
          mediaUrls: post.mediaUrls,
          mediaUrl: post.mediaUrl,
          stored: row?.media_urls ?? [],
        }
      }
    })

    it.each([
      ['the entry’s own mediaUrls win over its mediaUrl', 'tw-1', ['own-1', 'own-2', 'own-3']],
      ['the entry’s own mediaUrl wins over the shared set', 'tw-2', ['own-single-tw2']],
      ['the shared mediaUrls win over the shared mediaUrl', 'li-1', ['shared-1', 'shared-2']],
    ])('%s', (_name, profileId, names) => {
      const expected = urls(names)
      expect(byProfile[profileId]).toEqual({ mediaUrls: expected, mediaUrl: expected[0], stored: expected })
    })

    it('uses the shared mediaUrl as a set of one when nothing else is given', async () => {
      const { body } = await create({
        mediaUrl: media.png('lonely'),
        targetAccounts: [{ platform: 'bluesky' }],
      })
      expect(body.post.mediaUrls).toEqual([media.png('lonely')])
      expect(body.post.mediaUrl).toBe(media.png('lonely'))
    })

    it('leaves mediaUrls empty for a text post', async () => {
      const { body } = await create({ targetAccounts: [{ platform: 'bluesky' }] })
      expect(body.post.mediaUrls).toEqual([])
      expect(body.post.mediaUrl).toBeUndefined()
    })
  })

  describe('YouTube upload details', () => {
    const youtubeTarget = () => ({ platform: 'youtube', profileId: 'yt-1' })

    it.each([
      ['a title over 100 characters', { title: 'x'.repeat(101) }, 'youtube.title'],
      ['a description over 5,000 characters', { description: 'x'.repeat(5001) }, 'youtube.description'],
      ['an unknown privacyStatus', { privacyStatus: 'friends-only' }, 'youtube.privacyStatus'],
      ['an unknown field', { tags: ['a'] }, 'youtube'],
    ])('refuses %s with a 400 and creates nothing', async (_name, youtube, path) => {
      const before = await snapshot(h)
      const { status, body } = await create({
        mediaUrl: media.mp4('short'),
        targetAccounts: [youtubeTarget()],
        youtube,
      })
      expect(status).toBe(400)
      expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]))
      expect(await snapshot(h)).toEqual(before)
    })

    it('accepts a title of exactly 100 characters', async () => {
      const title = 't'.repeat(100)
      const { status, body } = await create({
        mediaUrl: media.mp4('short'),
        targetAccounts: [youtubeTarget()],
        youtube: { title },
      })
      expect(status, JSON.stringify(body)).toBe(200)
      expect((await targetRows(h, body.postIds[0]))[0]?.youtube?.title).toBe(title)
    })

    const longLine = `${'Long headline '.repeat(10)}end`
    it.each([
      [
        'takes the first non-empty line as the title and strips angle brackets (the API refuses them)',
        '\n   \n  <Launch> day: our <b>new</b> thing  \nMore below #launch',
        undefined,
        {
          title: 'Launch day: our bnew/b thing',
          description: 'Launch day: our bnew/b thing  \nMore below #launch\n\n#Shorts',
          privacyStatus: 'public',
        },
      ],
      [
        'trims a long first line to 100 characters',
        `${longLine}\nsecond line`,
        undefined,
        {
          title: [...longLine].slice(0, 100).join('').trim(),
          description: `${longLine}\nsecond line\n\n#Shorts`,
          privacyStatus: 'public',
        },
      ],
      [
        'does not append #Shorts twice',
        'Already a short #Shorts',
        undefined,
        { title: 'Already a short #Shorts', description: 'Already a short #Shorts', privacyStatus: 'public' },
      ],
      [
        'keeps a given title and privacyStatus and still defaults the description',
        'First line\nSecond line',
        { title: 'Given title', privacyStatus: 'unlisted' },
        {
          title: 'Given title',
          description: 'First line\nSecond line\n\n#Shorts',
          privacyStatus: 'unlisted',
        },
      ],
    ])('%s', async (_name, content, youtube, expected) => {
      const { status, body } = await create({
        content,
        mediaUrl: media.mp4('short'),
        targetAccounts: [youtubeTarget()],
        ...(youtube ? { youtube } : {}),
      })
      expect(status, JSON.stringify(body)).toBe(200)
      const [row] = await targetRows(h, body.postIds[0])
      expect(row?.youtube).toEqual(expected)
    })

    it('computes the defaults from the target’s own copy and merges its own details over the shared ones', async () => {
      const { body } = await create({
        content: 'Shared first line',
        mediaUrl: media.mp4('short'),
        youtube: { title: 'Shared title', privacyStatus: 'private' },
        targetAccounts: [
          { ...youtubeTarget(), content: 'Own line\nmore', youtube: { privacyStatus: 'unlisted' } },
        ],
      })
      const [row] = await targetRows(h, body.postIds[0])
      expect(row?.youtube).toEqual({
        title: 'Shared title',
        description: 'Own line\nmore\n\n#Shorts',
        privacyStatus: 'unlisted',
      })
    })

    it('ignores the youtube object for other networks', async () => {
      const { body } = await create({
        youtube: { title: 'Ignored' },
        targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      })
      expect(body.post.youtube).toBeUndefined()
      expect((await targetRows(h, body.postIds[0]))[0]?.youtube).toBeNull()
    })
  })

  describe('publishImmediately without a worker', () => {
    it('answers within HERALD_IMMEDIATE_WAIT_MS with the post still queued', async () => {
      const started = Date.now()
      const { status, body } = await h.call('create_post', {
        content: 'right now',
        targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
        publishImmediately: true,
      })
      const elapsed = Date.now() - started
      expect(status).toBe(200)
      expect(elapsed).toBeLessThan(200 + 1500)
      expect(body.success).toBe(true)
      expect(body.post.status).toBe('scheduled')
      expect(body.post.targets).toEqual([expect.objectContaining({ profileId: 'li-1', status: 'pending' })])
      expect(body.post.dueAt).toBe(new Date(clock.now()).toISOString())
      expect(body.post).toEqual(body.posts[0])
      expect(body.credits.charged).toBe(1)
      expect((await h.call('get_post', { id: body.postIds[0] })).body.status).toBe('scheduled')
    })
  })

  describe('refusing what preflight would block', () => {
    it.each<[string, () => Record<string, unknown>]>([
      [
        'copy over Bluesky’s 300 graphemes',
        () => ({ content: 'b'.repeat(301), targetAccounts: [{ platform: 'bluesky' }] }),
      ],
      ['Instagram without media', () => ({ targetAccounts: [{ platform: 'instagram' }] })],
      [
        'YouTube with a still image',
        () => ({ targetAccounts: [{ platform: 'youtube' }], mediaUrl: media.png('still') }),
      ],
      ['YouTube without media', () => ({ targetAccounts: [{ platform: 'youtube' }] })],
      [
        'a profile that needs reconnecting',
        () => ({ targetAccounts: [{ platform: 'linkedin', profileId: 'li-dead' }] }),
      ],
      [
        'five images to X',
        () => ({
          targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
          mediaUrls: [1, 2, 3, 4, 5].map((n) => media.png(`five-${n}`)),
        }),
      ],
      [
        'a horizontal video to YouTube',
        () => ({ targetAccounts: [{ platform: 'youtube' }], mediaUrl: `${media.url}/wide.mp4` }),
      ],
    ])(
      'refuses %s with a 400 listing the blockers, creating and charging nothing',
      async (_name, request) => {
        const body = request()
        const before = await snapshot(h)
        const preflight = await h.call('preflight_post', { content: 'Hello from Herald', ...slot, ...body })
        expect(preflight.body.ok).toBe(false)
        const res = await create(body)
        expect(res.status).toBe(400)
        expect(res.body.error.code).toBe('invalid_request')
        expect(res.body.error.details.blockers.length).toBeGreaterThan(0)
        for (const blocker of res.body.error.details.blockers)
          expect(preflight.body.blockers).toContain(blocker)
        expect(await snapshot(h)).toEqual(before)
      },
    )

    it('refuses a post the balance cannot pay with a 402 and creates nothing', async () => {
      const poor = await startPostHarness(backend, { credits: 4 })
      try {
        await connectProfile(poor, 'twitter', 'tw-p', 'poor')
        const res = await poor.call('create_post', { content: 'x', platforms: ['twitter'], ...slot })
        expect(res.status).toBe(402)
        expect(res.body.error.code).toBe('insufficient_credits')
        expect((await poor.call('list_posts', {})).body.counts.all).toBe(0)
        expect(await balanceOf(poor)).toBe(4)
      } finally {
        await poor.close()
      }
    })
  })

  describe('idempotency', () => {
    const body = (content: string) => ({
      content,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: '2030-03-01',
      scheduleTime: '10:00',
    })

    it('answers the same key and body within 24 hours with the identical first response, creating and charging nothing', async () => {
      const key = `key-${Math.random()}`
      const first = await h.call('create_post', body('idem header'), { headers: { 'idempotency-key': key } })
      expect(first.status).toBe(200)
      const before = await snapshot(h)
      clock.advance(23 * HOUR)
      const again = await h.call('create_post', body('idem header'), { headers: { 'idempotency-key': key } })
      expect(again.status).toBe(200)
      expect(again.body).toEqual(first.body)
      expect(await snapshot(h)).toEqual(before)
    })

    it('still replays the first response when its slot has passed since', async () => {
      const key = `key-${Math.random()}`
      const soon = { ...body('idem soon'), scheduleDate: '2030-01-01', scheduleTime: '00:00' }
      clock.set(Date.UTC(2029, 11, 31, 23, 0))
      const first = await h.call('create_post', soon, { headers: { 'idempotency-key': key } })
      expect(first.status, JSON.stringify(first.body)).toBe(200)
      const before = await snapshot(h)
      clock.set(Date.UTC(2030, 0, 1, 3, 0))
      const again = await h.call('create_post', soon, { headers: { 'idempotency-key': key } })
      expect(again.status, JSON.stringify(again.body)).toBe(200)
      expect(again.body).toEqual(first.body)
      expect(await snapshot(h)).toEqual(before)
      clock.set(T0)
    })

    it('creates once when several requests race with one new key, answering each the same', async () => {
      const key = `race-${Math.random()}`
      const before = await snapshot(h)
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          h.call('create_post', body('idem race'), { headers: { 'idempotency-key': key } }),
        ),
      )
      for (const res of responses) {
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        expect(res.body).toEqual(responses[0]?.body)
      }
      const after = await snapshot(h)
      const stored = await h.app.store.db
        .selectFrom('posts')
        .select('id')
        .where('workspace_id', '=', h.workspaceId)
        .where('content', '=', 'idem race')
        .execute()
      expect(stored.map((p) => p.id)).toEqual(responses[0]?.body.postIds)
      expect(after.balance).toBe(before.balance - 5)
      expect(after.ledger).toBe(before.ledger + 1)
    })

    it('refuses the same key with a different body with a 409', async () => {
      const key = `key-${Math.random()}`
      await h.call('create_post', body('one body'), { headers: { 'idempotency-key': key } })
      const before = await snapshot(h)
      const other = await h.call('create_post', body('another body'), { headers: { 'idempotency-key': key } })
      expect(other.status).toBe(409)
      expect(other.body.error.code).toBe('conflict')
      expect(await snapshot(h)).toEqual(before)
    })

    it('treats the key as fresh after 24 hours', async () => {
      clock.set(T0)
      const key = `key-${Math.random()}`
      const first = await h.call('create_post', body('fresh later'), { headers: { 'idempotency-key': key } })
      clock.advance(24 * HOUR + 1000)
      const before = await balanceOf(h)
      const again = await h.call('create_post', body('fresh later'), { headers: { 'idempotency-key': key } })
      expect(again.status).toBe(200)
      expect(again.body.postIds).not.toEqual(first.body.postIds)
      expect(again.body.credits).toEqual({ charged: 5, remaining: before - 5 })
      const changed = await h.call('create_post', body('another body now'), {
        headers: { 'idempotency-key': key },
      })
      expect(changed.status).toBe(409)
      clock.set(T0)
    })

    it('works the same with the idempotencyKey argument in the body', async () => {
      const args = { ...body('idem argument'), idempotencyKey: `arg-${Math.random()}` }
      const first = await h.call('create_post', args)
      const before = await snapshot(h)
      const again = await h.call('create_post', args)
      expect(again.body).toEqual(first.body)
      expect(await snapshot(h)).toEqual(before)
      expect((await h.call('create_post', { ...args, content: 'changed' })).status).toBe(409)
    })

    it('works the same with the idempotencyKey argument through multicall', async () => {
      const args = { ...body('idem multicall'), idempotencyKey: `multi-${Math.random()}` }
      const batch = { calls: [{ tool: 'create_post', arguments: args }] }
      const first = await h.call('multicall', batch)
      expect(first.body.results[0].ok).toBe(true)
      const before = await snapshot(h)
      const again = await h.call('multicall', batch)
      expect(again.body.results[0].result).toEqual(first.body.results[0].result)
      expect(await snapshot(h)).toEqual(before)
      const changed = await h.call('multicall', {
        calls: [{ tool: 'create_post', arguments: { ...args, content: 'changed' } }],
      })
      expect(changed.body.results[0]).toMatchObject({ ok: false, error: { code: 'conflict' } })
    })

    it('works the same with the idempotencyKey argument over MCP, sharing keys with REST', async () => {
      const args = { ...body('idem mcp'), idempotencyKey: `mcp-${Math.random()}` }
      const client = new Client({ name: 'herald-test', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
          requestInit: { headers: { 'x-api-key': h.apiKey } },
        }),
      )
      try {
        const textOf = (result: unknown) =>
          JSON.parse((result as { content: Array<{ text: string }> }).content[0]?.text ?? 'null')
        const first = textOf(await client.callTool({ name: 'create_post', arguments: args }))
        const before = await snapshot(h)
        const again = textOf(await client.callTool({ name: 'create_post', arguments: args }))
        expect(again).toEqual(first)
        expect((await h.call('create_post', args)).body).toEqual(first)
        expect(await snapshot(h)).toEqual(before)
        const changed = await client.callTool({
          name: 'create_post',
          arguments: { ...args, content: 'changed' },
        })
        expect(changed.isError).toBe(true)
        expect(textOf(changed).error.code).toBe('conflict')
      } finally {
        await client.close()
      }
    })
  })
})
