import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../helpers/backends.js'
import type { Harness } from '../helpers/harness.js'
import { connectAll, type MediaServer, snapshot, startMediaServer, startPostHarness } from './post-harness.js'

/**
 * mediaAltTexts (an addition to the spec): alt text per image, keyed by the image's URL. Bad input is a 400
 * naming the fault with nothing created, charged or changed; preflight_post lists it as a blocker; get_post
 * answers the alt texts kept, which follow their images through a reorder.
 */

const slot = { scheduleDate: '2031-03-01', scheduleTime: '10:00' }

describe.each(backends)('alt text per image on $name', (backend) => {
  let h: Harness
  let media: MediaServer
  const post = (platform: string, profileId: string, extra: Record<string, unknown>) => ({
    content: 'Fresh from the oven',
    targetAccounts: [{ platform, profileId }],
    ...slot,
    ...extra,
  })

  beforeAll(async () => {
    media = await startMediaServer()
    h = await startPostHarness(backend)
    await connectAll(h)
  })
  afterAll(async () => {
    await h.close()
    await media.close()
  })

  it.each([
    [
      'a key that is not a URL',
      () => ({ mediaUrls: [media.png('cake')], mediaAltTexts: { cake: 'A cake' } }),
      'mediaAltTexts',
    ],
    [
      'an alt text over 5,000 characters',
      () => ({ mediaUrls: [media.png('cake')], mediaAltTexts: { [media.png('cake')]: 'a'.repeat(5001) } }),
      'at most 5000',
    ],
    [
      'a key naming none of the post’s media',
      () => ({ mediaUrls: [media.png('cake')], mediaAltTexts: { [media.png('other')]: 'Another picture' } }),
      'is not one of the post',
    ],
    [
      'a key naming a video',
      () => ({ mediaUrls: [media.mp4('clip')], mediaAltTexts: { [media.mp4('clip')]: 'A clip' } }),
      'alt text goes with images',
    ],
    [
      'an alt text longer than X takes (1,000 characters)',
      () => ({ mediaUrls: [media.png('cake')], mediaAltTexts: { [media.png('cake')]: 'é'.repeat(1001) } }),
      'twitter allows 1000',
    ],
  ])('create_post with %s: 400 naming it, nothing created or charged', async (_label, extra, words) => {
    const before = await snapshot(h)
    const res = await h.call('create_post', post('twitter', 'tw-1', extra()))
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(JSON.stringify(res.body.error)).toContain(words)
    expect(await snapshot(h)).toEqual(before)
  })

  it('Bluesky counts graphemes: 2,000 flags pass, 2,001 are refused', async () => {
    const flags = '🇫🇷'
    const url = media.png('flags')
    const ok = await h.call(
      'preflight_post',
      post('bluesky', 'bs-1', { mediaUrls: [url], mediaAltTexts: { [url]: flags.repeat(2000) } }),
    )
    expect(ok.body.blockers).toEqual([])
    const over = await h.call(
      'preflight_post',
      post('bluesky', 'bs-1', { mediaUrls: [url], mediaAltTexts: { [url]: flags.repeat(2001) } }),
    )
    expect(over.body.ok).toBe(false)
    expect(over.body.blockers.join(' ')).toContain('2001 graphemes; bluesky allows 2000')
  })

  it('preflight_post reports a stray key as a blocker, and LinkedIn’s 4,086 as the longest it takes', async () => {
    const url = media.png('cake')
    const stray = await h.call(
      'preflight_post',
      post('linkedin', 'li-1', { mediaUrls: [url], mediaAltTexts: { [media.png('gone')]: 'x' } }),
    )
    expect(stray.status).toBe(200)
    expect(stray.body.ok).toBe(false)
    expect(stray.body.blockers.join(' ')).toContain(`${media.png('gone')} is not one of the post's media`)
    const long = await h.call(
      'preflight_post',
      post('linkedin', 'li-1', { mediaUrls: [url], mediaAltTexts: { [url]: 'a'.repeat(4086) } }),
    )
    expect(long.body.blockers).toEqual([])
  })

  it('get_post answers the alt texts; a reorder keeps them with their images; update_post replaces them or refuses bad ones', async () => {
    const [a, b] = [media.png('first'), media.png('second')]
    const created = await h.call(
      'create_post',
      post('linkedin', 'li-1', { mediaUrls: [a, b], mediaAltTexts: { [a]: 'The first', [b]: 'The second' } }),
    )
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.postIds[0]
    expect(created.body.post.mediaAltTexts).toEqual({ [a]: 'The first', [b]: 'The second' })

    const reordered = await h.call('update_post', { id, mediaUrls: [b, a] })
    expect(reordered.status).toBe(200)
    expect(reordered.body.post.mediaAltTexts).toEqual({ [a]: 'The first', [b]: 'The second' })
    // An image dropped takes its alt text with it.
    const dropped = await h.call('update_post', { id, mediaUrls: [b] })
    expect((await h.call('get_post', { id })).body.mediaAltTexts).toEqual({ [b]: 'The second' })
    expect(dropped.status).toBe(200)

    const before = await snapshot(h)
    const refused = await h.call('update_post', { id, mediaAltTexts: { [a]: 'Not in the post any more' } })
    expect(refused.status).toBe(400)
    expect(refused.body.error.message).toContain('is not one of the post')
    expect(await snapshot(h)).toEqual(before)
    expect((await h.call('get_post', { id })).body.mediaAltTexts).toEqual({ [b]: 'The second' })

    const cleared = await h.call('update_post', { id, mediaAltTexts: {} })
    expect(cleared.status).toBe(200)
    expect((await h.call('get_post', { id })).body.mediaAltTexts).toBeUndefined()
  })
})
