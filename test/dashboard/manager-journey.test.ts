import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { profileName } from '../../src/interfaces/dashboard/post-parts.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type ScriptedFaults, scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt, VIEWPORTS } from '../helpers/look-at.js'

/**
 * A social media manager's journey in Chromium, on a laptop and on a phone, against a sandbox Herald whose
 * profiles were connected through the simulators' consent pages: a post with two uploaded images and copy
 * of its own for LinkedIn and Instagram, to X, a LinkedIn page and Instagram; three previews in each
 * network's look; scheduled; found on the calendar as one item per profile in its network's colour and moved
 * to the next day (dragged on a laptop, through the agenda and the reschedule page on a phone); opened from
 * Posts (one row, three chips); published, with LinkedIn refusing it for good; and retried from the post's
 * page. What each network holds is counted on its simulator, never in Herald's rows.
 */
/** A loaded machine runs the debounced check, the uploads and the sends slowly. */
const slow = { timeout: 20_000 }

describe.runIf(existsSync('/usr/bin/chromium'))('a manager’s journey, from compose to retry', () => {
  let h: Harness
  let worker: Worker
  let faults: ScriptedFaults
  const names = { twitter: '', linkedin: '', instagram: '' }

  beforeAll(async () => {
    faults = scriptedFaults()
    h = await startHarness({
      sandbox: true,
      faults,
      credits: 500,
      // A local setup: Instagram fetches its media from Herald's loopback address. A send whose answer
      // was lost is looked up after a moment instead of the minute a network's lists need.
      env: {
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
        HERALD_IMMEDIATE_WAIT_MS: '20000',
        HERALD_UNKNOWN_OUTCOME_CHECK_MS: '300',
      },
    })
    const connect = async (network: string, username: string, organization = false) => {
      const made = await sandboxConnect(h.app, {
        workspaceId: h.workspaceId,
        network,
        username,
        organization,
      })
      return profileName({ platform: made.platform, username: made.username })
    }
    names.twitter = await connect('twitter', 'journey_x')
    names.linkedin = await connect('linkedin', 'Jo Park', true)
    names.instagram = await connect('instagram', 'journey.ig')
    worker = createAppWorker(h.app, { id: 'journey-worker' })
    worker.start()
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
  })

  const picture = (r: number, g: number, b: number, width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer()
  const simulator = async (path: string) =>
    (await (await fetch(`${h.baseUrl}/sandbox/${path}`)).json()) as any
  const onX = async (text: string) =>
    ((await simulator('twitter/_sandbox/tweets')) as Array<{ text: string }>).filter((t) => t.text === text)
  const onLinkedIn = async (text: string) =>
    ((await simulator('linkedin/_sandbox/state')).posts as Array<{ commentary: string }>).filter(
      (p) => p.commentary === text,
    )
  const onInstagram = async (text: string) =>
    ((await simulator('meta/_sandbox/state')).media as Array<{ caption?: string }>).filter(
      (m) => m.caption === text,
    )
  const nextDay = (day: string) =>
    new Date(Date.parse(`${day}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10)

  /** A day some way ahead whose next day is in the same month, so the month view shows both. */
  function dayAhead(days: number) {
    const day = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
    return nextDay(day).slice(0, 7) === day.slice(0, 7) ? day : nextDay(nextDay(day))
  }

  async function signIn(tab: Page) {
    await tab.goto(`${h.baseUrl}/login?next=%2Fposts`)
    await tab.getByLabel('Email').fill(h.email)
    await tab.getByLabel('Password').fill(h.password)
    await tab.getByRole('button', { name: /sign in/i }).click()
    await tab.waitForURL(/\/posts$/)
  }

  /** Compose: the three profiles, the copy for all and for two networks, two images, a date and time. */
  async function compose(tab: Page, copy: { all: string; linkedin: string; instagram: string }, day: string) {
    await tab.getByRole('link', { name: 'Create post' }).first().click()
    await tab.waitForURL(/\/compose$/)
    for (const name of [names.twitter, names.linkedin, names.instagram])
      await tab.getByRole('checkbox', { name, exact: true }).check()
    await tab.getByRole('textbox', { name: 'Copy', exact: true }).fill(copy.all)
    await tab.getByLabel('Add media').setInputFiles([
      { name: 'wide.png', mimeType: 'image/png', buffer: await picture(10, 90, 200, 1080, 608) },
      { name: 'square.png', mimeType: 'image/png', buffer: await picture(220, 120, 20, 1080, 1080) },
    ])
    const thumbs = tab.getByRole('list', { name: 'Media, in order' }).getByRole('listitem')
    await expect.poll(() => thumbs.count(), slow).toBe(2)
    await tab.getByRole('tab', { name: /LinkedIn/ }).click()
    await tab.getByLabel('Copy for LinkedIn (empty: the copy for all)').fill(copy.linkedin)
    await tab.getByRole('tab', { name: /Instagram/ }).click()
    await tab.getByLabel('Copy for Instagram (empty: the copy for all)').fill(copy.instagram)
    await tab.getByLabel('Date', { exact: true }).fill(day)
    await tab.getByLabel('Time', { exact: true }).fill('10:30')
    const schedule = tab.getByRole('button', { name: 'Schedule' })
    await expect.poll(() => schedule.isEnabled(), slow).toBe(true)
    // A phone shows the editor and the previews as two tabs; a laptop shows both at once.
    const previewTab = tab.getByRole('tab', { name: 'Preview', exact: true })
    const phone = await previewTab.isVisible()
    if (phone) await previewTab.click()
    const previews = tab.getByRole('region', { name: 'Preview' }).getByRole('article')
    await expect.poll(() => previews.count(), slow).toBe(3)
    const labels = await previews.evaluateAll((cards) => cards.map((c) => c.getAttribute('aria-label')))
    expect(labels.sort()).toEqual([names.instagram, names.linkedin, names.twitter].sort())
    const styled = await previews.evaluateAll((cards) => cards.map((c) => c.className))
    expect(styled.map((c) => /pv-(twitter|linkedin|instagram)/.exec(c)?.[1]).sort()).toEqual([
      'instagram',
      'linkedin',
      'twitter',
    ])
    if (phone) await tab.getByRole('tab', { name: 'Edit', exact: true }).click()
    await schedule.click()
    await tab.waitForURL(/\/posts$/)
  }

  /** The calendar's item of each post, in its network's colour with its mark. */
  async function findOnCalendar(tab: Page, ids: Record<string, string>, day: string) {
    await tab.getByRole('link', { name: 'Calendar', exact: true }).click()
    // The first view is in UTC; the page's script tells the server the browser's zone and shows it again.
    await tab.locator('.calendar[data-zone="Europe/Paris"]').waitFor()
    if ((await tab.locator(`.cal-day[data-date="${day}"]`).count()) === 0)
      await tab.getByRole('link', { name: 'Next month' }).click()
    for (const [network, id] of Object.entries(ids)) {
      const item = tab.locator(`.cal-day[data-date="${day}"] a.cal-event[data-id="${id}"]`)
      await item.waitFor()
      expect(await item.getAttribute('class')).toContain(`net-${network}`)
      const colour = await item.evaluate((link) => {
        const style = getComputedStyle(link)
        const probe = document.createElement('span')
        probe.style.color = style.getPropertyValue('--net')
        link.append(probe)
        const net = getComputedStyle(probe).color
        probe.remove()
        return { border: style.borderLeftColor, net, mark: Boolean(link.querySelector('svg.net-icon')) }
      })
      expect(colour).toEqual({ border: colour.net, net: colour.net, mark: true })
    }
    const colours = await tab
      .locator(`.cal-day[data-date="${day}"] a.cal-event`)
      .evaluateAll((links) => links.map((l) => getComputedStyle(l).borderLeftColor))
    expect(new Set(colours).size).toBe(3)
  }

  /** Drags an item onto the next day's cell; the drop posts the reschedule form and the calendar comes back. */
  async function dragToNextDay(tab: Page, id: string, day: string) {
    const item = tab.locator(`a.cal-event[data-id="${id}"]`)
    const from = (await item.boundingBox())!
    const to = (await tab.locator(`.cal-day[data-date="${nextDay(day)}"]`).boundingBox())!
    await tab.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
    await tab.mouse.down()
    await tab.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 5 })
    await tab.mouse.move(to.x + to.width / 2, to.y + to.height - 8, { steps: 15 })
    const reloaded = tab.waitForURL(new RegExp(`moved=${id}`))
    await tab.mouse.up()
    await reloaded
  }

  /** On a phone: the agenda's reschedule link of the item, and the form's date set to the next day. */
  async function rescheduleToNextDay(tab: Page, name: string, id: string, day: string) {
    const item = tab.locator(`.cal-item:has(a.cal-event[data-id="${id}"])`)
    await item.getByRole('link', { name: `Reschedule ${name} at 10:30`, exact: true }).click()
    await tab.getByRole('heading', { name: 'Reschedule post' }).waitFor()
    await tab.getByLabel('Date').fill(nextDay(day))
    const back = tab.waitForURL(new RegExp(`moved=${id}`))
    await tab.getByRole('button', { name: 'Reschedule' }).click()
    await back
  }

  /** Presses Publish now on the post's page and waits for the page the answer shows. */
  async function publishNow(tab: Page, id: string) {
    await tab.goto(`${h.baseUrl}/posts/${id}`)
    await tab.getByRole('button', { name: 'Publish now' }).click()
    await tab.getByRole('status').waitFor(slow)
  }

  for (const [index, [size, viewport]] of Object.entries(VIEWPORTS).entries()) {
    it(`composes, schedules, moves, publishes and retries a post to three profiles (${size})`, async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport,
        timezoneId: 'Europe/Paris',
      })
      try {
        const tab = await context.newPage()
        const errors: string[] = []
        tab.on('pageerror', (error) => errors.push(error.message))
        const copy = {
          all: `Spring is here, on ${size}.`,
          linkedin: `Spring is here, on ${size}: made for teams.`,
          instagram: `Spring, in bloom on ${size} #spring`,
        }
        const day = dayAhead(5 + index * 3)
        await signIn(tab)
        await compose(tab, copy, day)

        const made = ((await h.call('list_posts', {})).body.posts as Array<any>).filter((p) =>
          [copy.all, copy.linkedin, copy.instagram].includes(p.content),
        )
        expect(made).toHaveLength(3)
        const ids = Object.fromEntries(made.map((p) => [p.platforms[0], p.id])) as Record<string, string>
        expect(new Set(made.map((p) => p.composeId)).size).toBe(1)
        expect(made.every((p) => p.mediaUrls.length === 2 && p.scheduleDate === day)).toBe(true)

        await findOnCalendar(tab, ids, day)
        if (size === 'desktop') {
          for (const id of Object.values(ids)) await dragToNextDay(tab, id, day)
        } else {
          // A phone reads the month as an agenda; each item has its reschedule link beside it.
          expect(await tab.locator('.cal-weekdays').isVisible()).toBe(false)
          for (const [network, id] of Object.entries(ids))
            await rescheduleToNextDay(tab, names[network as keyof typeof names], id, day)
        }
        for (const id of Object.values(ids))
          expect((await h.call('get_post', { id })).body).toMatchObject({
            scheduleDate: nextDay(day),
            scheduleTime: '10:30',
            timezone: 'Europe/Paris',
            status: 'scheduled',
          })

        // Posts: the compose is one row with a chip per profile; its title opens the post.
        await tab.getByRole('link', { name: 'Posts', exact: true }).click()
        await tab.waitForURL(/\/posts$/)
        // The row is titled by the compose's first post (the first create_post made).
        const lead = made.map((p) => p.id as string).sort()[0] as string
        const row = tab.locator('li.compose', { has: tab.locator(`h2 a[href="/posts/${lead}"]`) })
        expect(await row.count()).toBe(1)
        const chips = row.locator('.profile-chip')
        expect(await chips.count()).toBe(3)
        for (const text of await chips.allTextContents()) expect(text).toContain('Scheduled')
        await row.locator('h2 a').click()
        await tab.waitForURL(new RegExp(`/posts/${lead}$`))
        const cards = tab.locator('.profile-card')
        expect(await cards.count()).toBe(3)
        for (const text of await cards.locator('.chip').allTextContents())
          expect(text.trim()).toBe('Scheduled')

        // X makes the post but its answer is lost (a 503 after the effect): Herald looks before sending
        // again. LinkedIn refuses the next post for good; Instagram takes its own.
        faults.on(
          { network: 'twitter', operation: 'createPosts' },
          { timing: 'after', answer: { kind: 'status', status: 503 } },
        )
        const refusal = await fetch(`${h.baseUrl}/sandbox/linkedin/_sandbox/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            op: 'posts',
            status: 422,
            body: { status: 422, message: 'The image does not meet the page’s requirements' },
          }),
        })
        expect(refusal.status).toBe(200)
        for (const id of Object.values(ids)) await publishNow(tab, id)
        expect(await onX(copy.all)).toHaveLength(1)
        expect(await onInstagram(copy.instagram)).toHaveLength(1)
        expect(await onLinkedIn(copy.linkedin)).toHaveLength(0)

        // The failed profile's page offers the fix: its words, and Retry, which publishes it once.
        await tab.goto(`${h.baseUrl}/posts/${ids.linkedin}`)
        const failed = tab.locator('.profile-card.current')
        expect((await failed.locator('.chip').textContent())?.trim()).toBe('Failed')
        expect(await failed.textContent()).toContain('The image does not meet the page’s requirements')
        await failed.getByRole('button', { name: 'Retry' }).click()
        await expect
          .poll(async () => (await tab.getByRole('status').textContent())?.trim(), slow)
          .toBe('Published.')
        expect(await onLinkedIn(copy.linkedin)).toHaveLength(1)
        expect(await onX(copy.all)).toHaveLength(1)
        expect(await onInstagram(copy.instagram)).toHaveLength(1)
        expect((await tab.locator('.profile-card.current .chip').textContent())?.trim()).toBe('Published')
        const history = tab.getByRole('region', { name: names.linkedin })
        const lines = (await history.locator('li .what').allTextContents()).map((l) => l.trim())
        const xLines = (
          await tab.getByRole('region', { name: names.twitter }).locator('li .what').allTextContents()
        ).map((l) => l.trim())
        expect(xLines).toEqual([
          'Created',
          expect.stringMatching(
            /^Sent to X @journey_x: X gave no clear answer, so Herald looks for the post before sending again/,
          ),
          'Looked on X: the post was there, so it was not sent again',
          'Published on X @journey_x',
        ])
        expect(lines).toEqual([
          'Created',
          `Sent to ${names.linkedin}: refusedLinkedIn refused the post: The image does not meet the page’s requirements`,
          'Retried now',
          `Sent to ${names.linkedin}: published`,
        ])
        // The live links stay inside their cards, on a phone too.
        await tab.setViewportSize(VIEWPORTS.phone)
        for (const box of await tab
          .locator('a.live')
          .evaluateAll((links) => links.map((l) => l.getBoundingClientRect().right)))
          expect(box).toBeLessThanOrEqual(VIEWPORTS.phone.width)
        await tab.setViewportSize(viewport)
        if (size === 'desktop') expect(await lookAt(tab, 'post-retried')).toEqual([])
        expect(errors).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    }, 240_000)
  }
})
