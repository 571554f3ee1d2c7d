import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * A social media manager's first session, in Chromium against a sandbox Herald: sign in, make an API key
 * and use it, connect X and a LinkedIn page, compose a post to both with an image and LinkedIn copy, watch
 * the live check pass, schedule it, move it on the calendar, publish it now, see the links, refresh analytics, revoke the
 * key. Every page is photographed at desktop and phone widths; no page ever shows a network token.
 */
describe.runIf(existsSync('/usr/bin/chromium'))('the dashboard walkthrough', () => {
  let h: Harness
  let worker: Worker
  let images: TestServer
  const pages: string[] = []

  beforeAll(async () => {
    const png = await sharp({
      create: { width: 800, height: 600, channels: 3, background: { r: 20, g: 120, b: 90 } },
    })
      .png()
      .toBuffer()
    images = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) })
      res.end(png)
    })
    h = await startHarness({
      sandbox: true,
      credits: 200,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    worker = createAppWorker(h.app, { id: 'walkthrough-worker' })
    worker.start()
  })
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await images?.close()
  })

  /** Keeps the page's HTML for the token check, and looks at it at both widths in both themes. */
  async function keep(tab: Page, name?: string) {
    pages.push(await tab.content())
    if (!name) return
    expect(await lookAt(tab, name)).toEqual([])
  }

  it('goes from sign-in to published posts and a revoked key', async () => {
    const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
    const context = await chromium.launchPersistentContext(profile, {
      ...CHROMIUM,
      viewport: { width: 1366, height: 900 },
      timezoneId: 'Europe/Lisbon',
    })
    const tab = await context.newPage()
    const errors: string[] = []
    tab.on('pageerror', (error) => errors.push(error.message))
    try {
      // Sign in: `/` leads there.
      await tab.goto(h.baseUrl)
      await tab.waitForURL(/\/login/)
      await keep(tab, 'sign-in')
      await tab.getByLabel('Email').fill(h.email)
      await tab.getByLabel('Password').fill(h.password)
      await tab.getByRole('button', { name: /sign in/i }).click()
      await tab.waitForURL(/\/posts$/)

      // An API key, made in the browser, works for REST.
      await tab.getByRole('link', { name: 'AI Integration' }).click()
      await tab.getByLabel('Name').fill('Walkthrough agent')
      await tab.getByRole('button', { name: 'Create key' }).click()
      const key = await tab.locator('#new-key').inputValue()
      await keep(tab, 'ai-integration')
      const rest = () =>
        fetch(`${h.baseUrl}/api/tools/get_user_info`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: '{}',
        })
      expect((await rest()).status).toBe(200)

      // Connect sandbox X.
      await tab.goto(`${h.baseUrl}/connect/twitter`)
      await keep(tab, 'connect-confirm')
      await tab.getByRole('button', { name: 'Continue to X' }).click()
      await tab.getByLabel('Username').fill('walk_x')
      await tab.getByRole('button', { name: 'Authorize app' }).click()
      await tab.waitForURL(/\/channels/)
      // Connect a LinkedIn page through the choose-profiles page.
      await tab.goto(`${h.baseUrl}/connect/linkedin`)
      await tab.getByRole('button', { name: 'Continue to LinkedIn' }).click()
      await tab.getByLabel('Member name').fill('Avery Quinn')
      await tab.getByRole('button', { name: 'Allow' }).click()
      await tab.waitForURL(/\/choose\//)
      await keep(tab, 'choose-profiles')
      await tab.getByLabel(/Avery Quinn Studio/).check()
      await tab.getByRole('button', { name: 'Connect the ticked profiles' }).click()
      await tab.waitForURL(/\/channels/)
      await keep(tab, 'channels')

      // Compose to both, with an image and LinkedIn's own copy; check, then schedule.
      await tab.getByRole('link', { name: 'Create post' }).click()
      await tab.getByLabel('Copy', { exact: true }).fill('Our spring collection is here.')
      await tab.getByRole('checkbox', { name: 'X @walk_x', exact: true }).check()
      await tab.getByRole('checkbox', { name: 'LinkedIn @avery-quinn-studio', exact: true }).check()
      await tab.getByText('Media by address').click()
      await tab.getByLabel(/Media URLs/).fill(`${images.url}/spring.png`)
      await tab.getByRole('tab', { name: /LinkedIn/ }).click()
      await tab
        .getByLabel('Copy for LinkedIn (empty: the copy for all)')
        .fill('Our spring collection is here: made for teams.')
      const day = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10)
      await tab.getByLabel('Date', { exact: true }).fill(day)
      await tab.getByLabel('Time', { exact: true }).fill('10:00')
      // The check runs as the form changes; Schedule is enabled once it passed for these contents.
      const create = tab.getByRole('button', { name: 'Schedule' })
      await expect.poll(() => create.isEnabled(), { timeout: 15_000 }).toBe(true)
      expect(await tab.getByText('Ready to create.').count()).toBe(1)
      expect(await tab.getByText(/It costs 6 credits/).count()).toBe(1)
      expect(await tab.getByRole('article', { name: 'LinkedIn @avery-quinn-studio' }).count()).toBe(1)
      // Compose is photographed by test/dashboard/compose.test.ts, with hosted images in its preview.
      await keep(tab)
      await create.click()
      await tab.waitForURL(/\/posts$/)
      await keep(tab, 'posts')
      const listed = (await h.call('list_posts', {}, { key })).body.posts as Array<{
        id: string
        platforms: string[]
        timezone: string
      }>
      expect(listed).toHaveLength(2)
      expect(listed.every((p) => p.timezone === 'Europe/Lisbon')).toBe(true)
      const xPost = listed.find((p) => p.platforms[0] === 'twitter')!
      const liPost = listed.find((p) => p.platforms[0] === 'linkedin')!

      // Find it on the calendar, one item per profile in its network's colour, and drag it to the next day.
      await tab.getByRole('link', { name: 'Calendar' }).click()
      // The first view is in UTC; the page's script tells the server the browser's zone and shows it again.
      await tab.locator('.calendar[data-zone="Europe/Lisbon"]').waitFor()
      const next = new Date(`${day}T00:00:00Z`)
      next.setUTCDate(next.getUTCDate() + 1)
      const nextDay = next.toISOString().slice(0, 10)
      if ((await tab.locator(`.cal-day[data-date="${day}"]`).count()) === 0)
        await tab.getByRole('link', { name: 'Next month' }).click()
      const event = tab.locator(`a.cal-event[data-id="${xPost.id}"]`)
      await event.waitFor()
      expect(await tab.locator(`.cal-day[data-date="${day}"] a.cal-event.net-linkedin`).count()).toBe(1)
      expect(await event.getAttribute('class')).toContain('net-twitter')
      expect(await event.textContent()).toContain('Our spring collection is here.')
      await keep(tab, 'calendar')
      // The month after a Sunday that ends the month starts on Monday the 1st: there, drag to the day before.
      const target = (await tab.locator(`.cal-day[data-date="${nextDay}"]`).count())
        ? nextDay
        : new Date(next.getTime() - 2 * 86_400_000).toISOString().slice(0, 10)
      const from = (await event.boundingBox())!
      const to = (await tab.locator(`.cal-day[data-date="${target}"]`).boundingBox())!
      await tab.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
      await tab.mouse.down()
      await tab.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 5 })
      await tab.mouse.move(to.x + to.width / 2, to.y + to.height - 8, { steps: 15 })
      // The drop posts the reschedule form, which comes back to the calendar naming the post it moved.
      const reloaded = tab.waitForURL(/moved=/)
      await tab.mouse.up()
      await reloaded
      expect((await h.call('get_post', { id: xPost.id })).body).toMatchObject({
        scheduleDate: target,
        scheduleTime: '10:00',
        timezone: 'Europe/Lisbon',
      })

      // Publish both now and see their links.
      for (const post of [xPost, liPost]) {
        await tab.goto(`${h.baseUrl}/posts/${post.id}`)
        await tab.getByRole('button', { name: 'Publish now' }).click()
        await expect
          .poll(async () => (await h.call('get_post', { id: post.id })).body.status, { timeout: 20_000 })
          .toBe('published')
        await tab.goto(`${h.baseUrl}/posts/${post.id}`)
        // Sandbox links open the simulator's page of the post, under the network's own paths.
        const link =
          post === xPost ? '/sandbox/twitter/web/walk_x/status/' : '/sandbox/linkedin/web/feed/update/'
        const live = tab.getByRole('link', { name: post === xPost ? 'See it on X' : 'See it on LinkedIn' })
        expect(await live.count()).toBe(1)
        expect(await live.getAttribute('href')).toContain(link)
      }
      await keep(tab, 'post')

      // Refresh the LinkedIn page post's analytics: the button says its price.
      await tab.getByRole('button', { name: 'Read now (1 credit)' }).click()
      await expect.poll(() => tab.getByText('Analytics read from the networks now.').count()).toBe(1)

      await tab.getByRole('link', { name: 'Workspace', exact: true }).click()
      await keep(tab, 'workspace')

      // Revoke the key: REST refuses it.
      await tab.getByRole('link', { name: 'AI Integration' }).click()
      await tab.getByRole('button', { name: 'Revoke the key Walkthrough agent' }).click()
      await expect.poll(() => tab.getByText('Revoked the key').count()).toBe(1)
      expect((await rest()).status).toBe(401)
      expect(errors).toEqual([])
    } finally {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    }

    // No page showed a network token.
    const rows = await h.app.store.db.selectFrom('connections').select(['id', 'credentials']).execute()
    const tokens = rows.flatMap((r) => {
      const c = h.app.vault.openJson<Credentials>(connectionCredentials(r.id), r.credentials)
      return [c.accessToken, c.refreshToken].filter((t): t is string => Boolean(t))
    })
    expect(tokens.length).toBeGreaterThanOrEqual(2)
    for (const html of pages) for (const token of tokens) expect(html.includes(token)).toBe(false)
  }, 120_000)
})
