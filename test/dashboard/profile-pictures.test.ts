import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keepAvatar } from '../../src/modules/connections/avatars.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * A profile's picture, kept by Herald at connect, is what its avatar shows on Compose's profile chips and
 * previews, the Channels cards, the Posts rows and a post's page, always from Herald's own media; a profile
 * without one shows its initials; a picture that cannot be fetched leaves the initials and the connect.
 */

describe('profile pictures in the dashboard', () => {
  let h: Harness
  let pictures: TestServer
  let browser: Browser
  let path = ''

  beforeAll(async () => {
    const face = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#c0392b' } })
      .png()
      .toBuffer()
    pictures = await startServer((req, res) => {
      if (req.url === '/missing.png') return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(face.length) }).end(face)
    })
    h = await startHarness({
      adapters: { twitter: scriptedAdapter('twitter'), bluesky: scriptedAdapter('bluesky') },
      credits: 100,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
    })
    const x = await connectProfile(h, 'twitter', 'tw-1', 'acme')
    const sky = await connectProfile(h, 'bluesky', 'bs-1', 'acme.sky')
    await keepAvatar(h.app, {
      id: x,
      workspaceId: h.workspaceId,
      network: 'twitter',
      avatarUrl: `${pictures.url}/face.png`,
    })
    await keepAvatar(h.app, {
      id: sky,
      workspaceId: h.workspaceId,
      network: 'bluesky',
      avatarUrl: `${pictures.url}/missing.png`,
    })
    const row = await h.app.store.db
      .selectFrom('connections')
      .select('avatar_media_id')
      .where('id', '=', x)
      .executeTakeFirstOrThrow()
    path = `/media/${row.avatar_media_id}/avatar.jpg`
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(async () => {
    await h.close()
    await pictures.close()
  })

  // The JSX renderer writes an empty alt as a bare `alt` and ends a void element with `/>`: both mean the same.
  const picture = () =>
    new RegExp(
      `<img src="${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" alt(="")? loading="lazy" decoding="async"/?>`,
    )

  it('keeps the picture as a square JPEG served by Herald, and nothing for one that cannot be fetched', async () => {
    expect(path).toMatch(/^\/media\/[0-9a-f]{32}\/avatar\.jpg$/)
    const served = await fetch(`${h.baseUrl}${path}`)
    expect(served.headers.get('content-type')).toBe('image/jpeg')
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata()
    expect([meta.width, meta.height]).toEqual([160, 160])
    const sky = await h.app.store.db
      .selectFrom('connections')
      .select(['avatar_media_id', 'status'])
      .where('platform', '=', 'bluesky')
      .executeTakeFirstOrThrow()
    expect(sky).toEqual({ avatar_media_id: null, status: 'active' })
  })

  it('shows it on Compose’s chips and previews, and initials for the profile without one', async () => {
    const form = await browser.get('/compose')
    expect(form.text).toMatch(picture())
    expect(form.text).toMatch(/<span class="avatar" aria-hidden="true">AS<svg class="net-icon net-bluesky"/)
    const check = await browser.post(`${h.baseUrl}/compose/preflight`, {
      csrf: [browser.csrf(form)],
      content: ['Hello'],
      profile: ['twitter:tw-1'],
    })
    expect((JSON.parse(check.text) as { previewHtml: string }).previewHtml).toContain(`src="${path}"`)
  })

  it('shows it on the Channels card, the Posts row and the post’s page', async () => {
    expect((await browser.get('/channels')).text).toMatch(picture())
    const created = await h.call('create_post', {
      content: 'Pictures everywhere',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: '2031-01-01',
      scheduleTime: '10:00',
    })
    expect(created.status).toBe(200)
    expect((await browser.get('/posts')).text).toMatch(picture())
    expect((await browser.get(`/posts/${created.body.postIds[0]}`)).text).toMatch(picture())
  })
})
