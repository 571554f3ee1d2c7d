import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { screenshotDir } from '../helpers/reference.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'

/** Profile analytics: stored readings free, a refresh that states and takes 1 credit, a chart over time. */
describe('the Analytics page', () => {
  let h: Harness
  let browser: Browser
  let followers = 100

  beforeAll(async () => {
    const twitter = scriptedAdapter('twitter')
    twitter.profileMetrics = async () => {
      followers += 25
      return {
        summary: { followers, following: 10, posts: 3, views: null },
        metrics: {},
        source: 'test',
        window: 'lifetime',
      }
    }
    h = await startHarness({ adapters: { twitter }, credits: 10 })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const balance = async () => (await h.call('get_user_info')).body.credits.balance as number

  it('shows stored readings for free and refreshes for 1 credit, keeping the history for a chart', async () => {
    const before = await balance()
    const shown = await browser.get('/analytics')
    expect(shown.status).toBe(200)
    expect(shown.text).toContain('Never read yet')
    expect(shown.text).toContain('Refresh now (costs 1 credit)')
    expect(await balance()).toBe(before)
    for (let i = 0; i < 2; i++) {
      const page = await browser.get('/analytics')
      const refreshed = await browser.post(`${h.baseUrl}/analytics/refresh`, {
        csrf: [browser.csrf(page)],
        platform: ['twitter'],
        profileId: ['tw-1'],
      })
      expect(refreshed.status).toBe(200)
    }
    expect(await balance()).toBe(before - 2)
    const after = await browser.get('/analytics')
    expect(after.text).toContain('<th scope="row">followers</th><td>150</td>')
    const series = /<script type="application\/json" id="series-0">([^<]*)<\/script>/.exec(after.text)?.[1]
    expect(JSON.parse(series!).map((p: { summary: { followers: number } }) => p.summary.followers)).toEqual([
      125, 150,
    ])
  })

  it('refuses a refresh without its CSRF token', async () => {
    const forged = await browser.post(`${h.baseUrl}/analytics/refresh`, {
      platform: ['twitter'],
      profileId: ['tw-1'],
    })
    expect(forged.status).toBe(403)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'draws the chart in Chromium',
    async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1280, height: 900 },
      })
      try {
        const tab = await context.newPage()
        const errors: string[] = []
        tab.on('pageerror', (error) => errors.push(error.message))
        await tab.goto(`${h.baseUrl}/login?next=%2Fanalytics`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/analytics$/)
        const canvas = tab.locator('canvas[data-series]')
        await expect.poll(async () => (await canvas.boundingBox())?.height ?? 0).toBeGreaterThan(50)
        const shots = screenshotDir()
        mkdirSync(shots, { recursive: true })
        await tab.screenshot({ path: path.join(shots, 'analytics-desktop.png'), fullPage: true })
        await tab.setViewportSize({ width: 390, height: 844 })
        await tab.screenshot({ path: path.join(shots, 'analytics-phone.png'), fullPage: true })
        expect(errors).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
