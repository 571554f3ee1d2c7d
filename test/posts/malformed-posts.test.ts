import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const slot = { scheduleDate: '2035-01-01', scheduleTime: '10:00' }
const valid = { content: 'Hello', platforms: ['linkedin'], ...slot }

/** Bodies create_post must refuse with a 4xx, creating and charging nothing. */
const createCases: Array<[string, unknown]> = [
  ['no content', { platforms: ['linkedin'], ...slot }],
  ['content as a number', { ...valid, content: 42 }],
  ['content as null', { ...valid, content: null }],
  ['content as an object', { ...valid, content: { text: 'x' } }],
  ['content over 100,000 characters', { ...valid, content: 'x'.repeat(100_001) }],
  ['no targets at all', { content: 'Hello', ...slot }],
  ['empty platforms', { ...valid, platforms: [] }],
  ['an unknown network', { ...valid, platforms: ['myspace'] }],
  ['a network in capitals', { ...valid, platforms: ['LinkedIn'] }],
  ['platforms as a string', { ...valid, platforms: 'linkedin' }],
  ['a target without platform', { content: 'Hello', targetAccounts: [{ profileId: 'li-1' }], ...slot }],
  [
    'a target with an unknown field',
    { content: 'Hello', targetAccounts: [{ platform: 'linkedin', profileId: 'li-1', token: 'x' }], ...slot },
  ],
  [
    'a target profile that is not connected',
    { content: 'Hello', targetAccounts: [{ platform: 'linkedin', profileId: 'nope' }], ...slot },
  ],
  ['targetAccounts as an object', { content: 'Hello', targetAccounts: { platform: 'linkedin' }, ...slot }],
  ['an unknown top-level field', { ...valid, priority: 'high' }],
  ['missing scheduleDate', { content: 'Hello', platforms: ['linkedin'], scheduleTime: '10:00' }],
  ['missing scheduleTime', { content: 'Hello', platforms: ['linkedin'], scheduleDate: '2035-01-01' }],
  ['a date in the wrong format', { ...valid, scheduleDate: '01/01/2035' }],
  ['a date that does not exist', { ...valid, scheduleDate: '2035-02-30' }],
  ['a time in 12-hour format', { ...valid, scheduleTime: '10:00 PM' }],
  ['a time of 24:00', { ...valid, scheduleTime: '24:00' }],
  ['a time with seconds', { ...valid, scheduleTime: '10:00:00' }],
  ['an unknown zone', { ...valid, timezone: 'Europe/Atlantis' }],
  ['an offset instead of a zone', { ...valid, timezone: '+02:00' }],
  ['a slot in the past', { ...valid, scheduleDate: '2020-01-01' }],
  ['publishImmediately as a string', { ...valid, publishImmediately: 'true' }],
  ['mediaUrl that is not a URL', { ...valid, mediaUrl: 'not a url' }],
  ['mediaUrl with a file scheme', { ...valid, mediaUrl: 'file:///etc/passwd' }],
  ['mediaUrl with a javascript scheme', { ...valid, mediaUrl: 'javascript:alert(1)' }],
  ['mediaUrls as a string', { ...valid, mediaUrls: 'https://example.com/a.png' }],
  [
    'mediaUrls with 21 items',
    { ...valid, mediaUrls: Array.from({ length: 21 }, (_, i) => `https://example.com/${i}.png`) },
  ],
  ['a variants key that is not a network', { ...valid, variants: { myspace: 'hi' } }],
  ['a variants value that is not text', { ...valid, variants: { linkedin: 5 } }],
  ['a youtube title over 100 characters', { ...valid, youtube: { title: 'x'.repeat(101) } }],
  ['a youtube description over 5,000 characters', { ...valid, youtube: { description: 'x'.repeat(5001) } }],
  ['an unknown privacyStatus', { ...valid, youtube: { privacyStatus: 'secret' } }],
  ['an unknown youtube field', { ...valid, youtube: { tags: ['a'] } }],
  ['copy over the LinkedIn limit', { ...valid, content: 'x'.repeat(3001) }],
  [
    'five images to X',
    {
      content: 'x',
      platforms: ['twitter'],
      ...slot,
      mediaUrls: [1, 2, 3, 4, 5].map((i) => `https://example.com/${i}.png`),
    },
  ],
  ['YouTube without a video', { content: 'Clip', platforms: ['youtube'], ...slot }],
  [
    'YouTube with a still image',
    { content: 'Clip', platforms: ['youtube'], ...slot, mediaUrl: 'https://example.com/a.png' },
  ],
  ['Instagram without media', { content: 'Photo', platforms: ['instagram'], ...slot }],
  ['an idempotency key over 255 characters', { ...valid, idempotencyKey: 'k'.repeat(256) }],
]

/** Bodies update_post must refuse, changing nothing. */
const updateCases: Array<[string, (id: string) => unknown]> = [
  ['no id', () => ({ content: 'x' })],
  ['an id that does not exist', () => ({ id: 'ffffffffffffffffffffffff', content: 'x' })],
  ['id as a number', () => ({ id: 12, content: 'x' })],
  ['content as a number', (id) => ({ id, content: 1 })],
  ['a status it may not set', (id) => ({ id, status: 'published' })],
  ['an unknown field', (id) => ({ id, title: 'x' })],
  ['both mediaUrl and mediaUrls', (id) => ({ id, mediaUrl: 'https://example.com/a.png', mediaUrls: [] })],
  ['an empty target list', (id) => ({ id, targetAccounts: [] })],
  [
    'a target with content (not accepted on update)',
    (id) => ({ id, targetAccounts: [{ platform: 'linkedin', profileId: 'li-1', content: 'x' }] }),
  ],
  ['a past slot', (id) => ({ id, scheduleDate: '2020-01-01' })],
  ['a bad zone', (id) => ({ id, timezone: 'Nowhere/Place' })],
  ['copy over the limit', (id) => ({ id, content: 'x'.repeat(3001) })],
]

describe.each(backends)('malformed post bodies on $name', (backend) => {
  let h: Harness
  let id: string
  beforeAll(async () => {
    h = await startHarness({ backend })
    await connectProfile(h, 'linkedin', 'li-1', 'acme')
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'youtube', 'UC1', 'acme-yt')
    await connectProfile(h, 'instagram', 'ig-1', 'acme-ig')
    id = (await h.call('create_post', valid)).body.postIds[0]
  })
  afterAll(() => h.close())

  it('has at least 40 cases', () => {
    expect(createCases.length + updateCases.length).toBeGreaterThanOrEqual(40)
  })

  const snapshot = async () => ({
    counts: (await h.call('list_posts')).body.counts,
    balance: (await h.call('get_user_info')).body.credits.balance,
    post: (await h.call('get_post', { id })).body,
  })

  it.each(createCases)(
    'create_post refuses %s with a 4xx JSON error and changes nothing',
    async (_name, body) => {
      const before = await snapshot()
      const res = await h.call('create_post', body)
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(res.status).toBeLessThan(500)
      expect(res.body).toMatchObject({
        success: false,
        error: { code: expect.any(String), message: expect.any(String) },
      })
      expect(await snapshot()).toEqual(before)
    },
  )

  it.each(updateCases)(
    'update_post refuses %s with a 4xx JSON error and changes nothing',
    async (_name, body) => {
      const before = await snapshot()
      const res = await h.call('update_post', body(id))
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(res.status).toBeLessThan(500)
      expect(res.body.success).toBe(false)
      expect(await snapshot()).toEqual(before)
    },
  )
})
