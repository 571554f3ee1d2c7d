import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'
import { h264Clip } from '../media/video-fixtures.js'

/**
 * Compose's media tray: a hosted video shows a poster frame Herald made from the file (served from Herald,
 * to the workspace that uploaded it only), and each image, never a video, has its alt text field, drawn by
 * the server too so the form works without a script.
 */

describe('the media tray', () => {
  let h: Harness
  let browser: Browser
  let clip: Buffer<ArrayBuffer>
  let work: string

  beforeAll(async () => {
    h = await startHarness({ adapters: { bluesky: scriptedAdapter('bluesky') }, credits: 100 })
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.sky')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    work = mkdtempSync(path.join(tmpdir(), 'herald-tray-'))
    clip = readFileSync(
      await h264Clip(path.join(work, 'clip.mp4'), { width: 320, height: 568 }),
    ) as Buffer<ArrayBuffer>
  })
  afterAll(async () => {
    await h.close()
    rmSync(work, { recursive: true, force: true })
  })

  const cookie = () => [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  const uploaded = async (name: string, type: string, bytes: Buffer<ArrayBuffer>) => {
    const csrf = browser.csrf(await browser.get('/compose'))
    const answer = await fetch(`${h.baseUrl}/compose/upload?name=${encodeURIComponent(name)}&csrf=${csrf}`, {
      method: 'POST',
      headers: { 'content-type': type, cookie: cookie() },
      body: bytes,
    })
    expect(answer.status).toBe(201)
    return ((await answer.json()) as { url: string }).url
  }

  it('answers a hosted video’s poster frame as a JPEG from Herald, and nothing to a visitor or for an image', async () => {
    const url = await uploaded('clip.mp4', 'video/mp4', clip)
    const poster = `${h.baseUrl}/compose/poster/${new URL(url).pathname.slice('/media/'.length)}`
    const answer = await fetch(poster, { headers: { cookie: cookie() } })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/jpeg')
    const shape = await sharp(Buffer.from(await answer.arrayBuffer())).metadata()
    expect(shape.format).toBe('jpeg')
    expect([shape.width, shape.height]).toEqual([270, 480])
    expect((await fetch(poster)).status).toBe(401)
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#08f' } })
      .png()
      .toBuffer()
    const image = await uploaded('dot.png', 'image/png', png as Buffer<ArrayBuffer>)
    const notVideo = `${h.baseUrl}/compose/poster/${new URL(image).pathname.slice('/media/'.length)}`
    expect((await fetch(notVideo, { headers: { cookie: cookie() } })).status).toBe(404)
  })

  it('draws the tray on the server: an alt text field for each image by its place, none for a video', async () => {
    const form = await browser.get('/compose')
    const picture = 'https://cdn.example.com/cake.jpg'
    const answer = await browser.post(`${h.baseUrl}/compose`, {
      csrf: [browser.csrf(form)],
      intent: ['check'],
      content: ['Cake'],
      profile: ['bluesky:bs-1'],
      mediaUrls: [`https://cdn.example.com/clip.mp4\n${picture}`],
      [`alt:${picture}`]: ['A lemon cake'],
    })
    expect(answer.text).toContain('Alt text for image 2')
    expect(answer.text).not.toContain('Alt text for image 1')
    expect(answer.text).toContain(`name="alt:${picture}"`)
    expect(answer.text).toMatch(
      /<textarea name="alt:https:\/\/cdn\.example\.com\/cake\.jpg"[^>]*>A lemon cake<\/textarea>/,
    )
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'shows the poster frame in Chromium, with no alt text field for the video',
    async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1366, height: 900 },
      })
      try {
        const tab = await context.newPage()
        const errors: string[] = []
        tab.on('pageerror', (error) => errors.push(error.message))
        await tab.goto(`${h.baseUrl}/login?next=%2Fcompose`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/compose$/)
        await tab
          .getByLabel('Add media')
          .setInputFiles({ name: 'clip.mp4', mimeType: 'video/mp4', buffer: clip })
        const frame = tab.locator('#thumbs .thumb-frame.video img')
        await expect
          .poll(() => frame.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 15_000 })
          .toBe(270)
        expect(await frame.getAttribute('src')).toMatch(/^\/compose\/poster\/[^/]+\/clip\.mp4$/)
        expect(await tab.getByLabel(/Alt text for image/).count()).toBe(0)
        expect(errors).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
