import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { openSignedIn } from '../helpers/signed-in-tab.js'
import { solidImage } from '../media/fixtures.js'

/** A loaded machine runs the debounced check and the uploads slowly. */
const slow = { timeout: 20_000 }

/**
 * Google Business Profile in the dashboard: its connect tile and its locations as channels, the network apps
 * page saying plainly that Google grants API access on application, Compose's part for the post type, the
 * event's or offer's title and dates, the offer's code and terms and the button, the preview of a Google post
 * with its button, and the simulator's page of the published post. Each page looked at on a laptop and a
 * phone, light and dark.
 */
describe('Google Business Profile in the dashboard', () => {
  let h: Harness
  let worker: Worker
  beforeAll(async () => {
    h = await startHarness({ sandbox: true, credits: 100, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
    worker = createAppWorker(h.app, { id: 'gbp-dashboard' })
    worker.start()
    await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'googlebusiness',
      username: 'Corner Bakery',
    })
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
  })

  it('offers the connect tile, lists each location as a channel, and says on the network apps page what Google withholds', async () => {
    const owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
    const channels = await owner.get('/channels')
    expect(channels.text).toContain('<a class="tile" href="/connect/googlebusiness">')
    expect(channels.text).toContain('Updates, events and offers on the locations you choose.')
    expect(channels.text).toContain('<h3>@corner-bakery-high-street</h3>')
    expect(channels.text).toContain('<h3>@corner-bakery-station-road</h3>')
    const apps = await owner.get('/settings/networks')
    expect(apps.text).toContain('Google grants access to the Business Profile APIs only on application.')
    expect(apps.text).toContain('every call is refused with a quota of 0 requests a minute')
    expect(apps.text).toContain('https://www.googleapis.com/auth/business.manage')
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'composes an offer with a photo and a button-less summary, previews it as a Google post, and publishes it',
    async () => {
      const browser = await openSignedIn(h.baseUrl, h, '/channels')
      const { tab } = browser
      try {
        expect(await lookAt(tab, 'channels-googlebusiness')).toEqual([])
        await tab.goto(`${h.baseUrl}/settings/networks#googlebusiness`)
        expect(await lookAt(tab, 'network-apps-googlebusiness')).toEqual([])

        await tab.goto(`${h.baseUrl}/compose`)
        await tab
          .getByRole('checkbox', { name: 'Google Business Profile @corner-bakery-high-street' })
          .check()
        const part = tab.getByRole('region', { name: 'Google Business Profile details' })
        await expect.poll(() => part.isVisible(), slow).toBe(true)
        await tab
          .getByRole('textbox', { name: 'Copy', exact: true })
          .fill('Two loaves for the price of one, all October.')
        await tab
          .getByLabel('Add media')
          .setInputFiles([
            { name: 'loaves.jpg', mimeType: 'image/jpeg', buffer: await solidImage(1200, 900, 'jpeg') },
          ])
        await expect
          .poll(() => tab.getByRole('list', { name: 'Media, in order' }).getByRole('listitem').count(), slow)
          .toBe(1)
        await part.getByRole('radio', { name: 'Offer' }).check()
        // An offer shows its title, dates and offer fields; the button is Google's own.
        await expect.poll(() => part.getByLabel('Coupon code (optional)').isVisible(), slow).toBe(true)
        expect(await part.getByLabel('Button', { exact: true }).isVisible()).toBe(false)
        await part.getByLabel('Title', { exact: true }).fill('Two for one')
        await part.getByLabel('Starts', { exact: true }).fill('2030-10-01')
        await part.getByLabel('Ends', { exact: true }).fill('2030-10-31')
        await part.getByLabel('Coupon code (optional)').fill('TWOFOR1')
        await part
          .getByLabel('Where to redeem it online (optional)')
          .fill('https://corner-bakery.example/offer')
        await part.getByLabel('Terms and conditions (optional)').fill('One per visit.')

        const preview = tab.getByRole('region', { name: 'Preview' }).getByRole('article')
        await expect.poll(() => preview.locator('.gbp-button').textContent(), slow).toBe('Get offer')
        expect(await preview.locator('.gbp-title').textContent()).toBe('Two for one')
        expect(await preview.locator('.gbp-dates').textContent()).toBe('1 Oct 2030 – 31 Oct 2030')
        expect(await preview.locator('.gbp-coupon').textContent()).toBe('Code: TWOFOR1')
        await expect.poll(() => preview.locator('.media img').count(), slow).toBe(1)
        const publish = tab.getByRole('button', { name: 'Publish now' })
        await expect.poll(() => publish.isEnabled(), slow).toBe(true)
        expect(await lookAt(tab, 'compose-googlebusiness')).toEqual([])

        await publish.click()
        await tab.waitForURL(/\/posts\/[0-9a-f]{24}$/, slow)
        const link = tab.getByRole('link', { name: /local\.google|sandbox\/googlebusiness\/web/ }).first()
        const url = (await link.count()) > 0 ? await link.getAttribute('href') : undefined
        const [post] = [...h.sandboxes!.googlebusiness.posts.values()]
        expect(post?.post).toMatchObject({ topicType: 'OFFER', offer: { couponCode: 'TWOFOR1' } })
        await tab.goto(url ?? h.sandboxes!.googlebusiness.searchUrl(post!))
        await expect.poll(() => tab.getByRole('link', { name: 'Get offer' }).count(), slow).toBe(1)
        expect(await lookAt(tab, 'sandbox-googlebusiness-post')).toEqual([])
        expect(browser.errors).toEqual([])
      } finally {
        await browser.close()
      }
    },
    120_000,
  )
})
