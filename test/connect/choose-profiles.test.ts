import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { addMember } from '../helpers/team.js'

/**
 * The choose-profiles page (DESIGN.md "Networks"), through /connect/facebook against the Meta simulator:
 * one Facebook grant reaches a Page and its Instagram account; the person ticks which to connect.
 */
describe('the choose-profiles page', () => {
  let h: Harness
  let browser: Browser

  beforeAll(async () => {
    h = await startHarness({ sandbox: true })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  /** Signs in to the simulator's Facebook dialog as `username`, granting every scope; returns the choose page. */
  const grant = async (username: string, b: Browser = browser) => {
    const start = await b.connect('/connect/facebook')
    expect(start.status).toBe(303)
    const authorize = new URL(start.location!)
    const form: Record<string, string[]> = { username: [username], decision: ['authorize'] }
    for (const [key, value] of authorize.searchParams) form[key] = [...(form[key] ?? []), value]
    form.granted_scope = (authorize.searchParams.get('scope') ?? '').split(/[\s,]+/).filter(Boolean)
    const consent = await b.post(`${authorize.origin}${authorize.pathname}`, form)
    expect(consent.status).toBe(302)
    const callback = await b.get(consent.location!)
    expect(callback.status, callback.text).toBe(303)
    expect(callback.location).toMatch(/\/connect\/facebook\/choose\/[0-9a-f]{24}$/)
    const page = await b.get(callback.location!)
    return page
  }
  const boxes = (html: string) =>
    [
      ...html.matchAll(/<label><input type="checkbox" name="profile" value="(\d+)"\s*\/?> ([^<]+)<\/label>/g),
    ].map((m) => ({ value: m[1]!, text: m[2]! }))

  it('lists every profile of the grant and connects exactly the ticked ones', async () => {
    const choose = await grant('Harbour Cafe')
    expect(choose.status).toBe(200)
    const listed = boxes(choose.text)
    expect(listed.length).toBeGreaterThanOrEqual(2)
    const page = listed.find((b) => b.text.startsWith('Harbour Cafe') && /Facebook/.test(b.text))
    const instagram = listed.find((b) => /Instagram/.test(b.text))
    expect(page && instagram).toBeTruthy()
    const action = /<form method="post" action="([^"]*\/choose\/[^"]+)"/.exec(choose.text)![1]!
    const done = await browser.post(new URL(action, h.baseUrl).toString(), {
      csrf: [browser.csrf(choose)],
      profile: [page!.value, instagram!.value],
    })
    expect(done.status).toBe(303)
    expect(done.location).toMatch(/\/channels\?connected=/)
    const rows = await h.app.store.db
      .selectFrom('connections')
      .select(['platform', 'is_organization', 'credentials'])
      .where('workspace_id', '=', h.workspaceId)
      .execute()
    expect(rows.map((r) => r.platform).sort()).toEqual(['facebook', 'instagram'])
    expect(rows.find((r) => r.platform === 'facebook')?.is_organization).toBe(1)
    // The grant is single-use: the same choice cannot be submitted again.
    const again = await browser.post(new URL(action, h.baseUrl).toString(), {
      csrf: [browser.csrf(choose)],
      profile: [page!.value],
    })
    expect(again.status).toBe(404)
    // No page showed a token.
    for (const row of rows) expect(choose.text).not.toContain(row.credentials.slice(0, 16))
  })

  it('refuses a submission without the CSRF token, and one that ticks nothing', async () => {
    const choose = await grant('Corner Books')
    const action = /<form method="post" action="([^"]*\/choose\/[^"]+)"/.exec(choose.text)![1]!
    const forged = await browser.post(new URL(action, h.baseUrl).toString(), { profile: ['0'] })
    expect(forged.status).toBe(403)
    const empty = await browser.post(new URL(action, h.baseUrl).toString(), { csrf: [browser.csrf(choose)] })
    expect(empty.status).toBe(400)
    expect(empty.text).toContain('Tick at least one profile')
  })

  it('re-checks membership as the profiles are chosen: an editor removed meanwhile connects nothing', async () => {
    const editor = await addMember(h, 'leaving')
    const other = createBrowser(h.baseUrl)
    await other.login(editor.email, editor.password)
    const choose = await grant('Leaving Shop', other)
    expect(choose.status).toBe(200)
    await h.app.store.db.deleteFrom('memberships').where('user_id', '=', editor.userId).execute()
    await h.app.accounts.createWorkspace({ name: 'Elsewhere', ownerEmail: editor.email })
    const action = /<form method="post" action="([^"]*\/choose\/[^"]+)"/.exec(choose.text)![1]!
    const done = await other.post(new URL(action, h.baseUrl).toString(), {
      csrf: [other.csrf(choose)],
      profile: ['0'],
    })
    expect(done.status).toBe(404)
    const rows = await h.app.store.db
      .selectFrom('connections')
      .select('id')
      .where('name', 'like', 'Leaving Shop%')
      .execute()
    expect(rows).toHaveLength(0)
  })

  it('is what `sandbox connect --network facebook` ticks for the Page named after the user', async () => {
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'facebook',
      username: 'Tidal Yoga',
    })
    expect(connected).toMatchObject({ platform: 'facebook', name: 'Tidal Yoga', isOrganization: true })
  })
})
