import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt, VIEWPORTS } from '../helpers/look-at.js'
import { mp4File } from '../media/fixtures.js'

/**
 * Composing for TikTok in Chromium, against the TikTok simulator: the TikTok part names the creator, asks
 * who can watch with no choice made for them (only the levels the creator's account offers), offers the
 * switches off (one the creator turned off in the app greyed out), the disclosure revealing its two kinds,
 * and the consent sentence by the buttons; the buttons stay off until a level is chosen and a disclosure
 * says its kind; the preview is the vertical frame with the caption; the post goes out once.
 */
const slow = { timeout: 20_000 }

describe.runIf(existsSync('/usr/bin/chromium'))('composing for TikTok', () => {
  let h: Harness
  let worker: Worker

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, credits: 200, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
    worker = createAppWorker(h.app, { id: 'compose-tiktok' })
    worker.start()
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'tiktok', username: 'Pier Bakery' })
    h.sandboxes!.tiktok.ensureUser('pierbakery').duetOff = true
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
  })

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`asks what TikTok requires, where its guidelines put it, and publishes the video once (${size})`, async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, { ...CHROMIUM, viewport })
      try {
        const tab = await context.newPage()
        const errors: string[] = []
        tab.on('pageerror', (error) => errors.push(error.message))
        await tab.goto(`${h.baseUrl}/login?next=%2Fcompose`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/compose$/)

        const part = tab.getByRole('region', { name: 'TikTok details' })
        expect(await part.isHidden()).toBe(true)
        await tab.getByRole('checkbox', { name: 'TikTok @pierbakery', exact: true }).check()
        expect(await part.isVisible()).toBe(true)
        // TikTok takes no thread and no first comment: neither part is offered.
        expect(await tab.locator('#thread').isHidden()).toBe(true)
        expect(await tab.locator('#comment').isHidden()).toBe(true)
        expect(await part.textContent()).toContain('Posting to TikTok as Pier Bakery (@pierbakery).')
        const privacy = part.getByLabel('Who can watch this post')
        expect(await privacy.inputValue()).toBe('')
        expect(await privacy.locator('option').allTextContents()).toEqual([
          'Choose who can watch',
          'Everyone',
          'Friends',
          'Only me',
        ])
        expect(await part.getByRole('checkbox', { name: /^Comment/ }).isChecked()).toBe(false)
        expect(await part.getByRole('checkbox', { name: /^Duet/ }).isDisabled()).toBe(true)
        const consent = tab.locator('#tiktok-consent')
        expect(await consent.textContent()).toBe(
          "By posting, you agree to TikTok's Music Usage Confirmation.",
        )

        const caption = `Shaping the dough at dawn, on ${size}`
        await tab.getByRole('textbox', { name: 'Copy', exact: true }).fill(caption)
        await tab.getByLabel('Add media').setInputFiles([
          {
            name: 'dawn.mp4',
            mimeType: 'video/mp4',
            buffer: mp4File({ width: 1080, height: 1920, durationMs: 8000, mdatBytes: 8 * 1024 }),
          },
        ])
        await expect
          .poll(() => tab.getByRole('list', { name: 'Media, in order' }).getByRole('listitem').count(), slow)
          .toBe(1)
        // No level chosen: the check blocks it by the TikTok part, naming what the creator may choose.
        await expect
          .poll(() => part.locator('.field-note').textContent(), slow)
          .toContain('@pierbakery may choose')
        const publish = tab.getByRole('button', { name: 'Publish now' })
        expect(await publish.isDisabled()).toBe(true)

        await privacy.selectOption('PUBLIC_TO_EVERYONE')
        await part.getByRole('checkbox', { name: /^Comment/ }).check()
        await expect.poll(() => publish.isEnabled(), slow).toBe(true)
        // A disclosure must say its kind; branded content names its policy and cannot be "Only me".
        await part.getByRole('checkbox', { name: /^Disclose/ }).check()
        expect(await publish.isDisabled()).toBe(true)
        await part.getByRole('checkbox', { name: /^Branded content/ }).check()
        expect(await consent.textContent()).toContain('Branded Content Policy')
        expect(await privacy.locator('option[value="SELF_ONLY"]').isDisabled()).toBe(true)
        await expect.poll(() => publish.isEnabled(), slow).toBe(true)

        // A phone shows the previews on their own tab.
        if (size === 'phone') await tab.getByRole('tab', { name: 'Preview', exact: true }).click()
        const card = tab
          .getByRole('region', { name: 'Preview' })
          .getByRole('article', { name: 'TikTok @pierbakery' })
        await expect.poll(() => card.locator('.tiktok-frame').count(), slow).toBe(1)
        expect(await card.textContent()).toContain(
          'Who can watch: Everyone · allows comments · Paid partnership',
        )
        if (size === 'phone') await tab.getByRole('tab', { name: 'Edit', exact: true }).click()
        await tab.evaluate(() => window.scrollTo(0, 0))
        if (size === 'desktop') expect(await lookAt(tab, 'compose-tiktok')).toEqual([])
        else expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)

        await publish.click()
        await tab.waitForURL(/\/posts\//, slow)
        const held = () => [...h.sandboxes!.tiktok.posts.values()].filter((p) => p.title === caption)
        await expect.poll(() => held().length, slow).toBe(1)
        expect(held()[0]).toMatchObject({
          privacyLevel: 'PUBLIC_TO_EVERYONE',
          disableComment: false,
          brandContent: true,
        })
        expect(errors).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    }, 120_000)
  }
})
