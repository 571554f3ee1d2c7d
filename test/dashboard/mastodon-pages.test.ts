import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { openSignedIn } from '../helpers/signed-in-tab.js'

/**
 * Mastodon in the dashboard: the connect page asks for the instance and the sign-in goes to that instance's
 * own page; Compose shows Mastodon's details (visibility, content warning, language) for a Mastodon profile
 * and previews the toot behind its content warning; the network apps page says there is no app to make and
 * where Herald is registered; the sandbox's page of a toot shows it behind its warning.
 */
describe('Mastodon in the dashboard', () => {
  let h: Harness
  let owner: Browser
  let worker: Worker
  let profileId = ''

  beforeAll(async () => {
    h = await startHarness({ sandbox: true })
    profileId = (
      await sandboxConnect(h.app, {
        workspaceId: h.workspaceId,
        network: 'mastodon',
        username: 'jo@pages.example',
      })
    ).profileId
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
    worker = createAppWorker(h.app, { id: 'pages-worker' })
    worker.start()
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
  })

  it('offers Mastodon on the channels page, and its connect page asks for the instance', async () => {
    const channels = await owner.get('/channels')
    expect(channels.text).toMatch(/<a class="tile" href="\/connect\/mastodon">[\s\S]*?Any instance/)
    expect(channels.text).toContain('<h3>@jo@pages.example</h3>')
    const form = await owner.get('/connect/mastodon')
    expect(form.status).toBe(200)
    expect(form.text).toContain('<input type="text" name="instance"')
  })

  it('sends the sign-in to the instance named, and refuses an address that names none', async () => {
    const csrf = /name="csrf" value="([^"]+)"/.exec((await owner.get('/connect/mastodon')).text)![1]!
    const start = await owner.post('/connect/mastodon', {
      csrf,
      workspaceId: h.workspaceId,
      instance: '@kim@other.example',
    })
    expect(start.status).toBe(303)
    expect(start.location).toMatch(/\/sandbox\/mastodon\/other\.example\/oauth\/authorize\?/)
    const bad = await owner.post('/connect/mastodon', {
      csrf,
      workspaceId: h.workspaceId,
      instance: 'not an address',
    })
    expect(bad.status).toBe(400)
    expect(bad.text).toContain('is not the address of a Mastodon instance')
  })

  it('says on the network apps page that Mastodon needs no app, and names the instances Herald is registered on', async () => {
    const shown = await owner.get('/settings/networks')
    expect(shown.text).toMatch(
      /id="mastodon"[\s\S]*There is no app to make[\s\S]*<code>pages\.example<\/code>/,
    )
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'shows the connect page, Compose with the toot behind its content warning, and the toot on the simulated instance, on a phone and in both themes',
    async () => {
      const browser = await openSignedIn(h.baseUrl, h, '/connect/mastodon')
      try {
        expect(await lookAt(browser.tab, 'connect-mastodon')).toEqual([])
        await browser.tab.goto(`${h.baseUrl}/compose`)
        const slow = { timeout: 15_000 }
        await browser.tab.getByRole('checkbox', { name: 'Mastodon @jo@pages.example', exact: true }).check()
        await browser.tab
          .getByRole('textbox', { name: 'Copy', exact: true })
          .fill('Low tide at the harbour this morning.')
        await browser.tab.getByLabel(/^Content warning/).fill('Seasick views')
        await browser.tab.getByLabel('Visibility').selectOption('unlisted')
        const warning = browser.tab.locator('article.pv-mastodon .pv-cw-text')
        await expect.poll(() => warning.textContent(), slow).toBe('Seasick views')
        // Behind the warning until opened, as Mastodon shows it.
        expect(await browser.tab.locator('article.pv-mastodon .pv-body .copy').isVisible()).toBe(false)
        await browser.tab.locator('article.pv-mastodon summary').click()
        expect(await browser.tab.locator('article.pv-mastodon .pv-body .copy').isVisible()).toBe(true)
        expect(await lookAt(browser.tab, 'compose-mastodon')).toEqual([])

        const { body } = await h.call('create_post', {
          content: 'Low tide at the harbour this morning.',
          targetAccounts: [{ platform: 'mastodon', profileId }],
          mastodon: { contentWarning: 'Seasick views', visibility: 'unlisted' },
          publishImmediately: true,
        })
        const url = body.posts[0].targets[0].url as string
        await browser.tab.goto(url)
        expect(await browser.tab.locator('summary .cw-text').textContent()).toBe('Seasick views')
        expect(await browser.tab.locator('.post .text').isVisible()).toBe(false)
        expect(await lookAt(browser.tab, 'sandbox-mastodon-post')).toEqual([])
        await browser.tab.locator('summary').first().click()
        expect(await browser.tab.locator('.post .text').isVisible()).toBe(true)
        expect(browser.errors).toEqual([])
      } finally {
        await browser.close()
      }
    },
    120_000,
  )
})
