import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { connectMetaGrant } from '../helpers/meta-connect.js'
import { usePreflightRig } from '../helpers/preflight-rig.js'

/** Preflight and create_post rules for Facebook Pages and Instagram. */
describe('preflight for Facebook and Instagram', () => {
  const rig = usePreflightRig(async (h) => {
    const profiles = await connectMetaGrant(h, 'Rules Shop')
    return profiles.find((p) => p.network === 'instagram')!.profile.profileId
  })
  const { url, preflight } = rig
  let h: Harness
  let igUserId: string
  beforeAll(() => {
    h = rig.h
    igUserId = rig.connected
  })

  it('blocks a text-only Instagram target, and create_post refuses it with a 400', async () => {
    const result = await preflight({ content: 'words only', platforms: ['instagram'] })
    expect(result.blockers.join()).toMatch(/instagram requires media/)
    const created = await h.call('create_post', {
      content: 'words only',
      platforms: ['instagram'],
      publishImmediately: true,
    })
    expect(created.status).toBe(400)
  })

  it('blocks 11 items, a 2,201-character caption, 31 hashtags and 21 mentions', async () => {
    const eleven = await preflight({
      content: 'x',
      platforms: ['instagram'],
      mediaUrls: Array.from({ length: 11 }, (_, i) => url(`p${i}.jpg`)),
    })
    expect(eleven.blockers.join()).toMatch(/11 attachments; instagram takes at most 10/)
    expect(eleven.mediaCount).toBe(11)
    expect(eleven.mediaSetLimits).toEqual({ instagram: { min: 2, max: 10, mixesVideo: true } })
    const long = await preflight({
      content: 'a'.repeat(2201),
      platforms: ['instagram'],
      mediaUrl: url('a.jpg'),
    })
    expect(long.blockers.join()).toMatch(/2201 characters; instagram allows 2200/)
    const tags = Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ')
    expect(
      (await preflight({ content: tags, platforms: ['instagram'], mediaUrl: url('a.jpg') })).blockers.join(),
    ).toMatch(/31 hashtags; instagram allows 30/)
    const thirty = Array.from({ length: 30 }, (_, i) => `#tag${i}`).join(' ')
    expect((await preflight({ content: thirty, platforms: ['instagram'], mediaUrl: url('a.jpg') })).ok).toBe(
      true,
    )
    const mentions = Array.from({ length: 21 }, (_, i) => `@friend${i}`).join(' ')
    expect(
      (
        await preflight({ content: mentions, platforms: ['instagram'], mediaUrl: url('a.jpg') })
      ).blockers.join(),
    ).toMatch(/21 @mentions; instagram allows 20/)
  })

  it('allows an Instagram carousel with a video but blocks a Facebook set holding one', async () => {
    const mixed = [url('a.jpg'), url('b.jpg'), url('clip.mp4')]
    expect((await preflight({ content: 'set', platforms: ['instagram'], mediaUrls: mixed })).ok).toBe(true)
    const fb = await preflight({ content: 'set', platforms: ['facebook'], mediaUrls: mixed })
    expect(fb.blockers.join()).toMatch(/facebook does not mix video into a set of several/)
  })

  it('warns when the 24-hour Instagram publishing allowance is nearly used', async () => {
    const set = (used: number) =>
      fetch(`${h.baseUrl}${sandboxPrefixes.instagram}/_sandbox/allowance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ igUserId, used }),
      })
    await set(95)
    const nearly = await preflight({ content: 'hi', platforms: ['instagram'], mediaUrl: url('a.jpg') })
    expect(nearly.ok).toBe(true)
    expect(nearly.warnings.join()).toMatch(/95 of 100 posts allowed in 24 hours are used; 5 left/)
    await set(3)
    expect(
      (await preflight({ content: 'hi', platforms: ['instagram'], mediaUrl: url('a.jpg') })).warnings.join(),
    ).not.toMatch(/allowed in 24 hours/)
  })
})

describe('a media host the internet cannot reach, outside sandbox mode', () => {
  let h: Harness
  // A name that does not resolve: accepted at create time (checked again at send time), never fetched here.
  const media = 'https://media.example.invalid/a.jpg'

  beforeAll(async () => {
    h = await startHarness({
      env: { HERALD_META_GRAPH_URL: 'http://127.0.0.1:1', HERALD_INSTAGRAM_GRAPH_URL: 'http://127.0.0.1:1' },
    })
    await connectProfile(h, 'instagram', '17841400000000001', 'shop')
    await connectProfile(h, 'facebook', '100000000000001', 'shoppage', { isOrganization: true })
    await connectProfile(h, 'twitter', '42', 'shopx')
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })

  it('blocks Instagram and Facebook targets with media, naming the fix, in preflight and create_post', async () => {
    const input = {
      content: 'hello',
      platforms: ['instagram', 'facebook', 'twitter'],
      mediaUrl: media,
      publishImmediately: true,
    }
    const { body } = await h.call('preflight_post', input)
    const blockers = (body.blockers as string[]).join('\n')
    expect(blockers).toMatch(
      /Instagram downloads the media from Herald's public address, and PUBLIC_BASE_URL \(http:\/\/127\.0\.0\.1:\d+\) is not https: set PUBLIC_BASE_URL to an https address/,
    )
    expect(blockers).toMatch(/^Facebook downloads the media/m)
    expect(blockers).not.toMatch(/^X /m)
    const created = await h.call('create_post', input)
    expect(created.status).toBe(400)
    expect(JSON.stringify(created.body)).toMatch(/set PUBLIC_BASE_URL/)
    const textOnly = await h.call('preflight_post', {
      content: 'hello',
      platforms: ['facebook'],
      publishImmediately: true,
    })
    expect(textOnly.body.blockers).toEqual([])
  })
})
