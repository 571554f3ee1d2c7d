import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile } from '../helpers/connections.js'
import { teamCsv } from '../helpers/csv-fixture.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'

/** The Queue page, Add to queue in Compose, free slots on the calendar, and Import, in Chromium. */
describe.runIf(existsSync('/usr/bin/chromium'))('the Queue and Import pages', () => {
  let h: Harness
  let context: BrowserContext
  let tab: Page
  let browser: Browser
  const dirs: string[] = []
  const count = async () => (await h.call('list_posts', {})).body.counts.all as number

  beforeAll(async () => {
    h = await startHarness({
      adapters: { linkedin: scriptedAdapter('linkedin') },
      credits: 1_000,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
    dirs.push(dir)
    context = await chromium.launchPersistentContext(dir, {
      ...CHROMIUM,
      viewport: { width: 1280, height: 900 },
      timezoneId: 'Europe/Berlin',
    })
    tab = await context.newPage()
    await tab.goto(`${h.baseUrl}/login`)
    await tab.getByLabel('Email').fill(h.email)
    await tab.getByLabel('Password').fill(h.password)
    await tab.getByRole('button', { name: /sign in/i }).click()
    await tab.waitForURL((url) => !url.pathname.startsWith('/login'))
  })
  afterAll(async () => {
    await context?.close()
    await h?.close()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  /** Looks at the page at both sizes in both themes. */
  const photograph = async (name: string, fullPage = true) => {
    expect(await lookAt(tab, name, { fullPage })).toEqual([])
    await tab.setViewportSize({ width: 1280, height: 900 })
  }

  it('sets posting times (refusing overlapping ones), queues a post from Compose and shows the free times on the calendar', async () => {
    await tab.getByRole('link', { name: 'Queue' }).click()
    const times = tab.getByLabel('Posting times of LinkedIn @acme-li, one per line')
    await times.fill('daily 09:00\nmon 09:00')
    await tab.getByLabel('Time zone').selectOption('Europe/Berlin')
    await tab.getByRole('button', { name: 'Save the times of LinkedIn @acme-li' }).click()
    await tab.getByText(/"mon 09:00" overlaps "daily 09:00"/).waitFor()
    expect(await times.inputValue()).toBe('daily 09:00\nmon 09:00')
    await times.fill('daily 09:00\nweekdays 17:30')
    await tab.getByRole('button', { name: 'Save the times of LinkedIn @acme-li' }).click()
    await tab.getByText('Saved the posting times of LinkedIn @acme-li.').waitFor()
    expect(await tab.getByText('Next free times:').count()).toBe(1)
    await photograph('queue')

    await tab.getByRole('link', { name: 'Create post' }).click()
    await tab.getByLabel('Copy', { exact: true }).fill('Into the queue it goes')
    await tab.getByRole('checkbox', { name: 'LinkedIn @acme-li', exact: true }).check()
    // "Add to queue" names the slot the post will take.
    expect(await tab.locator('#queue-slot').textContent()).toMatch(
      /^Next free slot: \d{4}-\d{2}-\d{2} (09:00|17:30) Europe\/Berlin\.$/,
    )
    const create = tab.getByRole('button', { name: 'Add to queue' })
    await expect.poll(() => create.isEnabled(), { timeout: 15_000 }).toBe(true)
    await create.click()
    await tab.waitForURL(/\/posts\/[0-9a-f]{24}$/)
    expect(await tab.getByText('(from the posting queue)').count()).toBe(1)
    const queued = (await h.call('list_posts', {})).body.posts[0]
    expect(queued).toMatchObject({ queued: true, timezone: 'Europe/Berlin' })
    expect(['09:00', '17:30']).toContain(queued.scheduleTime)

    // Four weeks of the agenda: the daily and weekday times, less the one the post took.
    const calendar = await browser.get('/calendar?view=agenda&tz=Europe/Berlin')
    const free = [...calendar.text.matchAll(/<a class="cal-slot net-linkedin" href="([^"]+)"/g)].map(
      (m) => new URL(m[1]!.replaceAll('&amp;', '&'), h.baseUrl).searchParams,
    )
    expect(free.length).toBeGreaterThan(40)
    expect(
      free.every((q) => q.get('profile') === 'linkedin:li-1' && q.get('timezone') === 'Europe/Berlin'),
    ).toBe(true)
    expect(
      free.some((q) => q.get('date') === queued.scheduleDate && q.get('time') === queued.scheduleTime),
    ).toBe(false)
    expect(calendar.text).toContain(`href="/posts/${queued.id}"`)
    await tab.getByRole('link', { name: 'Calendar' }).click()
    await tab.locator('.calendar[data-zone="Europe/Berlin"]').waitFor()
    await tab.getByRole('link', { name: 'Agenda' }).click()
    const slot = tab.getByRole('link', { name: /^\d\d:\d\d Free slot LinkedIn @acme-li$/ }).first()
    await slot.waitFor()
    expect(await slot.evaluate((a) => getComputedStyle(a).borderTopStyle)).toBe('dashed')
    expect(await slot.getAttribute('href')).toMatch(/^\/compose\?profile=linkedin%3Ali-1&/)
    await tab.locator(`a.cal-event[data-id="${queued.id}"]`).waitFor()
    expect(await lookAt(tab, 'calendar-queue')).toEqual([])
  }, 90_000)

  it('checks a 200-row CSV with 7 bad rows, imports the 193 others, and creates nothing the second time', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
    const { text, bad } = teamCsv({ good: 193, from: tomorrow })
    const file = path.join(dirs[0]!, 'month.csv')
    writeFileSync(file, text)
    const before = await count()

    await tab.getByRole('link', { name: 'Import' }).click()
    await photograph('import')
    await tab.locator('#csv-file').setInputFiles(file)
    await tab.waitForURL(/\/import\/[0-9a-f]{24}$/)
    await tab.getByText(/193 of 200 rows are ready/).waitFor()
    expect(await tab.locator('tr.blocked').count()).toBe(7)
    for (const b of bad)
      expect(
        await tab.locator('tr.blocked td:first-child', { hasText: new RegExp(`^${b.row}$`) }).count(),
      ).toBe(1)
    expect(
      await tab
        .getByText(/first comment: .*the first comment is 1300 characters; LinkedIn allows 1250/)
        .count(),
    ).toBe(1)
    // The file's column names the field; the tool's own name for it is not repeated.
    expect(await tab.getByText(/firstComment/).count()).toBe(0)
    expect(await count()).toBe(before)
    await photograph('import-check', false)

    await tab.getByRole('button', { name: 'Import the 193 ready rows' }).click()
    await tab.getByText(/^Import of month\.csv$/).waitFor()
    expect(await tab.locator('.summary li', { hasText: '193 created' }).count()).toBe(1)
    await photograph('import-report', false)
    expect(await count()).toBe(before + 193)

    await tab.getByRole('link', { name: 'Import another file' }).click()
    await tab.locator('#csv-file').setInputFiles(file)
    await tab.waitForURL(/\/import\/[0-9a-f]{24}$/)
    await tab.getByText('193 were imported before and are not created again').waitFor()
    expect(await tab.getByText('No row is ready to import.').count()).toBe(1)
    expect(await count()).toBe(before + 193)
  }, 120_000)
})
