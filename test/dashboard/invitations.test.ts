import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../helpers/backends.js'
import { type Browser, createBrowser, formFields, type Page } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { openSignedIn } from '../helpers/signed-in-tab.js'

/**
 * An owner cannot pull another Herald user into their workspace, nor have a
 * link connect the victim's network account there; and inviting tells nothing about which e-mails exist.
 * The harness owner plays the attacker (workspace Acme); the victim owns their own workspace.
 */
describe.each(backends.map((b) => [b.name, b] as const))('workspace invitations on %s', (_name, backend) => {
  let h: Harness
  let attacker: Browser
  let victim: Browser
  const victimEmail = `victim-${Date.now()}@example.com`
  const victimPassword = 'victim password 12'
  let victimId: string
  let victimWorkspace: string

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, backend })
    const created = await h.app.accounts.createUser({ email: victimEmail, password: victimPassword })
    victimId = created.userId
    victimWorkspace = (await h.app.accounts.createWorkspace({ name: 'Victim Co', ownerEmail: victimEmail }))
      .workspaceId
    attacker = createBrowser(h.baseUrl)
    await attacker.login(h.email, h.password)
    victim = createBrowser(h.baseUrl)
    await victim.login(victimEmail, victimPassword)
  })
  afterAll(() => h.close())

  const membership = (workspaceId: string) =>
    h.app.store.db
      .selectFrom('memberships')
      .select('role')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', victimId)
      .executeTakeFirst()
  const states = async () => (await h.app.store.db.selectFrom('oauth_states').select('id').execute()).length
  const sessionWorkspace = async () =>
    (
      await h.app.store.db
        .selectFrom('sessions')
        .select('workspace_id')
        .where('user_id', '=', victimId)
        .executeTakeFirstOrThrow()
    ).workspace_id
  const invite = async (email: string) => {
    const shown = await attacker.get('/workspace')
    return attacker.post('/workspace/members', { csrf: attacker.csrf(shown), email })
  }

  it('answers an invitation the same whether or not the e-mail has a Herald account, adding no one', async () => {
    const known = await invite(victimEmail)
    const unknown = await invite('nobody-here@example.com')
    expect(known.status).toBe(200)
    expect(unknown.status).toBe(known.status)
    const notice = (page: Page, email: string) =>
      /<div class="notice" role="status"><p>([^<]*)<\/p>/.exec(page.text)![1]!.replace(email, 'E')
    expect(notice(unknown, 'nobody-here@example.com')).toBe(notice(known, victimEmail))
    expect(known.text).not.toContain('No Herald user')
    expect(await membership(h.workspaceId)).toBeUndefined()
  })

  it('does not let a link switch the victim into the workspace or start a connect there', async () => {
    const before = await states()
    const lured = await victim.get(`/connect/twitter?workspaceId=${h.workspaceId}`)
    expect(lured.status).toBe(404)
    expect(await sessionWorkspace()).toBe(victimWorkspace)
    expect(await states()).toBe(before)
  })

  it('shows the victim the invitation on every page, and joins only when they accept', async () => {
    const posts = await victim.get('/posts')
    expect(posts.text).toContain('<span class="name">Victim Co</span>')
    expect(posts.text).toContain('You have 1 invitation to join a workspace')
    const list = await victim.get('/invitations')
    expect(list.text).toContain('<strong>Acme</strong> invites you as editor')
    if (existsSync('/usr/bin/chromium')) {
      const browser = await openSignedIn(
        h.baseUrl,
        { email: victimEmail, password: victimPassword },
        '/invitations',
      )
      try {
        expect(await lookAt(browser.tab, 'invitations')).toEqual([])
      } finally {
        await browser.close()
      }
    }
    const forged = await victim.post(list.text.match(/action="(\/invitations\/[0-9a-f]+\/accept)"/)![1]!, {})
    expect(forged.status).toBe(403)
    expect(await membership(h.workspaceId)).toBeUndefined()
    const start = list.text.indexOf('<form method="post" action="/invitations/')
    const accept = formFields(list.text.slice(start))
    const joined = await victim.post(accept.action, Object.fromEntries(accept.fields))
    expect(joined.status).toBe(303)
    expect(await membership(h.workspaceId)).toEqual({ role: 'editor' })
  })

  it('as a member, a link still only shows a page naming the workspace; only its CSRF form starts', async () => {
    const mine = await victim.get('/channels')
    await victim.post('/channels/workspace', { csrf: victim.csrf(mine), workspaceId: victimWorkspace })
    const before = await states()
    const page = await victim.get(`/connect/twitter?workspaceId=${h.workspaceId}`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('Connect X to Acme')
    expect(page.text).toContain('<span class="name">Victim Co</span>')
    expect(await sessionWorkspace()).toBe(victimWorkspace)
    const forged = await victim.post('/connect/twitter', { workspaceId: h.workspaceId })
    expect(forged.status).toBe(403)
    expect(await states()).toBe(before)
    expect(await sessionWorkspace()).toBe(victimWorkspace)
    const compose = await victim.get('/compose')
    expect(compose.text).toContain('<span class="name">Victim Co</span>')
  })

  it('re-checks membership when the connect completes: removed meanwhile, nothing is connected', async () => {
    const start = await victim.connect(`/connect/twitter?workspaceId=${h.workspaceId}`)
    expect(start.status).toBe(303)
    const authorize = new URL(start.location!)
    const consentPage = await victim.get(start.location!)
    const consent = formFields(consentPage.text)
    const form: Record<string, string[]> = {}
    for (const [name, value] of consent.fields) form[name] = [...(form[name] ?? []), value]
    form.username = ['victim_x']
    const back = await victim.post(new URL(consent.action, authorize).toString(), form)
    expect(back.status).toBe(302)
    // The owner removes the victim before the network's answer arrives.
    const shown = await attacker.get('/workspace')
    await attacker.post('/workspace/members/remove', { csrf: attacker.csrf(shown), userId: victimId })
    const done = await victim.get(back.location!)
    expect(done.status).toBe(403)
    const rows = await h.app.store.db
      .selectFrom('connections')
      .select('id')
      .where('workspace_id', '=', h.workspaceId)
      .execute()
    expect(rows).toHaveLength(0)
  })
})
