import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile, givePicture } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { accessibilityProblems, lookAt, VIEWPORTS } from '../helpers/look-at.js'
import { screenshotDir } from '../helpers/reference.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'

/**
 * A manager composes in Chromium, on a laptop and on a phone: two uploaded images, copy of its own for
 * LinkedIn and Instagram, to X, a LinkedIn page and Instagram; three previews in each network's look; the
 * post scheduled for a date and time in the browser's zone.
 */
/** A loaded machine runs the debounced check and the uploads slowly. */
const slow = { timeout: 15_000 }

describe.runIf(existsSync('/usr/bin/chromium'))('composing in two panes', () => {
  let h: Harness

  beforeAll(async () => {
    h = await startHarness({
      adapters: {
        twitter: scriptedAdapter('twitter'),
        linkedin: scriptedAdapter('linkedin'),
        instagram: scriptedAdapter('instagram'),
      },
      credits: 200,
      // A local setup: Instagram's media stays on Herald's loopback address.
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
    })
    await givePicture(h, await connectProfile(h, 'twitter', 'tw-1', 'acme'), '#1d6fb8')
    await connectProfile(h, 'linkedin', 'li-page', 'acme-studio', { isOrganization: true })
    await connectProfile(h, 'instagram', 'ig-1', 'acme.ig')
  })
  afterAll(() => h.close())

  const picture = (r: number, g: number, b: number, width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer()

  for (const [index, [size, viewport]] of Object.entries(VIEWPORTS).entries()) {
    it(`composes to X, a LinkedIn page and Instagram with two images and schedules it (${size})`, async () => {
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
        await tab.goto(`${h.baseUrl}/login?next=%2Fposts`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/posts$/)
        await tab.getByRole('link', { name: 'Create post' }).first().click()
        await tab.waitForURL(/\/compose$/)
        expect(await tab.getByLabel('Time zone').inputValue()).toBe('Europe/Paris')

        for (const name of ['X @acme', 'LinkedIn @acme-studio', 'Instagram @acme.ig'])
          await tab.getByRole('checkbox', { name, exact: true }).check()
        const day = new Date(Date.now() + (5 + index) * 86_400_000).toISOString().slice(0, 10)
        const copy = tab.getByRole('textbox', { name: 'Copy', exact: true })
        await copy.fill(`Spring is here, on ${size}.`)
        await tab.getByLabel('Add media').setInputFiles([
          { name: 'wide.png', mimeType: 'image/png', buffer: await picture(10, 90, 200, 320, 180) },
          { name: 'square.png', mimeType: 'image/png', buffer: await picture(220, 120, 20, 200, 200) },
        ])
        const thumbs = tab.getByRole('list', { name: 'Media, in order' }).getByRole('listitem')
        await expect.poll(() => thumbs.count(), slow).toBe(2)
        // Alt text per image, in the tray: the words follow their image through every move below.
        await tab.getByLabel('Alt text for image 1').fill('A deep blue band across a wide frame')
        await tab.getByLabel('Alt text for image 2').fill('An orange square')
        // The keyboard's way to reorder: the square first, then back.
        await tab.getByRole('button', { name: 'Move square.png earlier' }).click()
        await expect.poll(() => thumbs.first().textContent(), slow).toContain('square.png')
        await tab.getByRole('button', { name: 'Move square.png later' }).click()
        await expect.poll(() => thumbs.first().textContent(), slow).toContain('wide.png')
        // And the pointer's way: dragging the square onto the first place, then the wide one back, each by
        // its picture (the alt text field below it is for selecting words, not for dragging).
        const grabPicture = { sourcePosition: { x: 30, y: 30 }, targetPosition: { x: 30, y: 30 } }
        await thumbs.nth(1).dragTo(thumbs.nth(0), grabPicture)
        await expect.poll(() => thumbs.first().textContent(), slow).toContain('square.png')
        await thumbs.nth(1).dragTo(thumbs.nth(0), grabPicture)
        await expect.poll(() => thumbs.first().textContent(), slow).toContain('wide.png')
        expect(await tab.getByLabel('Alt text for image 1').inputValue()).toBe(
          'A deep blue band across a wide frame',
        )
        expect(await tab.getByLabel('Alt text for image 2').inputValue()).toBe('An orange square')

        // Copy for one network, in its tab, with its own count against LinkedIn's limit.
        await tab.getByRole('tab', { name: /LinkedIn/ }).click()
        await tab
          .getByLabel('Copy for LinkedIn (empty: the copy for all)')
          .fill('Spring is here: made for teams.')
        await tab.getByRole('tab', { name: /Instagram/ }).click()
        await tab.getByLabel('Copy for Instagram (empty: the copy for all)').fill('Spring, in bloom #spring')
        await expect
          .poll(() => tab.getByRole('tab', { name: /LinkedIn/ }).textContent(), slow)
          .toContain('31 / 3000')

        await tab.getByLabel('Date', { exact: true }).fill(day)
        await tab.getByLabel('Time', { exact: true }).fill('10:30')
        const schedule = tab.getByRole('button', { name: 'Schedule' })
        await expect.poll(() => schedule.isEnabled(), { timeout: 15_000 }).toBe(true)

        if (size === 'phone') {
          // On a phone the previews are a tab beside the editor, reached with the keyboard.
          expect(await tab.getByRole('region', { name: 'Preview' }).isVisible()).toBe(false)
          await tab.getByRole('tab', { name: 'Edit' }).focus()
          await tab.keyboard.press('ArrowRight')
          expect(await tab.getByRole('tab', { name: 'Preview' }).getAttribute('aria-selected')).toBe('true')
          expect(await tab.getByRole('button', { name: 'Schedule' }).isVisible()).toBe(false)
        } else expect(await tab.getByRole('tab', { name: 'Preview' }).isVisible()).toBe(false)
        const region = tab.getByRole('region', { name: 'Preview' })
        const previews = region.getByRole('article')
        await expect.poll(() => previews.count(), slow).toBe(3)
        const labels = await previews.evaluateAll((cards) => cards.map((c) => c.getAttribute('aria-label')))
        expect(labels.sort()).toEqual(['Instagram @acme.ig', 'LinkedIn @acme-studio', 'X @acme'])
        expect(await region.locator('article.pv-twitter .media.grid img').count()).toBe(2)
        expect(await region.locator('article.pv-instagram .media.carousel img').count()).toBe(2)
        expect(await region.getByRole('article', { name: 'LinkedIn @acme-studio' }).textContent()).toContain(
          'Spring is here: made for teams.',
        )
        if (size === 'desktop') {
          const box = await tab.locator('.compose-previews').boundingBox()
          const editor = await tab.locator('.compose-editor').boundingBox()
          expect(box!.x).toBeGreaterThan(editor!.x + editor!.width - 1)
          await tab.evaluate(() => window.scrollTo(0, 0))
          expect(await lookAt(tab, 'compose')).toEqual([])
        } else {
          expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
          expect(
            await region.getByRole('img', { name: 'A deep blue band across a wide frame' }).count(),
          ).toBe(3)
          for (const scheme of ['light', 'dark'] as const) {
            await tab.emulateMedia({ colorScheme: scheme })
            await tab.screenshot({
              path: path.join(
                screenshotDir(),
                `compose-preview-phone${scheme === 'dark' ? '-dark' : ''}.png`,
              ),
              fullPage: true,
            })
            expect(await accessibilityProblems(tab)).toEqual([])
          }
          await tab.emulateMedia({ colorScheme: 'light' })
          await tab.getByRole('tab', { name: 'Edit' }).click()
        }

        await schedule.click()
        await tab.waitForURL(/\/posts$/)
        const posts = (await h.call('list_posts', {})).body.posts as Array<{
          id: string
          content: string
          platforms: string[]
          scheduleDate: string
          scheduleTime: string
          timezone: string
          mediaUrls: string[]
        }>
        const made = posts.filter((p) => p.scheduleDate === day)
        expect(made.map((p) => p.platforms[0]).sort()).toEqual(['instagram', 'linkedin', 'twitter'])
        expect(made.every((p) => p.scheduleTime === '10:30' && p.timezone === 'Europe/Paris')).toBe(true)
        const copyOn = (network: string) => made.find((p) => p.platforms[0] === network)?.content
        expect(copyOn('twitter')).toBe(`Spring is here, on ${size}.`)
        expect(copyOn('linkedin')).toBe('Spring is here: made for teams.')
        expect(copyOn('instagram')).toBe('Spring, in bloom #spring')
        for (const post of made) {
          expect(post.mediaUrls.map((u) => u.split('/').pop())).toEqual(['wide.png', 'square.png'])
          const [wide, square] = post.mediaUrls as [string, string]
          expect(
            ((await h.call('get_post', { id: post.id })).body as { mediaAltTexts: unknown }).mediaAltTexts,
          ).toEqual({
            [wide]: 'A deep blue band across a wide frame',
            [square]: 'An orange square',
          })
        }
        expect(errors).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    }, 120_000)
  }
})
