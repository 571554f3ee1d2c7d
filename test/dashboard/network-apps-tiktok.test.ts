import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'

const NOTICE = "TikTok has not audited this Herald's app yet"
/** The notice as the page's HTML writes it (the apostrophe escaped). */
const NOTICE_HTML = /TikTok has not audited this Herald(?:&#39;|')s app yet/

/**
 * TikTok on the network apps page, in sandbox mode (the simulator answers the app check): the steps (Login
 * Kit, the Content Posting API with Direct Post, the callback, verifying the media domain, the audit), an
 * app saved with its audit switch, the unaudited app's notice here and in preflight (blocking nothing),
 * and the check with TikTok's token endpoint telling a right app from a wrong one.
 */
describe('TikTok on the network apps page', () => {
  let h: Harness
  let admin: Browser

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, credits: 100, prePickPort: true })
    admin = createBrowser(h.baseUrl)
    await admin.login(h.email, h.password)
  }, 60_000)
  afterAll(() => h?.close())

  const save = async (fields: Record<string, string>) => {
    const page = await admin.get('/settings/networks')
    return admin.post('/settings/networks/tiktok', { csrf: admin.csrf(page), ...fields })
  }
  const check = async () => {
    const page = await admin.get('/settings/networks')
    return admin.post('/settings/networks/tiktok/check', { csrf: admin.csrf(page) })
  }

  it('says how to make the app: the products, the callback, the verified media domain and the audit', async () => {
    const shown = await admin.get('/settings/networks')
    expect(shown.text).toContain('id="tiktok"')
    expect(shown.text).toContain('https://developers.tiktok.com/apps')
    expect(shown.text).toContain('“Content Posting API”')
    expect(shown.text).toContain('Under URL properties, verify the domain of this Herald’s public address')
    expect(shown.text).toContain(`value="${h.baseUrl}/connect/tiktok/callback"`)
    for (const scope of ['user.info.basic', 'video.publish', 'video.upload', 'video.list'])
      expect(shown.text).toContain(`<code>${scope}</code>`)
    // The simulator's own app is audited: nothing to warn about.
    expect(shown.text).not.toMatch(NOTICE_HTML)
  })

  it('shows the unaudited app’s notice here and warns in preflight, blocking nothing, until the audit is ticked', async () => {
    const saved = await save({ clientId: 'herald-sandbox', clientSecret: 'herald-sandbox-secret' })
    expect(saved.status).toBe(200)
    expect(saved.text).toMatch(NOTICE_HTML)
    expect((await h.app.networkApps.records()).tiktok).toMatchObject({
      clientId: 'herald-sandbox',
      audited: false,
    })
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'tiktok', username: 'apps.bakery' })
    const { body } = await h.call('preflight_post', {
      content: 'Dawn',
      platforms: ['tiktok'],
      mediaUrl: 'https://cdn.example.com/dawn.mp4',
      tiktok: { privacyLevel: 'SELF_ONLY' },
    })
    expect(body.warnings.some((w: string) => w.includes(NOTICE))).toBe(true)
    expect(body.blockers.some((b: string) => b.includes('audit'))).toBe(false)

    const audited = await save({ clientId: 'herald-sandbox', clientSecret: '', audited: 'on' })
    expect(audited.status).toBe(200)
    expect(audited.text).not.toMatch(NOTICE_HTML)
    expect((await h.app.networkApps.records()).tiktok?.audited).toBe(true)
    expect(h.app.adapters.tiktok?.appLimit).toBeUndefined()
  })

  it('checks the app with TikTok’s token endpoint: a right key and secret are accepted, a wrong secret refused', async () => {
    const right = await check()
    expect(right.text).toContain('TikTok accepted this app’s client ID and secret.')
    await save({ clientId: 'herald-sandbox', clientSecret: 'not-the-secret', audited: 'on' })
    const wrong = await check()
    expect(wrong.text).toContain('TikTok refused this app')
    expect(wrong.text).not.toContain('not-the-secret')
    await save({ clientId: 'herald-sandbox', clientSecret: 'herald-sandbox-secret', audited: 'on' })
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'is clean for axe-core in Chromium with the unaudited notice, at desktop and phone widths',
    async () => {
      await h.app.networkApps.save(
        'tiktok',
        { clientId: 'herald-sandbox', clientSecret: '', audited: false },
        h.userId,
      )
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1366, height: 900 },
        bypassCSP: true,
      })
      try {
        const tab = await context.newPage()
        await tab.goto(`${h.baseUrl}/login?next=%2Fsettings%2Fnetworks`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/settings\/networks$/)
        expect(await tab.getByRole('region', { name: 'TikTok' }).textContent()).toContain(NOTICE)
        expect(await lookAt(tab, 'network-apps-tiktok')).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
