import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setQueue } from '../../src/modules/publishing/posting-queues.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { addMember, manage } from '../helpers/team.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'

const dayAfter = (date: string, days = 1) => {
  const next = new Date(`${date}T00:00:00Z`)
  next.setUTCDate(next.getUTCDate() + days)
  return next.toISOString().slice(0, 10)
}

/** The wall-clock time of a UTC instant in New York, where the browser of these tests is. */
const newYork = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'America/New_York',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso))

/**
 * The calendar, rendered by Herald: posts one item per profile in their network's colour, free queue times
 * dashed and opening Compose, moving a post by dragging it or with its reschedule form, and the month as an
 * agenda on a phone.
 */
describe('the Calendar page', () => {
  let h: Harness
  let browser: Browser
  /** The compose to X and Bluesky makes one post per profile: X's, which the tests move, and Bluesky's. */
  let id = ''
  let ids: string[] = []
  let pendingId = ''
  // Far enough ahead that the next day is still in the future, and in the month the test opens.
  const day = new Date(Date.now() + 3 * 86_400_000)
  const date = day.toISOString().slice(0, 10)
  const month = `/calendar?view=month&date=${date}`
  const chromiumHere = existsSync('/usr/bin/chromium')
  let context: BrowserContext | undefined
  let tab: Page
  let profile = ''
  const errors: string[] = []

  beforeAll(async () => {
    h = await startHarness({
      adapters: { twitter: scriptedAdapter('twitter'), bluesky: scriptedAdapter('bluesky') },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
    await setQueue(
      h.app.store.db,
      h.workspaceId,
      { platform: 'bluesky', profile: 'bs-1', timezone: 'UTC', slots: ['daily 08:15'] },
      Date.now(),
    )
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const res = await h.call('create_post', {
      content: 'On the calendar </script><b>',
      targetAccounts: [
        { platform: 'twitter', profileId: 'tw-1' },
        { platform: 'bluesky', profileId: 'bs-1' },
      ],
      scheduleDate: date,
      scheduleTime: '10:00',
      timezone: 'UTC',
    })
    ids = res.body.postIds
    id = ids[0]!
    // An editor's post while approvals are on waits for an owner: the calendar marks it so.
    const editor = await addMember(h, 'editor')
    await manage(h, 'POST', '/api/approvals/settings', { requireApproval: true })
    const waiting = await h.call(
      'create_post',
      {
        content: 'Waiting for a look',
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        scheduleDate: date,
        scheduleTime: '14:00',
        timezone: 'UTC',
      },
      { key: editor.apiKey },
    )
    pendingId = waiting.body.postIds[0]
    if (chromiumHere) await openCalendarInChromium()
  })

  /** Signs in to the calendar in Chromium, in New York; the first view is in UTC until the script tells. */
  async function openCalendarInChromium() {
    profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
    context = await chromium.launchPersistentContext(profile, {
      ...CHROMIUM,
      viewport: { width: 1366, height: 900 },
      timezoneId: 'America/New_York',
      locale: 'en-US',
    })
    tab = await context.newPage()
    tab.setDefaultTimeout(10_000)
    tab.on('pageerror', (error) => errors.push(error.message))
    await tab.goto(`${h.baseUrl}/login?next=${encodeURIComponent(month)}`)
    await tab.getByLabel('Email').fill(h.email)
    await tab.getByLabel('Password').fill(h.password)
    await tab.getByRole('button', { name: /sign in/i }).click()
    // The script keeps the browser's zone in a cookie and shows the page again in it.
    await tab.locator('.calendar[data-zone="America/New_York"]').waitFor()
  }
  afterAll(async () => {
    await context?.close()
    if (profile) rmSync(profile, { recursive: true, force: true })
    await h.close()
  })

  it('places the post on its day, escaped, with a link to it and to its reschedule form', async () => {
    const shown = await browser.get(`${month}&tz=UTC`)
    expect(shown.status).toBe(200)
    const cell = new RegExp(`<li class="cal-day[^"]*" data-date="${date}">([\\s\\S]*?)</li></ul></li>`).exec(
      shown.text,
    )?.[1]
    expect(cell).toContain(`href="/posts/${id}"`)
    expect(cell).toContain('On the calendar &lt;/script>&lt;b>')
    expect(cell).toContain('/calendar/reschedule?id=')
    expect(shown.text).not.toContain('On the calendar </script>')
    expect(shown.text).not.toMatch(/fullcalendar/i)
  })

  it('shows the month from the Monday before the 1st to the Sunday after its last day', async () => {
    const shown = await browser.get('/calendar?view=month&date=2026-02-10&tz=UTC')
    const days = [...shown.text.matchAll(/<li class="cal-day[^"]*" data-date="([^"]+)"/g)].map((m) => m[1])
    expect(days[0]).toBe('2026-01-26')
    expect(days.at(-1)).toBe('2026-03-01')
    expect(days).toHaveLength(35)
    expect(shown.text).toContain('February 2026')
  })

  it('reschedules through reschedule_post, back to the calendar it came from, and refuses a form without its CSRF token', async () => {
    const shown = await browser.get(month)
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
      back: [`/calendar?view=week&date=${date}`],
    })
    expect(moved.status).toBe(303)
    expect(moved.headers.get('location')).toBe(`/calendar?view=week&date=${date}&moved=${id}`)
    const post = (await h.call('get_post', { id })).body
    expect(post).toMatchObject({ scheduleDate: date, scheduleTime: '12:30', timezone: 'Europe/Paris' })
    const elsewhere = await browser.post(`${h.baseUrl}/calendar/reschedule`, {
      csrf: [browser.csrf(shown)],
      id: [id],
      scheduleDate: [date],
      scheduleTime: ['10:00'],
      timezone: ['UTC'],
      back: ['https://evil.example/calendar'],
    })
    expect(elsewhere.headers.get('location')).toBe(`/calendar?moved=${id}`)
  })

  const events = () => tab.locator(ids.map((one) => `a.cal-event[data-id="${one}"]`).join(', '))

  it.runIf(chromiumHere)(
    'shows one item per profile in its network colour, named with the network, handle, time and copy',
    async () => {
      expect(await events().count()).toBe(2)
      // The name reads network, time, handle, state and copy (Chromium may put a space before a hidden comma).
      const at = newYork(`${date}T10:00:00Z`)
      const x = tab.getByRole('link', {
        name: new RegExp(`^X ${at} @acme ?, scheduled: On the calendar </script><b>$`),
      })
      await x.waitFor()
      const bluesky = tab.getByRole('link', {
        name: new RegExp(`^Bluesky ${at} @acme\\.bsky\\.social ?, scheduled: On the calendar </script><b>$`),
      })
      expect(await bluesky.count()).toBe(1)
      expect(await x.getAttribute('title')).toContain('On the calendar </script><b>')
      const colours = await events().evaluateAll((links) =>
        links.map((link) => {
          const style = getComputedStyle(link)
          const probe = document.createElement('span')
          probe.style.color = style.getPropertyValue('--net')
          link.append(probe)
          const net = getComputedStyle(probe).color
          probe.remove()
          return { border: style.borderLeftColor, net, icon: Boolean(link.querySelector('svg.net-icon')) }
        }),
      )
      expect(new Set(colours.map((c) => c.border)).size).toBe(2)
      for (const c of colours) expect(c).toEqual({ border: c.net, net: c.net, icon: true })
      // Waiting for approval: said in words with an icon, and a dotted bar, not a colour alone.
      const waiting = tab.locator(`a.cal-event[data-id="${pendingId}"]`)
      expect((await waiting.locator('.chip').textContent())?.trim()).toBe('Waiting for approval:')
      expect(await waiting.evaluate((a) => getComputedStyle(a).borderLeftStyle)).toBe('dotted')
      expect(await waiting.getAttribute('data-movable')).toBe('')
      expect(await lookAt(tab, 'calendar-month')).toEqual([])
    },
  )

  it.runIf(chromiumHere)(
    'shows free queue times dashed, named Free slot, each opening Compose at that time',
    async () => {
      const slot = tab.getByRole('link', {
        name: `${newYork(`${date}T08:15:00Z`)} Free slot Bluesky @acme.bsky.social`,
        exact: true,
      })
      expect(await slot.count()).toBeGreaterThan(1)
      const one = tab.locator(`.cal-day[data-date="${date}"] a.cal-slot`)
      expect(await one.evaluate((a) => getComputedStyle(a).borderTopStyle)).toBe('dashed')
      const href = (await one.getAttribute('href'))!
      const query = new URL(href, h.baseUrl).searchParams
      expect(query.get('profile')).toBe('bluesky:bs-1')
      expect(query.get('time')).toBe('08:15')
      expect(query.get('timezone')).toBe('UTC')
      expect(query.get('date')).toBe(date)
      await one.click()
      await tab.waitForURL(/\/compose\?/)
      await tab.goBack()
      await tab.locator('.calendar').waitFor()
    },
  )

  it.runIf(chromiumHere)(
    'moves the post to the next day when it is dragged there, keeping its time and zone',
    async () => {
      const nextDate = dayAfter(date)
      // The month shows the next day unless it starts the next month on a Monday; the agenda always does.
      const sameMonth = nextDate.slice(0, 7) === date.slice(0, 7)
      await tab.goto(`${h.baseUrl}${sameMonth ? month : `/calendar?view=agenda&date=${date}`}`)
      const event = tab.locator(`a.cal-event[data-id="${id}"]`)
      const from = (await event.boundingBox())!
      const to = (await tab.locator(`.cal-day[data-date="${nextDate}"]`).boundingBox())!
      await tab.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
      await tab.mouse.down()
      await tab.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 5 })
      await tab.mouse.move(to.x + to.width / 2, to.y + to.height - 10, { steps: 15 })
      const reloaded = tab.waitForURL(/moved=/)
      await tab.mouse.up()
      await reloaded
      expect((await h.call('get_post', { id })).body).toMatchObject({
        scheduleDate: nextDate,
        scheduleTime: '10:00',
        timezone: 'UTC',
      })
      expect(await tab.getByRole('status').textContent()).toContain(`now goes out on ${nextDate} at 10:00`)
      expect(
        await tab.locator(`.cal-day[data-date="${nextDate}"] a.cal-event[data-id="${id}"]`).count(),
      ).toBe(1)
      expect((await h.call('get_post', { id: ids[1] })).body.scheduleDate).toBe(date)
    },
  )

  it.runIf(chromiumHere)(
    'reschedules with the keyboard alone, through the reschedule link and its form',
    async () => {
      const target = dayAfter(date, 2)
      await tab.goto(`${h.baseUrl}/calendar?view=week&date=${dayAfter(date)}`)
      await tab.locator('.calendar').waitFor()
      expect(await lookAt(tab, 'calendar-week')).toEqual([])
      const wanted = `Reschedule X @acme at ${newYork(`${date}T10:00:00Z`)}`
      let focused = ''
      for (let i = 0; i < 80 && focused !== wanted; i++) {
        await tab.keyboard.press('Tab')
        focused = await tab.evaluate(() => document.activeElement?.textContent?.trim() ?? '')
      }
      expect(focused).toBe(wanted)
      await tab.keyboard.press('Enter')
      await tab.getByRole('heading', { name: 'Reschedule post' }).waitFor()
      expect(await lookAt(tab, 'calendar-reschedule')).toEqual([])
      await tab.getByLabel('Date').focus()
      await tab.keyboard.type(target.slice(5, 7) + target.slice(8, 10) + target.slice(0, 4))
      await tab.getByLabel('Time', { exact: true }).focus()
      await tab.keyboard.type('0930AM')
      await tab.getByLabel('Date').focus()
      await tab.keyboard.press('Enter')
      await tab.waitForURL(/\/calendar\?view=week.*moved=/)
      expect((await h.call('get_post', { id })).body).toMatchObject({
        scheduleDate: target,
        scheduleTime: '09:30',
        timezone: 'UTC',
      })
    },
  )

  it.runIf(chromiumHere)(
    'lists the days as an agenda on a phone, and has an agenda view of its own',
    async () => {
      await tab.goto(`${h.baseUrl}${month}`)
      await tab.setViewportSize({ width: 390, height: 844 })
      expect(await tab.locator('.cal-weekdays').isVisible()).toBe(false)
      const shownDays = await tab
        .locator('.cal-day')
        .evaluateAll((days) => days.filter((d) => getComputedStyle(d).display !== 'none').length)
      expect(shownDays).toBeGreaterThan(0)
      expect(shownDays).toBeLessThan(35)
      expect(await tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0)
      await tab.setViewportSize({ width: 1366, height: 900 })
      await tab.getByRole('link', { name: 'Agenda' }).click()
      await tab.waitForURL(/view=agenda/)
      expect(await events().count()).toBe(2)
      expect(await lookAt(tab, 'calendar-agenda')).toEqual([])
      expect(errors).toEqual([])
    },
  )
})
