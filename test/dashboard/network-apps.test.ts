import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { accessibilityProblems, lookAt } from '../helpers/look-at.js'
import { addMember } from '../helpers/team.js'

const SECRET = 'x-app-secret-never-shown-0123456789'

/** The network apps page outside sandbox mode: who may use it, what it shows, and what it changes. */
describe('the network apps page', () => {
  let h: Harness
  let admin: Browser
  let editor: Browser
  let otherOwner: Browser

  beforeAll(async () => {
    h = await startHarness({
      prePickPort: true,
      env: { HERALD_LINKEDIN_CLIENT_ID: 'env-li', HERALD_LINKEDIN_CLIENT_SECRET: 'env-s' },
    })
    admin = createBrowser(h.baseUrl)
    await admin.login(h.email, h.password)
    const member = await addMember(h, 'editor')
    editor = createBrowser(h.baseUrl)
    await editor.login(member.email, member.password)
    // The owner of a workspace of their own is still not the instance's administrator.
    const email = `owner-elsewhere-${Date.now()}@example.com`
    await h.app.accounts.createUser({ email, password: 'another long password' })
    await h.app.accounts.createWorkspace({ name: 'Elsewhere', ownerEmail: email })
    otherOwner = createBrowser(h.baseUrl)
    await otherOwner.login(email, 'another long password')
  })
  afterAll(() => h.close())

  const savedApps = () => h.app.store.db.selectFrom('network_apps').selectAll().execute()

  it('shows every network, its state, the portal, the permissions and the exact callback URL', async () => {
    const shown = await admin.get('/settings/networks')
    expect(shown.status).toBe(200)
    for (const network of ['twitter', 'youtube', 'facebook', 'instagram', 'threads', 'linkedin', 'bluesky'])
      expect(shown.text).toContain(`id="${network}"`)
    expect(shown.text).toContain('Not set up: needs an app')
    expect(shown.text).toContain('Ready: set by the environment')
    expect(shown.text).toContain(
      'HERALD_LINKEDIN_CLIENT_ID is set in the environment, and the environment wins',
    )
    expect(shown.text).toContain('Ready: no app needed')
    expect(shown.text).toContain('https://developer.x.com/en/portal/dashboard')
    expect(shown.text).toContain(`value="${h.baseUrl}/connect/twitter/callback"`)
    expect(shown.text).toContain('<code>media.write</code>')
    expect(shown.text).toContain('<code>offline.access</code>')
    // http on 127.0.0.1: the networks and hosted assistants will not take it.
    expect(shown.text).toContain('which only this machine or its network can reach')
    expect(shown.text).toMatch(/href="\/settings\/networks"[^>]*>(<span[^>]*>.*?<\/span>)?Network apps<\/a>/)
  })

  it('is refused to a workspace editor and to another workspace’s owner, page and forms alike', async () => {
    for (const person of [editor, otherOwner]) {
      const page = await person.get('/settings/networks')
      expect(page.status).toBe(403)
      const channels = await person.get('/channels')
      expect(channels.text).not.toContain('/settings/networks')
      for (const action of ['', '/check', '/remove']) {
        const refused = await person.post(`/settings/networks/twitter${action}`, {
          csrf: person.csrf(channels),
          clientId: 'sneaky',
          clientSecret: 'sneaky-secret',
        })
        expect(refused.status).toBe(403)
      }
    }
    expect(await savedApps()).toEqual([])
  })

  it('refuses a form without its CSRF token and changes nothing', async () => {
    const refused = await admin.post('/settings/networks/twitter', {
      clientId: 'x-app',
      clientSecret: SECRET,
    })
    expect(refused.status).toBe(403)
    expect(await savedApps()).toEqual([])
  })

  it('says “not set up” on Channels and the connect page, with the way forward for each person', async () => {
    const forAdmin = await admin.get('/channels')
    expect(forAdmin.text).toMatch(/>X<\/span><span class="tile-line"><strong>Not set up<\/strong>/)
    expect(forAdmin.text).toContain('href="/settings/networks#twitter"')
    const forEditor = await editor.get('/channels')
    expect(forEditor.text).toContain('Ask the person who runs this Herald to set it up.')
    expect(forEditor.text).not.toContain('/settings/networks')
    for (const page of [forAdmin, forEditor]) expect(page.text).not.toMatch(/HERALD_[A-Z_]+/)
    const connect = await editor.get('/connect/twitter')
    expect(connect.status).toBe(404)
    expect(connect.text).toContain('X is not set up')
    expect(connect.text).not.toContain('Continue to')
    const adminConnect = await admin.get('/connect/twitter')
    expect(adminConnect.text).toContain('href="/settings/networks#twitter"')
    expect(adminConnect.text).not.toContain('Continue to')
  })

  it('refuses a bad client ID with a 400 that says why, and stores nothing', async () => {
    const page = await admin.get('/settings/networks')
    const refused = await admin.post('/settings/networks/twitter', {
      csrf: admin.csrf(page),
      clientId: 'has spaces in it',
      clientSecret: SECRET,
    })
    expect(refused.status).toBe(400)
    expect(refused.text).toContain('without spaces')
    expect(await savedApps()).toEqual([])
  })

  it('saves the X app, shows the secret only as set, and X connects through it', async () => {
    const page = await admin.get('/settings/networks')
    const saved = await admin.post('/settings/networks/twitter', {
      csrf: admin.csrf(page),
      clientId: 'acme-x-app',
      clientSecret: SECRET,
    })
    expect(saved.status).toBe(200)
    expect(saved.text).toContain('The X app is saved.')
    expect(saved.text).toContain('Set. Leave empty to keep it')
    expect(saved.text).toContain('Ready: set on this page')
    const [row] = await savedApps()
    expect(row).toMatchObject({ id: 'twitter', client_id: 'acme-x-app', updated_by: h.userId })
    expect(row!.client_secret).not.toContain(SECRET)

    const channels = await editor.get('/channels')
    expect(channels.text).toMatch(/<a class="tile" href="\/connect\/twitter">.*Connect <\/span>X<\/span>/)
    const started = await editor.connect('/connect/twitter')
    expect(started.status).toBe(303)
    const authorize = new URL(started.location!)
    expect(authorize.origin + authorize.pathname).toBe('https://x.com/i/oauth2/authorize')
    expect(authorize.searchParams.get('client_id')).toBe('acme-x-app')
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${h.baseUrl}/connect/twitter/callback`)

    // Saving again with the secret left empty keeps it.
    const again = await admin.post('/settings/networks/twitter', {
      csrf: admin.csrf(saved),
      clientId: 'acme-x-app',
      clientSecret: '',
    })
    expect(again.status).toBe(200)
    expect(h.app.networkApps.saved().twitter?.clientSecret).toBe(SECRET)
  })

  it('removes the saved app, after which X is not set up again', async () => {
    const page = await admin.get('/settings/networks')
    const removed = await admin.post('/settings/networks/twitter/remove', { csrf: admin.csrf(page) })
    expect(removed.status).toBe(200)
    expect(removed.text).toContain('The saved X app is removed.')
    expect(await savedApps()).toEqual([])
    expect((await editor.get('/connect/twitter')).status).toBe(404)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'is clean for axe-core in Chromium, photographed at desktop and phone widths',
    async () => {
      await h.app.networkApps.save('twitter', { clientId: 'acme-x-app', clientSecret: SECRET }, h.userId)
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1366, height: 900 },
        // axe-core is evaluated into the page; the dashboard's CSP allows no script from anywhere else.
        bypassCSP: true,
      })
      try {
        const tab = await context.newPage()
        await tab.goto(`${h.baseUrl}/login?next=%2Fsettings%2Fnetworks`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/settings\/networks$/)
        expect(await lookAt(tab, 'network-apps')).toEqual([])
        expect(await tab.content()).not.toContain(SECRET)
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )

  it('never sends the secret back, nor logs it', () => {
    for (const browser of [admin, editor, otherOwner])
      for (const body of browser.bodies) expect(body).not.toContain(SECRET)
    expect(h.logs.join('')).not.toContain(SECRET)
  })
})

/**
 * In Chromium against a sandbox Herald: the administrator enters an X app on the network apps page, checks
 * it, and an X profile then connects through that app at the X simulator (which knows the app, and refuses
 * its token exchange with any other secret). The page is photographed at desktop and phone widths.
 */
describe.runIf(existsSync('/usr/bin/chromium'))('setting up X in Chromium', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ sandbox: true })
    h.sandboxes!.twitter.registerClient({ clientId: 'acme-x-app', clientSecret: SECRET })
  })
  afterAll(() => h.close())

  it('enters the X app, checks it, and connects an X profile through it', async () => {
    const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
    const context = await chromium.launchPersistentContext(profile, {
      ...CHROMIUM,
      viewport: { width: 1366, height: 900 },
      // axe-core is evaluated into the page; the dashboard's CSP allows no script from anywhere else.
      bypassCSP: true,
    })
    const pages: string[] = []
    try {
      const tab = await context.newPage()
      const errors: string[] = []
      tab.on('pageerror', (error) => errors.push(error.message))
      await tab.goto(`${h.baseUrl}/login?next=%2Fsettings%2Fnetworks`)
      await tab.getByLabel('Email').fill(h.email)
      await tab.getByLabel('Password').fill(h.password)
      await tab.getByRole('button', { name: /sign in/i }).click()
      await tab.waitForURL(/\/settings\/networks$/)
      expect(await accessibilityProblems(tab)).toEqual([])

      const x = tab.locator('section#twitter')
      await x.getByLabel('OAuth 2.0 Client ID').fill('acme-x-app')
      await x.getByLabel(/Client Secret/).fill(SECRET)
      await x.getByRole('button', { name: 'Save the X app' }).click()
      await expect.poll(() => x.getByRole('status').textContent()).toContain('The X app is saved.')
      await x.getByRole('button', { name: 'Check the app with X' }).click()
      await expect.poll(() => x.getByRole('status').textContent()).toContain('X accepted this app')
      pages.push(await tab.content())
      expect(await accessibilityProblems(tab)).toEqual([])

      await tab.getByRole('link', { name: 'Channels' }).click()
      await tab.getByRole('link', { name: 'Connect X' }).click()
      await tab.getByRole('button', { name: 'Continue to X' }).click()
      await tab.waitForURL(/\/sandbox\/twitter\/i\/oauth2\/authorize/)
      expect(new URL(tab.url()).searchParams.get('client_id')).toBe('acme-x-app')
      await tab.getByLabel('Username').fill('acme_x')
      await tab.getByRole('button', { name: 'Authorize app' }).click()
      await tab.waitForURL(/\/channels\?connected=/)
      expect(await tab.getByText('Connected @acme_x on X.').count()).toBe(1)
      pages.push(await tab.content())
      expect(errors).toEqual([])
    } finally {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    }
    // What X holds: tokens issued to the administrator's app, for the profile that connected.
    const tokens = (await (await fetch(`${h.baseUrl}/sandbox/twitter/_sandbox/tokens`)).json()) as {
      clientId: string
      username: string
    }[]
    expect(
      tokens.filter((t) => t.clientId === 'acme-x-app' && t.username === 'acme_x').length,
    ).toBeGreaterThan(0)
    expect(tokens.filter((t) => t.clientId !== 'acme-x-app')).toEqual([])
    for (const html of pages) expect(html).not.toContain(SECRET)
  }, 90_000)
})
