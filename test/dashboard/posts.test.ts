import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyPostSummary } from '../../src/adapters/adapter.js'
import { createAppWorker } from '../../src/main.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { screenshotDir } from '../helpers/reference.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

/** The Posts pages: the queue and each post's delivery, changed through the tools as the signed-in person. */
describe('the Posts pages', () => {
  let h: Harness
  let browser: Browser
  let twitter: ScriptedAdapter

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter')
    h = await startHarness({ adapters: { twitter }, env: { HERALD_IMMEDIATE_WAIT_MS: '0' } })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
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

  it('lists the queue with counts per status and links to each post', async () => {
    const id = await create('Spring launch <b>announcement</b>')
    const queue = await browser.get('/posts')
    expect(queue.status).toBe(200)
    expect(queue.text).toContain('scheduled (1)')
    expect(queue.text).toContain(`href="/posts/${id}"`)
    expect(queue.text).toContain('Spring launch &#60;b&#62;announcement&#60;/b&#62;')
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
    expect(done.text).toContain('<strong>published</strong>')
    expect(done.text).toContain(`https://twitter.example/`)
    expect(form(done.text, 'delete')).toBe(false)
    // The tool still decides: deleting a published post is refused with its own words.
    const refused = await browser.post(`${h.baseUrl}/posts/${id}/delete`, { csrf: [browser.csrf(done)] })
    expect(refused.status).toBe(409)
    expect(refused.text).toContain('X @')
    expect(refused.text).toContain('cannot be deleted from Herald')

    // Analytics: the stored readings are free; the refresh says its price and spends 1 credit.
    expect(done.text).toContain('Refresh analytics now (costs 1 credit)')
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
    expect(refreshed.text).toContain('<th scope="row">views</th><td>42</td>')
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
    expect(failed.text).toContain('Retry the failed profiles')

    const id = await create('Park me')
    const shown = await browser.get(`/posts/${id}`)
    const drafted = await browser.post(`${h.baseUrl}/posts/${id}/draft`, { csrf: [browser.csrf(shown)] })
    expect(drafted.text).toContain('<strong>draft</strong>')
    const deleted = await browser.post(`${h.baseUrl}/posts/${id}/delete`, { csrf: [browser.csrf(drafted)] })
    expect(deleted.status).toBe(303)
    expect((await h.call('get_post', { id })).status).toBe(404)
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
    'reads well in Chromium at desktop and phone widths',
    async () => {
      const id = await create('A post to look at, with its delivery below')
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1280, height: 900 },
      })
      try {
        const tab = await context.newPage()
        await tab.goto(`${h.baseUrl}/login?next=%2Fposts`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/posts$/)
        const shots = screenshotDir()
        mkdirSync(shots, { recursive: true })
        for (const [width, height, name] of [
          [1280, 900, 'desktop'],
          [390, 844, 'phone'],
        ] as const) {
          await tab.setViewportSize({ width, height })
          await tab.goto(`${h.baseUrl}/posts`)
          await tab.screenshot({ path: path.join(shots, `posts-${name}.png`), fullPage: true })
          await tab.goto(`${h.baseUrl}/posts/${id}`)
          await expect.poll(() => tab.getByRole('button', { name: 'Publish now' }).count()).toBe(1)
          await tab.screenshot({ path: path.join(shots, `post-${name}.png`), fullPage: true })
        }
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
