import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { announceSetup } from '../../src/modules/accounts/setup-codes.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { accessibilityProblems, lookAt } from '../helpers/look-at.js'

/**
 * The first hour, in Chromium against a fresh sandbox Herald reached from another machine (a trusted proxy
 * in front says the browser is at 203.0.113.50): the setup page asks for the code, a wrong one creates
 * nobody, the URL from the start line creates the owner, who lands on the onboarding checklist; the
 * checklist ticks as a channel is connected (all the simulated ones, in one click), a post is scheduled, a
 * webhook is added and an API key is made, then says the workspace is set up and goes. The setup page and
 * the checklist are looked at (1366 and 390 px, light and dark).
 */
describe.runIf(existsSync('/usr/bin/chromium'))('the first hour in Chromium', () => {
  let h: Harness
  let setupUrl: string

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, fresh: true, env: { HERALD_TRUST_PROXY: '127.0.0.1' } })
    await announceSetup({
      store: h.app.store,
      clock: h.app.clock,
      logger: h.app.logger,
      publicBaseUrl: h.app.config.publicBaseUrl,
    })
    const line = h.logs.find((l) => l.includes('/setup?code='))
    setupUrl = /Open (\S+) to create the owner/.exec(JSON.parse(line!).msg)![1]!
  })
  afterAll(async () => {
    await h?.close()
  })

  /** Looks at the page at both sizes in both themes, expecting nothing wrong; leaves it at the desktop size. */
  async function photograph(tab: Page, name: string) {
    expect(await lookAt(tab, name)).toEqual([])
  }

  const stepState = async (tab: Page, title: RegExp) =>
    (await tab.getByRole('listitem').filter({ hasText: title }).getByRole('strong').textContent())?.trim()

  it('creates the owner with the code from the log and ticks the checklist as the steps are done', async () => {
    const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
    const context = await chromium.launchPersistentContext(profile, {
      ...CHROMIUM,
      viewport: { width: 1366, height: 900 },
      timezoneId: 'Europe/Lisbon',
      // axe-core is evaluated into the page; the dashboard's CSP allows no script from anywhere else.
      bypassCSP: true,
      extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.50' },
    })
    const tab = await context.newPage()
    const errors: string[] = []
    tab.on('pageerror', (error) => errors.push(error.message))
    try {
      // A fresh instance: the dashboard's address shows the setup page, asking this remote browser for the code.
      await tab.goto(h.baseUrl)
      await tab.waitForURL(/\/setup$/)
      expect(await tab.getByRole('heading', { level: 1 }).textContent()).toBe('Set up Herald')
      expect(await tab.getByLabel('Setup code').count()).toBe(1)
      expect(await accessibilityProblems(tab)).toEqual([])
      await photograph(tab, 'setup')

      const fill = async () => {
        await tab.getByLabel('Your name').fill('Robin Reyes')
        await tab.getByLabel('Email').fill('robin@example.com')
        await tab.getByLabel('Password', { exact: true }).fill('a long password')
        await tab.getByLabel('Password again').fill('a long password')
        await tab.getByLabel('Workspace name').fill('Reyes Bakery')
      }
      // A wrong code creates nobody.
      await fill()
      await tab.getByLabel('Setup code').fill('not-the-code')
      await tab.getByRole('button', { name: 'Create the account' }).click()
      await expect.poll(() => tab.getByRole('alert').textContent()).toContain('does not match')
      expect(await h.app.store.db.selectFrom('users').selectAll().execute()).toEqual([])

      // The URL from the start line: the code goes into a cookie, the form no longer asks for it.
      await tab.goto(setupUrl)
      await tab.waitForURL(/\/setup$/)
      expect(await tab.getByLabel('Setup code').count()).toBe(0)
      await fill()
      await tab.getByRole('button', { name: 'Create the account' }).click()
      await tab.waitForURL(/\/posts$/)

      // The owner lands on the checklist, nothing done yet; the empty list says what fills it.
      const checklist = tab.getByRole('region', { name: 'Get Reyes Bakery ready' })
      expect(await checklist.getByText('3 of 3 steps to go').count()).toBe(1)
      expect(await stepState(tab, /Connect a channel/)).toBe('To do')
      expect(await tab.getByRole('link', { name: 'Compose a post' }).count()).toBe(1)
      // No API names in what a manager reads (the footer's links are for developers).
      const managerText = await tab.evaluate(
        "(() => { const footers = [...document.querySelectorAll('footer')]; footers.forEach((f) => { f.hidden = true }); const text = document.body.innerText; footers.forEach((f) => { f.hidden = false }); return text })()",
      )
      expect(managerText).not.toMatch(/create_post|\bREST\b|\bMCP\b|OAuth|\bAPI\b/)
      expect(await accessibilityProblems(tab)).toEqual([])

      // Sandbox mode: every network's simulated profile in one click.
      await checklist.getByRole('button', { name: 'Connect simulated profiles' }).click()
      await tab.waitForURL(/\/posts\?simulated=14$/)
      expect(await tab.getByRole('status').first().textContent()).toContain(
        'Connected 14 simulated profiles.',
      )
      expect(await stepState(tab, /Connect a channel/)).toBe('Done')
      expect(await tab.getByText('2 of 3 steps to go').count()).toBe(1)
      expect(await accessibilityProblems(tab)).toEqual([])
      await photograph(tab, 'onboarding')
      const platforms = await h.app.store.db
        .selectFrom('connections')
        .select('platform')
        .where('status', '=', 'active')
        .execute()
      expect(platforms.map((p) => p.platform).sort()).toEqual(
        [
          'bluesky',
          'facebook',
          'instagram',
          'linkedin',
          'mastodon',
          'threads',
          'tiktok',
          'twitter',
          'youtube',
          // Both locations of the simulated business.
          'googlebusiness',
          'googlebusiness',
          // Every board of the simulated Pinterest account.
          'pinterest',
          'pinterest',
          'pinterest',
        ].sort(),
      )

      // Schedule a first post to X (an administrator grants the credits it costs).
      const workspace = await h.app.store.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow()
      await h.app.accounts.addCredits({ workspaceId: workspace.id, amount: 50 })
      await tab.getByRole('link', { name: 'Schedule your first post' }).click()
      await tab.waitForURL(/\/compose$/)
      await tab.getByLabel('Copy', { exact: true }).fill('Fresh bread every morning.')
      await tab.getByRole('checkbox', { name: 'X @demo_user', exact: true }).check()
      await tab
        .getByLabel('Date', { exact: true })
        .fill(new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10))
      await tab.getByLabel('Time', { exact: true }).fill('08:00')
      const create = tab.getByRole('button', { name: 'Schedule' })
      await expect.poll(() => create.isEnabled(), { timeout: 15_000 }).toBe(true)
      await create.click()
      await tab.waitForURL(/\/posts\/\w+/)
      await tab.goto(`${h.baseUrl}/posts`)
      expect(await stepState(tab, /Schedule your first post/)).toBe('Done')
      expect(await tab.getByText('2 of 3 steps to go').count()).toBe(0)
      expect(await tab.getByText('1 of 3 steps to go').count()).toBe(1)

      // The optional step: a webhook endpoint.
      await tab.getByRole('link', { name: /Tell another system/ }).click()
      await tab.getByLabel('URL').fill('http://127.0.0.1:9/reyes-hook')
      await tab.getByRole('button', { name: 'Add endpoint' }).click()
      await tab.goto(`${h.baseUrl}/posts`)
      expect(await stepState(tab, /Tell another system/)).toBe('Done')
      expect(await stepState(tab, /Connect an AI assistant/)).toBe('To do')

      // The last required step: an API key. The checklist says the workspace is set up, once.
      await tab.getByRole('link', { name: 'Connect an AI assistant' }).click()
      await tab.getByLabel('Name').fill('Bakery assistant')
      await tab.getByRole('button', { name: 'Create key' }).click()
      await tab.goto(`${h.baseUrl}/posts`)
      expect(await tab.getByRole('status').first().textContent()).toContain('Reyes Bakery is set up')
      expect(await tab.getByRole('region', { name: /ready$/ }).count()).toBe(0)
      expect(await accessibilityProblems(tab)).toEqual([])
      await tab.reload()
      expect(await tab.getByText('is set up').count()).toBe(0)
      expect(await tab.getByRole('region', { name: /ready$/ }).count()).toBe(0)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)
})
