import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { BUSINESS_SCOPE } from '../../src/adapters/googlebusiness/index.js'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { FakeClock } from '../../src/platform/clock.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const HOUR_MS = 60 * 60 * 1000

/**
 * Connecting Google Business Profile through /connect/googlebusiness against the simulator: Google's
 * consent page, the choose-profiles page listing each location of the business with its address, each
 * ticked one its own connection; a grant without the business scope, and a project Google has not granted
 * access to, refused in words; and the hour-long Google token refreshed before use, until the person
 * removes the app and the connection asks to be reconnected.
 */
describe('connecting Google Business Profile', () => {
  const clock = new FakeClock(Date.UTC(2026, 9, 1, 9))
  let h: Harness
  let browser: Browser
  const simulator = () => `${h.baseUrl}${sandboxPrefixes.googlebusiness}`

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, clock, credits: 100 })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    await fetch(`${simulator()}/_sandbox/businesses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Quay Bakery', email: 'quay@bakery.example' }),
    })
  }, 60_000)
  afterAll(() => h?.close())

  /** Consents as the Quay Bakery's owner, granting `scopes` (all asked for by default); the callback's answer. */
  const consent = async (scopes?: string[]) => {
    const start = await browser.connect('/connect/googlebusiness')
    expect(start.status).toBe(303)
    const authorize = new URL(start.location!)
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${simulator()}/o/oauth2/v2/auth`)
    expect(authorize.searchParams.get('scope')).toBe(BUSINESS_SCOPE)
    expect(authorize.searchParams.get('access_type')).toBe('offline')
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    const form: Record<string, string[]> = { account: ['quay@bakery.example'], decision: ['allow'] }
    for (const [key, value] of authorize.searchParams) form[key] = [value]
    form.granted = scopes ?? [BUSINESS_SCOPE]
    const consented = await browser.post(`${authorize.origin}${authorize.pathname}`, form)
    expect(consented.status).toBe(302)
    return browser.get(consented.location!)
  }

  it('lists each location of the business with its address, and connects the ticked ones', async () => {
    const callback = await consent()
    expect(callback.status, callback.text).toBe(303)
    const choose = await browser.get(callback.location!)
    const boxes = [
      ...choose.text.matchAll(/<input type="checkbox" name="profile" value="(\d+)"\s*\/?> ([^<]+)<\/label>/g),
    ]
    expect(boxes.map((b) => b[2])).toEqual([
      'Quay Bakery – High Street (@quay-bakery-high-street) · Google Business Profile location, 12 High Street, Leeds',
      'Quay Bakery – Station Road (@quay-bakery-station-road) · Google Business Profile location, 3 Station Road, Leeds',
    ])
    const action = /<form method="post" action="([^"]*\/choose\/[^"]+)"/.exec(choose.text)![1]!
    const done = await browser.post(new URL(action, h.baseUrl).toString(), {
      csrf: [browser.csrf(choose)],
      profile: boxes.map((b) => b[1]!),
    })
    expect(done.status).toBe(303)
    const rows = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('platform', '=', 'googlebusiness')
      .orderBy('name')
      .execute()
    expect(rows.map((r) => [r.name, r.is_organization, r.status])).toEqual([
      ['Quay Bakery – High Street', 1, 'active'],
      ['Quay Bakery – Station Road', 1, 'active'],
    ])
    for (const row of rows) {
      const credentials = h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
      expect(credentials.extra).toMatchObject({
        location: row.profile_id,
        account: expect.stringMatching(/^accounts\//),
      })
      expect(credentials.refreshToken).toBeTruthy()
      expect(credentials.expiresAt! - clock.now()).toBe(3599 * 1000)
      expect(row.credentials).not.toContain(credentials.accessToken)
    }
  })

  it('refuses a grant without the business scope, naming it', async () => {
    const callback = await consent([])
    expect(callback.status).toBe(400)
    expect(callback.text).toContain(`Missing: ${BUSINESS_SCOPE}`)
  })

  it('says in words that Google has not granted the project access, when every call meets a quota of 0', async () => {
    h.sandboxes!.googlebusiness.accessGranted = false
    try {
      const callback = await consent()
      expect(callback.status).toBe(400)
      expect(callback.text).toContain("Google has not granted this Herald's Google Cloud project access")
      expect(callback.text).toContain('Basic API Access, it refuses every call with a quota of 0')
    } finally {
      h.sandboxes!.googlebusiness.accessGranted = true
    }
  })

  it('refreshes the hour-long token before using it, and asks to be reconnected once the app is removed', async () => {
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('platform', '=', 'googlebusiness')
      .orderBy('name')
      .executeTakeFirstOrThrow()
    const read = () =>
      h.call('get_profile_analytics', {
        platform: 'googlebusiness',
        profileId: row.profile_id,
        refresh: true,
      })
    const tokenOf = async () => {
      const now = await h.app.store.db
        .selectFrom('connections')
        .selectAll()
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow()
      return h.app.vault.openJson<Credentials>(connectionCredentials(now.id), now.credentials)
    }
    const first = await tokenOf()
    clock.advance(2 * HOUR_MS)
    const later = await read()
    expect(later.status, JSON.stringify(later.body)).toBe(200)
    expect(later.body.analytics.summary.views).toBeGreaterThan(0)
    const second = await tokenOf()
    expect(second.accessToken).not.toBe(first.accessToken)
    expect(second.refreshToken).toBe(first.refreshToken)
    expect(second.extra).toEqual(first.extra)

    await fetch(`${simulator()}/_sandbox/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'quay@bakery.example' }),
    })
    clock.advance(2 * HOUR_MS)
    await read()
    const health = await h.call('get_account_health', {})
    expect(health.body.connections).toEqual(
      expect.arrayContaining([expect.objectContaining({ platform: 'googlebusiness', needsReconnect: true })]),
    )
  })
})
