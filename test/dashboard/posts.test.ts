import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyPostSummary } from '../../src/adapters/adapter.js'
import { createAppWorker } from '../../src/main.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile, givePicture } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'
import { mp4File } from '../media/fixtures.js'

/** The Posts pages: the queue and each post's delivery, changed through the tools as the signed-in person. */
describe('the Posts pages', () => {
  let h: Harness
  let browser: Browser
  let twitter: ScriptedAdapter

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter')
    h = await startHarness({ adapters: { twitter }, env: { HERALD_IMMEDIATE_WAIT_MS: '0' } })
    await givePicture(h, await connectProfile(h, 'twitter', 'tw-1', 'acme'), '#1d6fb8')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const create = async (content: string, body: Record<string, unknown> = {}) => {
    const res = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: '2031-05-01',
      scheduleTime: '09:00',
      timezone: 'Europe/Paris',
      ...body,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.postIds[0] as string
  }
  const form = (html: string, action: string) => new RegExp(`action="/posts/[0-9a-f]+/${action}"`).test(html)

  it("lists the queue with each profile's state and links to each post", async () => {
    const id = await create('Spring launch <b>announcement</b>')
    const queue = await browser.get('/posts')
    expect(queue.status).toBe(200)
    expect(queue.text).toContain('X @acme:</span><span class="chip info">')
    expect(queue.text).toContain(`href="/posts/${id}"`)
    expect(queue.text).toContain('Spring launch &lt;b>announcement&lt;/b>')
    expect(queue.text).not.toContain('<b>announcement')
    const filtered = await browser.get('/posts?status=draft')
    expect(filtered.text).not.toContain(`href="/posts/${id}"`)
  })

  it('shows a scheduled post with the actions its state allows, and publishes it now through the worker', async () => {
    const id = await create('Publish me now')
    const shown = await browser.get(`/posts/${id}`)
    expect(shown.status).toBe(200)
    expect(form(shown.text, 'publish') && form(shown.text, 'delete') && form(shown.text, 'draft')).toBe(true)
    expect(form(shown.text, 'reset')).toBe(false)
    const sent = await browser.post(`${h.baseUrl}/posts/${id}/publish`, { csrf: [browser.csrf(shown)] })
    expect(sent.status).toBe(200)
    expect(sent.text).toContain('Sending now.')
    const worker = createAppWorker(h.app, { id: 'dashboard-worker' })
    await worker.tick()
    await worker.idle()
    const done = await browser.get(`/posts/${id}`)
    expect(done.text).toMatch(/<h1>Publish me now<\/h1><span class="chip ok">.*Published<\/span>/)
    expect(done.text).toContain(`https://twitter.example/`)
    expect(form(done.text, 'delete')).toBe(false)
    // The tool still decides: deleting a published post is refused with its own words.
    const refused = await browser.post(`${h.baseUrl}/posts/${id}/delete`, { csrf: [browser.csrf(done)] })
    expect(refused.status).toBe(409)
    expect(refused.text).toContain('X @')
    expect(refused.text).toContain('cannot be deleted from Herald')

    // Analytics: the stored readings are free; the refresh says its price and spends 1 credit.
    expect(done.text).toContain('Read now (1 credit)')
    expect(done.text).not.toContain('refresh: true')
    twitter.postMetrics = async () => ({
      summary: { ...emptyPostSummary(), views: 42, likes: 7 },
      metrics: {},
      source: 'test',
    })
    const balance = async () => (await h.call('get_user_info')).body.credits.balance as number
    const before = await balance()
    const refreshed = await browser.post(`${h.baseUrl}/posts/${id}/analytics`, { csrf: [browser.csrf(done)] })
    expect(refreshed.status).toBe(200)
    expect(refreshed.text).toContain('Analytics read from the networks now.')
    expect(refreshed.text).toContain('<dt>Views</dt><dd>42</dd>')
    expect(await balance()).toBe(before - 1)
  })

  it('offers a retry of the failed profile and moves a post to drafts or deletes it', async () => {
    twitter.script.push(fail('invalid_content', 'X refused it'))
    const failedId = await create('This one fails', {
      publishImmediately: true,
      scheduleDate: undefined,
      scheduleTime: undefined,
    })
    const worker = createAppWorker(h.app, { id: 'dashboard-worker-2' })
    await worker.tick()
    await worker.idle()
    const failed = await browser.get(`/posts/${failedId}`)
    expect(failed.text).toContain('X refused it')
    expect(failed.text).toMatch(/Retry<\/button>/)

    const id = await create('Park me')
    const shown = await browser.get(`/posts/${id}`)
    const drafted = await browser.post(`${h.baseUrl}/posts/${id}/draft`, { csrf: [browser.csrf(shown)] })
    expect(drafted.text).toMatch(/<h1>Park me<\/h1><span class="chip neutral">.*Draft<\/span>/)
    const deleted = await browser.post(`${h.baseUrl}/posts/${id}/delete`, { csrf: [browser.csrf(drafted)] })
    expect(deleted.status).toBe(303)
    expect((await h.call('get_post', { id })).status).toBe(404)
  })

  it("shows a video from Herald's own media as a player, and another host's as a link to the file", async () => {
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    const csrf = browser.csrf(await browser.get('/compose'))
    const clip = mp4File({ width: 1280, height: 720, durationMs: 4000 })
    const uploaded = await fetch(`${h.baseUrl}/compose/upload?name=clip.mp4&csrf=${csrf}`, {
      method: 'POST',
      headers: { 'content-type': 'video/mp4', cookie },
      body: clip,
    })
    expect(uploaded.status).toBe(201)
    const { url } = (await uploaded.json()) as { url: string }
    const path = new URL(url).pathname
    const id = await create('A clip of the launch', { mediaUrls: [url] })
    const shown = await browser.get(`/posts/${id}`)
    expect(shown.text).toContain(
      `<ul class="gallery"><li><video controls preload="metadata" src="${path}" aria-label="Media 1 of 1"></video></li></ul>`,
    )
    const served = await fetch(`${h.baseUrl}${path}`, { headers: { range: 'bytes=0-99' } })
    expect(served.status).toBe(206)
    expect(served.headers.get('content-type')).toBe('video/mp4')
    // The page's CSP plays media from Herald alone: a file elsewhere is a link to it, never a player.
    const elsewhere = await create('A clip on another host', {
      mediaUrls: ['https://cdn.example/launch.mp4'],
    })
    const linked = await browser.get(`/posts/${elsewhere}`)
    expect(linked.text).not.toContain('<video')
    expect(linked.text).toContain(
      'href="https://cdn.example/launch.mp4" rel="noopener noreferrer">Media 1 of 1, on cdn.example</a>',
    )
  })

  it('refuses an action without its CSRF token, and never shows another workspace a post', async () => {
    const id = await create('Keep me')
    const forged = await browser.post(`${h.baseUrl}/posts/${id}/delete`, {})
    expect(forged.status).toBe(403)
    expect((await h.call('get_post', { id })).status).toBe(200)

    const email = `neighbour-${Date.now()}@example.com`
    await h.app.accounts.bootstrap({
      email,
      password: 'neighbour password',
      workspace: 'Next door',
      credits: 10,
    })
    const neighbour = createBrowser(h.baseUrl)
    await neighbour.login(email, 'neighbour password')
    expect((await neighbour.get(`/posts/${id}`)).status).toBe(404)
    expect((await neighbour.get('/posts')).text).not.toContain(id)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'reads well in Chromium at desktop and phone widths, in both themes, with nothing for axe to find',
    async () => {
      await connectProfile(h, 'bluesky', 'bs-look', 'acme.bsky.social')
      await connectProfile(h, 'linkedin', 'li-look', 'Acme Corporation', { isOrganization: true })
      const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
      const csrf = browser.csrf(await browser.get('/compose'))
      const png = await sharp({
        create: { width: 96, height: 96, channels: 3, background: { r: 40, g: 90, b: 200 } },
      })
        .png()
        .toBuffer()
      const uploaded = await fetch(`${h.baseUrl}/compose/upload?name=launch.png&csrf=${csrf}`, {
        method: 'POST',
        headers: { 'content-type': 'image/png', cookie },
        body: png,
      })
      expect(uploaded.status).toBe(201)
      const { url } = (await uploaded.json()) as { url: string }
      const id = await create('Our spring collection is live: forty new pieces, made to last\nSee them all', {
        mediaUrls: [url],
        targetAccounts: [
          { platform: 'twitter', profileId: 'tw-1' },
          { platform: 'bluesky', profileId: 'bs-look' },
          { platform: 'linkedin', profileId: 'li-look' },
        ],
      })
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1366, height: 900 },
      })
      try {
        const tab = await context.newPage()
        await tab.goto(`${h.baseUrl}/login?next=%2Fposts`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/posts$/)
        await tab.locator('details.compose-profiles summary').first().click()
        expect(await lookAt(tab, 'posts')).toEqual([])
        await tab.goto(`${h.baseUrl}/posts?network=bluesky&q=spring`)
        expect(await tab.locator('li.compose').count()).toBe(1)
        expect(await lookAt(tab, 'posts-filtered')).toEqual([])
        await tab.goto(`${h.baseUrl}/posts/${id}`)
        await expect.poll(() => tab.getByRole('button', { name: 'Publish now' }).count()).toBe(1)
        expect(await tab.locator('.profile-card').count()).toBe(3)
        expect(await tab.locator('.gallery img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(
          96,
        )
        expect(await lookAt(tab, 'post')).toEqual([])
        const failed = (await h.call('list_posts', { status: 'failed' })).body.posts[0]?.id as string
        await tab.goto(`${h.baseUrl}/posts/${failed}`)
        expect(await lookAt(tab, 'post-failed')).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    120_000,
  )
})
