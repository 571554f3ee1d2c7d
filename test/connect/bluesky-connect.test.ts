import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { startTestPds, type TestPds } from '../helpers/bluesky-pds.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/** Bluesky's app-password connect form against a real PDS (no OAuth; the simulator is in connect-flow.test.ts). */
describe('connecting Bluesky with an app password', () => {
  let pds: TestPds
  let h: Harness
  let browser: Browser
  let appPassword = ''
  const accountPassword = 'carol-account-password'

  beforeAll(async () => {
    pds = await startTestPds()
    await pds.createAccount('carol.test', accountPassword)
    appPassword = await pds.createAppPassword('carol.test', accountPassword)
    // Sandbox mode with a PDS configured: Bluesky connects to the real PDS named by the config.
    h = await startHarness({
      sandbox: true,
      env: {
        HERALD_BLUESKY_SERVICE_URL: pds.url,
        HERALD_BLUESKY_PLC_URL: pds.plcUrl,
        HERALD_BLUESKY_ALLOW_LOCAL_PDS: '1',
      },
    })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(async () => {
    await h?.close()
    await pds?.close()
  })

  it('shows a form with a CSRF token and connects the account without keeping the app password', async () => {
    const form = await browser.get('/connect/bluesky')
    expect(form.status).toBe(200)
    expect(form.text).toContain('name="appPassword"')
    const answer = await browser.post('/connect/bluesky', {
      csrf: browser.csrf(form),
      identifier: '@carol.test',
      appPassword,
    })
    expect(answer.status, answer.text).toBe(303)
    const channels = await browser.get(answer.location!)
    expect(channels.text).toContain('Connected @carol.test on Bluesky.')

    const row = await h.app.store.db.selectFrom('connections').selectAll().executeTakeFirstOrThrow()
    expect(row).toMatchObject({ platform: 'bluesky', username: 'carol.test', status: 'active' })
    expect(row.profile_id).toMatch(/^did:plc:/)
    expect(row.credentials.startsWith('v2.')).toBe(true)
    const credentials = h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
    expect(credentials.extra).toMatchObject({ pdsUrl: pds.url, handle: 'carol.test' })
    for (const secret of [appPassword, accountPassword, credentials.accessToken, credentials.refreshToken!]) {
      expect(
        JSON.stringify(await h.app.store.db.selectFrom('connections').selectAll().execute()),
      ).not.toContain(secret)
      for (const body of browser.bodies) expect(body.includes(secret)).toBe(false)
      for (const line of h.logs) expect(line.includes(secret)).toBe(false)
    }
    // Bluesky's refresh JWT carries its expiry; a fresh one is far from it, so the connection is healthy.
    expect((await h.call('get_account_health')).body.healthy).toBe(true)
  })

  it('refuses a wrong app password with a page that says so', async () => {
    const form = await browser.get('/connect/bluesky')
    const answer = await browser.post('/connect/bluesky', {
      csrf: browser.csrf(form),
      identifier: 'carol.test',
      appPassword: 'aaaa-bbbb-cccc-dddd',
    })
    expect(answer.status).toBe(400)
    expect(answer.text).toContain('Bluesky sign-in refused')
  })
})
