import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { openSignedIn, type SignedInTab } from '../helpers/signed-in-tab.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * Pinterest in the dashboard, as a person uses it in sandbox mode: its tile on Channels, the simulator's
 * consent page, the choose-profiles page listing the account's boards (two ticked), a card per board, the
 * network apps page's steps, Compose with the pin's title and link and a pin's preview, and the pin page the
 * published pin's URL opens. Each page is looked at at both sizes, in both themes.
 */
describe('Pinterest in the dashboard', () => {
  let h: Harness
  let files: TestServer
  let worker: Worker
  beforeAll(async () => {
    const photo = await solidImage(1000, 1500, 'jpeg')
    files = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      response.end(photo)
    })
    h = await startHarness({
      sandbox: true,
      credits: 100,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '20000' },
    })
    worker = createAppWorker(h.app, { id: 'pinterest-pages' })
    worker.start()
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await files?.close()
  })

  it('says how to set up the Pinterest app, with its scopes and the Trial access host', async () => {
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const page = await browser.get('/settings/networks')
    expect(page.status).toBe(200)
    expect(page.text).toContain('id="pinterest"')
    expect(page.text).toContain('developers.pinterest.com/apps/')
    expect(page.text).toContain('boards:read')
    expect(page.text).toContain('HERALD_PINTEREST_API_URL=https://api-sandbox.pinterest.com/v5')
  })

  const chromium = existsSync('/usr/bin/chromium')
  it.runIf(chromium)(
    'connects two of the account’s boards from the tile and the choose-profiles page, a card each',
    async () => {
      const browser = await openSignedIn(h.baseUrl, h, '/channels')
      try {
        const { tab } = browser
        await tab.getByRole('link', { name: 'Connect Pinterest' }).click()
        await tab.getByRole('button', { name: 'Continue to Pinterest' }).click()
        await tab.getByLabel('Username').fill('studio_pia')
        await tab.getByRole('button', { name: 'Give access' }).click()
        await tab.waitForURL(/\/connect\/pinterest\/choose\//)
        expect(await tab.getByRole('checkbox').count()).toBe(3)
        expect(await lookAt(tab, 'pinterest-choose-boards')).toEqual([])
        await tab.getByRole('checkbox', { name: /Spring recipes/ }).check()
        await tab.getByRole('checkbox', { name: /Shop window/ }).check()
        await tab.getByRole('button', { name: /connect/i }).click()
        await tab.waitForURL(/\/channels/)
        const cards = tab.locator('li.card.channel')
        expect(await cards.count()).toBe(2)
        expect(await cards.allTextContents()).toEqual(
          expect.arrayContaining([
            expect.stringContaining('Spring recipes'),
            expect.stringContaining('Shop window'),
          ]),
        )
        expect(await lookAt(tab, 'pinterest-channels')).toEqual([])
        expect(browser.errors).toEqual([])
      } finally {
        await browser.close()
      }
    },
    90_000,
  )

  it.runIf(chromium)(
    'composes a pin with its title and link, previews it as a pin, and publishes to the pin page',
    async () => {
      let browser: SignedInTab | undefined
      try {
        browser = await openSignedIn(h.baseUrl, h, '/compose')
        const { tab } = browser
        await tab.getByRole('checkbox', { name: 'Pinterest @studio_pia · Spring recipes' }).check()
        await tab.getByRole('textbox', { name: 'Copy', exact: true }).fill('Lemon tart, step by step')
        await tab.getByText('Media by address').click()
        await tab.getByLabel('Media URLs, one per line, in order').fill(`${files.url}/tart.jpg`)
        await tab.getByLabel(/^Title \(optional/).fill('Lemon tart')
        await tab.getByLabel(/^Link, the page the pin opens/).fill('https://bakery.example/tart')
        const card = tab.getByRole('article', { name: 'Pinterest @studio_pia · Spring recipes' })
        await expect
          .poll(() => card.locator('.pin-title').textContent(), { timeout: 20_000 })
          .toBe('Lemon tart')
        expect(await card.locator('.pin-link').textContent()).toBe('bakery.example')
        // Pinterest takes no first comment and no thread: neither part is offered for a board alone.
        expect(await tab.locator('#comment').isHidden()).toBe(true)
        expect(await tab.locator('#thread').isHidden()).toBe(true)
        expect(await lookAt(tab, 'pinterest-compose')).toEqual([])
        await tab.getByRole('button', { name: 'Publish now' }).click()
        await tab.waitForURL(/\/posts\//)
        const href = await tab.locator('a[href*="/sandbox/pinterest/web/pin/"]').first().getAttribute('href')
        expect(href).toBeTruthy()
        await tab.goto(href!)
        expect(await tab.locator('h1.title').textContent()).toBe('Lemon tart')
        expect(await lookAt(tab, 'sandbox-pinterest-pin')).toEqual([])
        expect(browser.errors).toEqual([])
      } finally {
        await browser?.close()
      }
    },
    120_000,
  )
})
