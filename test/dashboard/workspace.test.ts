import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser, formFields } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { openSignedIn } from '../helpers/signed-in-tab.js'

/** The Workspace page: an owner manages people and sees credits; an editor does neither. */
describe('the Workspace page', () => {
  let h: Harness
  let owner: Browser
  const editorEmail = `editor-${Date.now()}@example.com`

  beforeAll(async () => {
    h = await startHarness({ credits: 321 })
    await h.app.accounts.createUser({ email: editorEmail, password: 'editor password 1', name: 'Eddie' })
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
  })
  afterAll(() => h.close())

  it('shows the owner the balance and the ledger, and invites a Herald user, who joins as an editor by accepting', async () => {
    const shown = await owner.get('/workspace')
    expect(shown.status).toBe(200)
    expect(shown.text).toContain('Balance: <strong>321</strong>')
    const invited = await owner.post(`${h.baseUrl}/workspace/members`, {
      csrf: [owner.csrf(shown)],
      email: [editorEmail],
    })
    expect(invited.status).toBe(200)
    expect(invited.text).toContain(`Invited ${editorEmail}.`)
    expect(invited.text).not.toContain('Editor</span>')
    expect(invited.text).toMatch(
      new RegExp(`${editorEmail}</td><td><span class="chip warn">.*Invited</span>`),
    )
    // Eddie has no workspace yet: signing in shows the invitation, and accepting joins.
    const editor = createBrowser(h.baseUrl)
    const form = await editor.get('/login')
    const answer = await editor.post('/login', {
      csrf: editor.csrf(form),
      email: editorEmail,
      password: 'editor password 1',
      next: '/posts',
    })
    expect(answer.status).toBe(200)
    expect(answer.text).toContain('<strong>Acme</strong> invites you as editor')
    const accept = formFields(answer.text.slice(answer.text.indexOf('<form')))
    const joined = await editor.post(accept.action, Object.fromEntries(accept.fields))
    expect(joined.status).toBe(303)
    expect(joined.location).toBe(`${h.baseUrl}/workspace`)
    expect((await owner.get('/workspace')).text).toContain('Editor</span>')
  })

  it('shows the ledger in words, each post charge linked to the posts it paid for, with no reason code or id list', async () => {
    await connectProfile(h, 'twitter', 'tw-ledger', 'acme')
    await connectProfile(h, 'linkedin', 'li-ledger', 'acme-page')
    await connectProfile(h, 'bluesky', 'bs-ledger', 'acme.bsky.social')
    const created = await h.call('create_post', {
      content: 'Spring sale starts Monday\nEverything half price',
      targetAccounts: [
        { platform: 'twitter', profileId: 'tw-ledger' },
        { platform: 'linkedin', profileId: 'li-ledger' },
        { platform: 'bluesky', profileId: 'bs-ledger' },
      ],
      scheduleDate: '2031-05-01',
      scheduleTime: '09:00',
      timezone: 'Europe/Paris',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    await h.app.accounts.addCredits({ workspaceId: h.workspaceId, amount: 500 })
    const shown = await owner.get('/workspace')
    const ledger = shown.text.slice(shown.text.indexOf('<table class="ledger">'))
    expect(ledger).toContain('Scheduled a post to 3 profiles')
    expect(ledger).toContain('“Spring sale starts Monday”')
    const ids = (created.body.posts as Array<{ id: string; targets: Array<{ platform: string }> }>).map(
      (p) => [p.targets[0]!.platform, p.id],
    )
    expect(ids).toHaveLength(3)
    for (const [platform, id] of ids) {
      const label = {
        twitter: 'X @acme',
        linkedin: 'LinkedIn @acme-page',
        bluesky: 'Bluesky @acme.bsky.social',
      }[platform!]
      expect(ledger).toContain(`<a href="/posts/${id}">${label}</a>`)
    }
    expect(ledger).toContain('Added 500 credits')
    expect(ledger).toContain('Started with 321 credits')
    for (const code of ['create_post', 'top_up', 'bootstrap', ','.concat(ids[1]![1]!)])
      expect(ledger).not.toContain(code)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'fits a phone and passes the accessibility checks in both themes',
    async () => {
      const browser = await openSignedIn(h.baseUrl, h, '/workspace')
      try {
        expect(await lookAt(browser.tab, 'workspace')).toEqual([])
        await browser.tab.goto(`${h.baseUrl}/workspaces`)
        expect(await lookAt(browser.tab, 'workspaces')).toEqual([])
        await browser.tab.goto(`${h.baseUrl}/workspace/delete`)
        expect(await lookAt(browser.tab, 'workspace-delete')).toEqual([])
      } finally {
        await browser.close()
      }
    },
    60_000,
  )

  it('lets an editor see the people and the balance, as the tools tell them, but not manage people or see the ledger', async () => {
    const editor = createBrowser(h.baseUrl)
    await editor.login(editorEmail, 'editor password 1')
    const shown = await editor.get('/workspace')
    expect(shown.status).toBe(200)
    expect(shown.text).toContain(h.email)
    // One rule for pages and tools: the page shows an editor the balance the tools give them.
    const { apiKey } = await h.app.accounts.createKey({ email: editorEmail, workspaceId: h.workspaceId })
    const info = await h.call('get_user_info', {}, { key: apiKey })
    expect(info.body.workspace.role).toBe('editor')
    expect(shown.text).toContain(`Balance: <strong>${info.body.credits.balance}</strong>`)
    expect(shown.text).not.toContain('movements, newest first')
    expect(shown.text).not.toContain('action="/workspace/members"')
    const refused = await editor.post(`${h.baseUrl}/workspace/members`, {
      csrf: [editor.csrf(shown)],
      email: ['someone@example.com'],
    })
    expect(refused.status).toBe(403)
    const owners = await h.app.store.db
      .selectFrom('memberships')
      .select('user_id')
      .where('role', '=', 'owner')
      .execute()
    const removeOwner = await editor.post(`${h.baseUrl}/workspace/members/remove`, {
      csrf: [editor.csrf(shown)],
      userId: [owners[0]!.user_id],
    })
    expect(removeOwner.status).toBe(403)
  })

  it('lets the owner remove an editor, never an owner, and refuses a form without its CSRF token', async () => {
    const shown = await owner.get('/workspace')
    const editor = await h.app.store.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', editorEmail)
      .executeTakeFirstOrThrow()
    const forged = await owner.post(`${h.baseUrl}/workspace/members/remove`, { userId: [editor.id] })
    expect(forged.status).toBe(403)
    const self = await h.app.store.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', h.email)
      .executeTakeFirstOrThrow()
    const notOwner = await owner.post(`${h.baseUrl}/workspace/members/remove`, {
      csrf: [owner.csrf(shown)],
      userId: [self.id],
    })
    expect(notOwner.status).toBe(404)
    const removed = await owner.post(`${h.baseUrl}/workspace/members/remove`, {
      csrf: [owner.csrf(shown)],
      userId: [editor.id],
    })
    expect(removed.status).toBe(200)
    expect(removed.text).not.toContain(editorEmail)
  })

  it("gives the instance's administrator a top-up of the workspace's credits, checked, and nobody else", async () => {
    const shown = await owner.get('/workspace')
    expect(shown.text).toContain('action="/workspace/credits"')
    const before = (await h.call('get_user_info', {})).body.credits.balance as number
    for (const amount of ['0', '-5', '2.5', 'lots', '1000001']) {
      const refused = await owner.post(`${h.baseUrl}/workspace/credits`, {
        csrf: [owner.csrf(shown)],
        amount: [amount],
      })
      expect(refused.status, amount).toBe(400)
      expect(refused.text).toContain('Type a whole number of credits from 1 to 1,000,000.')
    }
    const unsigned = await owner.post(`${h.baseUrl}/workspace/credits`, { amount: ['50'] })
    expect(unsigned.status).toBe(403)
    const added = await owner.post(`${h.baseUrl}/workspace/credits`, {
      csrf: [owner.csrf(shown)],
      amount: ['50'],
    })
    expect(added.status).toBe(200)
    expect(added.text).toContain(`Added 50 credits: the balance is now ${before + 50}.`)
    expect((await h.call('get_user_info', {})).body.credits.balance).toBe(before + 50)

    // An owner who is not the administrator: no form, and the route refuses them, changing nothing.
    const coOwner = `co-owner-${Date.now()}@example.com`
    await h.app.accounts.createUser({ email: coOwner, password: 'co-owner password 1', name: 'Cleo' })
    await h.app.accounts.addMember({ workspaceId: h.workspaceId, email: coOwner, role: 'owner' })
    const editor = createBrowser(h.baseUrl)
    await editor.login(coOwner, 'co-owner password 1')
    const page = await editor.get('/workspace')
    expect(page.text).not.toContain('action="/workspace/credits"')
    const refused = await editor.post(`${h.baseUrl}/workspace/credits`, {
      csrf: [editor.csrf(page)],
      amount: ['50'],
    })
    expect(refused.status).toBe(403)
    expect((await h.call('get_user_info', {})).body.credits.balance).toBe(before + 50)
  })
})

describe('switching workspaces', () => {
  let h: Harness

  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h.close())

  it('lists the person’s workspaces from every page and switches to another, whose posts are then shown', async () => {
    const other = await h.app.accounts.bootstrap({
      email: `second-${Date.now()}@example.com`,
      password: 'second password 1',
      workspace: 'Second shop',
      credits: 5,
    })
    const { addMember } = await import('../../src/platform/db/statements/accounts.js')
    await addMember(h.app.store.db, other.workspaceId, h.userId, 'editor', Date.now())
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const posts = await browser.get('/posts')
    expect(posts.text).toContain('href="/workspaces"')
    const list = await browser.get('/workspaces')
    expect(list.text).toContain('Acme')
    expect(list.text).toContain('Switch to Second shop')
    const switched = await browser.post(`${h.baseUrl}/channels/workspace`, {
      csrf: [browser.csrf(list)],
      workspaceId: [other.workspaceId],
      next: ['/posts'],
    })
    expect(switched.status).toBe(303)
    expect(switched.location).toMatch(/\/posts$/)
    expect((await browser.get('/posts')).text).toContain('Posts of Second shop')
  })
})
