import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { screenshotDir } from '../helpers/reference.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'

/** Compose: check with preflight_post (blockers, warnings, cost), then create with create_post. */
describe('the Compose page', () => {
  let h: Harness
  let browser: Browser

  beforeAll(async () => {
    h = await startHarness({
      adapters: { twitter: scriptedAdapter('twitter'), linkedin: scriptedAdapter('linkedin') },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
      credits: 100,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const compose = async (fields: Record<string, string[]>) => {
    const form = await browser.get('/compose')
    return browser.post(`${h.baseUrl}/compose`, { csrf: [browser.csrf(form)], ...fields })
  }

  it('lists the connected profiles and keeps Create disabled until a check passes', async () => {
    const form = await browser.get('/compose')
    expect(form.status).toBe(200)
    expect(form.text).toContain('value="twitter:tw-1"')
    expect(form.text).toContain('value="linkedin:li-1"')
    expect(form.text).toMatch(/value="create" disabled/)
  })

  it('a check shows the blockers as Herald counts them and the cost, and creates nothing', async () => {
    const checked = await compose({
      intent: ['check'],
      content: ['x'.repeat(281)],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      when: ['schedule'],
      date: ['2031-06-01'],
      time: ['10:00'],
      timezone: ['Europe/Berlin'],
    })
    expect(checked.status).toBe(200)
    expect(checked.text).toContain('It costs <strong>6</strong> credits of 100')
    expect(checked.text).toContain('X allows 280')
    expect((await h.call('list_posts', {})).body.counts.all).toBe(0)
  })

  it('creates the post with a per-network variant once the check passes, scheduled in the given zone', async () => {
    const fields = {
      content: ['Hello from the dashboard'],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      variant_linkedin: ['Hello, LinkedIn network'],
      when: ['schedule'],
      date: ['2031-06-01'],
      time: ['10:00'],
      timezone: ['Europe/Berlin'],
    }
    const checked = await compose({ intent: ['check'], ...fields })
    expect(checked.text).toContain('Ready to create.')
    expect(checked.text).not.toMatch(/value="create" disabled/)
    const created = await compose({ intent: ['create'], ...fields })
    expect(created.status).toBe(303)
    const posts = (await h.call('list_posts', {})).body.posts as Array<{
      content: string
      timezone: string
      targets: Array<{ platform: string }>
      variants?: Record<string, string>
    }>
    expect(posts).toHaveLength(2)
    expect(posts.every((p) => p.timezone === 'Europe/Berlin')).toBe(true)
    const rows = await h.app.store.db.selectFrom('targets').select(['platform', 'content']).execute()
    expect(rows.find((r) => r.platform === 'linkedin')?.content).toBe('Hello, LinkedIn network')
    expect(rows.find((r) => r.platform === 'twitter')?.content).toBe('Hello from the dashboard')
  })

  it('hosts an uploaded image and accepts its URL in a post, with no private-media setting', async () => {
    const form = await browser.get('/compose')
    const csrf = browser.csrf(form)
    const png = await sharp({
      create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 40, b: 40 } },
    })
      .png()
      .toBuffer()
    const upload = (query: string, type: string, body: Buffer) =>
      fetch(`${h.baseUrl}/compose/upload?${query}`, {
        method: 'POST',
        headers: {
          'content-type': type,
          cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
        body,
      })
    expect((await upload('name=red.png', 'image/png', png)).status).toBe(403)
    expect((await upload(`name=notes.txt&csrf=${csrf}`, 'text/plain', Buffer.from('hello'))).status).toBe(415)
    const answer = await upload(`name=red%20square.png&csrf=${csrf}`, 'image/png', png)
    expect(answer.status).toBe(201)
    const { url } = (await answer.json()) as { url: string }
    expect(url).toMatch(/\/media\/[0-9a-f]{32}\/red-square\.png$/)
    const hosted = await fetch(new URL(new URL(url).pathname, h.baseUrl))
    expect(Buffer.from(await hosted.arrayBuffer()).equals(png)).toBe(true)
    const created = await h.call('create_post', {
      content: 'With an uploaded image',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      mediaUrl: url,
      scheduleDate: '2031-06-02',
      scheduleTime: '10:00',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
  })

  it('refuses a submission without its CSRF token', async () => {
    const forged = await browser.post(`${h.baseUrl}/compose`, {
      intent: ['create'],
      content: ['Forged'],
      profile: ['twitter:tw-1'],
      when: ['now'],
    })
    expect(forged.status).toBe(403)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'checks a post in Chromium, with the zone taken from the browser',
    async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: '/usr/bin/chromium',
        viewport: { width: 1280, height: 900 },
        timezoneId: 'America/New_York',
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      })
      try {
        const tab = await context.newPage()
        await tab.goto(`${h.baseUrl}/login?next=%2Fcompose`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/compose$/)
        expect(await tab.getByLabel('Time zone').inputValue()).toBe('America/New_York')
        await tab.getByLabel('Copy', { exact: true }).fill('Launch day! Our new site is live.')
        await tab.getByLabel(/X: @acme/).check()
        await tab.getByLabel(/LinkedIn: @acme-li/).check()
        const png = await sharp({
          create: { width: 80, height: 80, channels: 3, background: { r: 10, g: 90, b: 200 } },
        })
          .png()
          .toBuffer()
        await tab.locator('#upload').setInputFiles({ name: 'blue.png', mimeType: 'image/png', buffer: png })
        await expect
          .poll(() => tab.locator('#media-urls').inputValue())
          .toMatch(/\/media\/[0-9a-f]{32}\/blue\.png$/)
        await tab.getByRole('button', { name: 'Check' }).click()
        await expect.poll(() => tab.getByText('Ready to create.').count()).toBe(1)
        const shots = screenshotDir()
        mkdirSync(shots, { recursive: true })
        await tab.screenshot({ path: path.join(shots, 'compose-desktop.png'), fullPage: true })
        await tab.setViewportSize({ width: 390, height: 844 })
        await tab.screenshot({ path: path.join(shots, 'compose-phone.png'), fullPage: true })
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
