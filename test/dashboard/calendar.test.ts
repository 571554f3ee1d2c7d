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

/** The calendar: posts on FullCalendar in the viewer's zone; dragging one calls reschedule_post. */
describe('the Calendar page', () => {
  let h: Harness
  let browser: Browser
  let id = ''
  const day = new Date(Date.now() + 3 * 86_400_000)
  const date = day.toISOString().slice(0, 10)

  beforeAll(async () => {
    h = await startHarness({
      adapters: { twitter: scriptedAdapter('twitter') },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const res = await h.call('create_post', {
      content: 'On the calendar </script><b>',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: date,
      scheduleTime: '10:00',
      timezone: 'UTC',
    })
    id = res.body.postIds[0]
  })
  afterAll(() => h.close())

  it('carries the scheduled posts as data the page never runs, with their slots', async () => {
    const shown = await browser.get('/calendar')
    expect(shown.status).toBe(200)
    const json = /<script type="application\/json" id="calendar-events">([^<]*)<\/script>/.exec(
      shown.text,
    )?.[1]
    const events = JSON.parse(json!) as Array<{ id: string; start: string; editable: boolean; title: string }>
    expect(events).toEqual([expect.objectContaining({ id, start: `${date}T10:00:00.000Z`, editable: true })])
    expect(events[0]!.title).toContain('</script><b>')
    expect(shown.text).not.toContain('On the calendar </script>')
  })

  it('reschedules through reschedule_post, and refuses a form without its CSRF token', async () => {
    const shown = await browser.get('/calendar')
    const forged = await browser.post(`${h.baseUrl}/calendar/reschedule`, {
      id: [id],
      scheduleDate: [date],
      scheduleTime: ['11:00'],
    })
    expect(forged.status).toBe(403)
    const moved = await browser.post(`${h.baseUrl}/calendar/reschedule`, {
      csrf: [browser.csrf(shown)],
      id: [id],
      scheduleDate: [date],
      scheduleTime: ['12:30'],
      timezone: ['Europe/Paris'],
    })
    expect(moved.status).toBe(303)
    const post = (await h.call('get_post', { id })).body
    expect(post).toMatchObject({ scheduleDate: date, scheduleTime: '12:30', timezone: 'Europe/Paris' })
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'shows the post in Chromium and moves it by dragging it to another day',
    async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1280, height: 900 },
        timezoneId: 'UTC',
      })
      try {
        const tab = await context.newPage()
        const errors: string[] = []
        tab.on('pageerror', (error) => errors.push(error.message))
        await tab.goto(`${h.baseUrl}/login?next=%2Fcalendar`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/calendar$/)
        const event = tab.getByText('On the calendar', { exact: false }).first()
        await event.waitFor({ timeout: 10_000 })
        const shots = screenshotDir()
        mkdirSync(shots, { recursive: true })
        await tab.screenshot({ path: path.join(shots, 'calendar-desktop.png'), fullPage: true })
        // Drag the post one day later, to the next day's cell in the month grid.
        const next = new Date(`${date}T00:00:00Z`)
        next.setUTCDate(next.getUTCDate() + 1)
        const nextDate = next.toISOString().slice(0, 10)
        const target = tab.locator(`[data-date="${nextDate}"]`).first()
        const from = (await event.boundingBox())!
        const to = (await target.boundingBox())!
        await tab.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
        await tab.mouse.down()
        await tab.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 5 })
        await tab.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 15 })
        // The drop submits the reschedule form; wait for that page to load before going on.
        const reloaded = tab.waitForEvent('load')
        await tab.mouse.up()
        await reloaded
        await tab.waitForURL(/\/calendar$/)
        await expect
          .poll(async () => (await h.call('get_post', { id })).body.scheduleDate, { timeout: 10_000 })
          .toBe(nextDate)
        await tab.setViewportSize({ width: 390, height: 844 })
        await tab.screenshot({ path: path.join(shots, 'calendar-phone.png'), fullPage: true })
        expect(errors).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
