import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { migrate } from '../../src/platform/db/db.js'
import { onboardingState } from '../../src/platform/db/statements/onboarding.js'
import { backends } from '../helpers/backends.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * The onboarding checklist on a new workspace's first page: each step ticked from the rows that make it
 * true (and unticked when they go), closed for good once the required steps are done or an owner hides
 * it, and, in sandbox mode, a button that connects a simulated profile on every network. Then the empty
 * states of Posts, Calendar, Analytics and Channels, and migration 026 on an instance from before it.
 */

const OWNER = { email: 'sam@example.com', password: 'a long password', workspace: 'Sam & Co' }

async function freshOwner(h: Harness) {
  const owner = await h.app.accounts.setUpOwner({ ...OWNER, name: 'Sam', access: { local: true } })
  const browser = createBrowser(h.baseUrl)
  await browser.login(OWNER.email, OWNER.password)
  return { ...owner, browser }
}

const checklistOf = (html: string) => /<section class="onboarding"[\s\S]*?<\/section>/.exec(html)?.[0] ?? ''
/** "Done" or "To do" for the step whose title contains `title`. */
const stepOf = (html: string, title: string) =>
  new RegExp(`${title}[^<]*</(?:a|span)> <strong class="state">([^<]+)</strong>`).exec(checklistOf(html))?.[1]

describe.each(backends)('the onboarding checklist on $name', (backend) => {
  let h: Harness
  let owner: Awaited<ReturnType<typeof freshOwner>>
  beforeAll(async () => {
    h = await startHarness({ backend, sandbox: true, fresh: true })
    owner = await freshOwner(h)
    await h.app.accounts.addCredits({ workspaceId: owner.workspaceId, amount: 100 })
  })
  afterAll(async () => {
    await h?.close()
  })
  const state = () => onboardingState(h.app.store.db, owner.workspaceId)

  it('ticks each step from what the workspace holds, and unticks it when that goes', async () => {
    expect(await state()).toEqual({
      channel: false,
      post: false,
      assistant: false,
      webhook: false,
      closedAt: null,
    })
    const posts = await owner.browser.get('/posts')
    expect(checklistOf(posts.text)).toContain('3 of 3 steps to go')
    for (const step of ['Connect a channel', 'Schedule your first post', 'Connect an AI assistant'])
      expect(stepOf(posts.text, step)).toBe('To do')

    // An assistant: an API key counts while it is not revoked.
    const key = await h.app.accounts.createKey({ email: OWNER.email, name: 'agent' })
    expect((await state()).assistant).toBe(true)
    expect(stepOf((await owner.browser.get('/posts')).text, 'Connect an AI assistant')).toBe('Done')
    await h.app.accounts.revokeKey({ id: key.id })
    expect((await state()).assistant).toBe(false)

    // A channel: connected through the connect flow, gone once disconnected.
    const x = await sandboxConnect(h.app, {
      workspaceId: owner.workspaceId,
      network: 'twitter',
      username: 'sam_x',
    })
    expect((await state()).channel).toBe(true)
    const channels = await owner.browser.get('/channels')
    await owner.browser.post('/channels/disconnect', {
      csrf: owner.browser.csrf(channels),
      connectionId: x.connectionId,
    })
    expect((await state()).channel).toBe(false)
    await sandboxConnect(h.app, { workspaceId: owner.workspaceId, network: 'twitter', username: 'sam_x' })

    // A post: a draft is not scheduled; a scheduled one is.
    const apiKey = (await h.app.accounts.createKey({ email: OWNER.email, name: 'rest' })).apiKey
    const created = await h.call(
      'create_post',
      {
        content: 'Opening soon',
        targetAccounts: [{ platform: 'twitter', profileId: x.profileId }],
        scheduleDate: '2031-05-01',
        scheduleTime: '09:00',
        timezone: 'UTC',
      },
      { key: apiKey },
    )
    expect(created.status).toBe(200)
    const postId = created.body.postIds[0] as string
    await h.call('update_post', { id: postId, status: 'draft' }, { key: apiKey })
    expect((await state()).post).toBe(false)
    // The optional step: a webhook endpoint.
    await createEndpoint(
      webhookDepsOf(h.app),
      { workspaceId: owner.workspaceId, role: 'owner' },
      { url: 'http://127.0.0.1:9/hook', description: '', eventTypes: [] },
    )
    expect((await state()).webhook).toBe(true)
    expect((await state()).closedAt).toBeNull()

    // Scheduling it again completes the required steps: the page says so once, and the checklist is gone.
    await h.call('update_post', { id: postId, status: 'scheduled' }, { key: apiKey })
    expect((await state()).post).toBe(true)
    const done = await owner.browser.get('/posts')
    expect(done.text).toContain('Sam &amp; Co is set up')
    expect(checklistOf(done.text)).toBe('')
    expect((await state()).closedAt).not.toBeNull()
    // Closed for good: a step undone later does not bring it back.
    await h.app.accounts.revokeKey({ id: (await h.app.accounts.listKeys({ email: OWNER.email }))[1]!.id })
    const later = await owner.browser.get('/posts')
    expect(later.text).not.toContain('is set up')
    expect(checklistOf(later.text)).toBe('')
  })
})

describe('hiding the checklist, and sandbox mode', () => {
  let h: Harness
  let owner: Awaited<ReturnType<typeof freshOwner>>
  let editor: Browser
  beforeAll(async () => {
    h = await startHarness({ sandbox: true, fresh: true })
    owner = await freshOwner(h)
    await h.app.accounts.createUser({ email: 'eddie@example.com', password: OWNER.password })
    await h.app.accounts.addMember({
      workspaceId: owner.workspaceId,
      email: 'eddie@example.com',
      role: 'editor',
    })
    editor = createBrowser(h.baseUrl)
    await editor.login('eddie@example.com', OWNER.password)
  })
  afterAll(async () => {
    await h?.close()
  })

  it('shows an editor the checklist without the hide button, refuses their hiding, and tells them who adds webhooks', async () => {
    const page = await editor.get('/posts')
    expect(checklistOf(page.text)).toContain('3 of 3 steps to go')
    expect(page.text).not.toContain('Hide this checklist')
    expect(checklistOf(page.text)).not.toContain('href="/webhooks"')
    expect(checklistOf(page.text)).toContain('An owner of this workspace sets this up.')
    const refused = await editor.post('/onboarding/dismiss', { csrf: editor.csrf(page) })
    expect(refused.status).toBe(403)
    expect(checklistOf((await owner.browser.get('/posts')).text)).not.toBe('')
  })

  it('refuses a hide without the session CSRF token', async () => {
    const refused = await owner.browser.post('/onboarding/dismiss', { csrf: 'forged' })
    expect(refused.status).toBe(403)
    expect(checklistOf((await owner.browser.get('/posts')).text)).not.toBe('')
  })

  it('connects a simulated profile on every network in one click, through each network simulator', async () => {
    const page = await owner.browser.get('/posts')
    expect(checklistOf(page.text)).toContain('Connect simulated profiles')
    const answer = await owner.browser.post('/onboarding/simulated-profiles', {
      csrf: owner.browser.csrf(page),
      next: '/posts',
    })
    expect(answer.status).toBe(303)
    expect(answer.location).toBe(`${h.baseUrl}/posts?simulated=14`)
    const rows = await h.app.store.db
      .selectFrom('connections')
      .select(['platform', 'username', 'status'])
      .where('workspace_id', '=', owner.workspaceId)
      .execute()
    expect(rows.map((r) => r.platform).sort()).toEqual(
      [
        'bluesky',
        'facebook',
        'instagram',
        'linkedin',
        'mastodon',
        'threads',
        'tiktok',
        'twitter',
        'youtube',
        // Both locations of the simulated business, each its own profile.
        'googlebusiness',
        'googlebusiness',
        'pinterest',
        'pinterest',
        'pinterest',
      ].sort(),
    )
    expect(rows.every((r) => r.status === 'active')).toBe(true)
    // Each simulator handed out tokens for its profile (the networks' side of the connection).
    expect([...h.sandboxes!.bluesky.accounts.values()].map((a) => a.handle)).toContain('demo.bsky.social')
    const after = await owner.browser.get('/posts?simulated=14')
    expect(after.text).toContain('Connected 14 simulated profiles.')
    expect(stepOf(after.text, 'Connect a channel')).toBe('Done')
    // Connected, the button is gone.
    expect(checklistOf(after.text)).not.toContain('Connect simulated profiles')
  })

  it('hides for good when an owner hides it', async () => {
    const page = await owner.browser.get('/posts')
    const hidden = await owner.browser.post('/onboarding/dismiss', { csrf: owner.browser.csrf(page) })
    expect(hidden.status).toBe(303)
    expect(checklistOf((await owner.browser.get('/posts')).text)).toBe('')
    expect(checklistOf((await editor.get('/posts')).text)).toBe('')
  })
})

describe('outside sandbox mode', () => {
  let h: Harness
  let owner: Awaited<ReturnType<typeof freshOwner>>
  beforeAll(async () => {
    h = await startHarness({ fresh: true })
    owner = await freshOwner(h)
  })
  afterAll(async () => {
    await h?.close()
  })

  it('offers no simulated profiles, and refuses the form', async () => {
    const page = await owner.browser.get('/posts')
    expect(checklistOf(page.text)).not.toBe('')
    expect(page.text).not.toContain('Connect simulated profiles')
    const refused = await owner.browser.post('/onboarding/simulated-profiles', {
      csrf: owner.browser.csrf(page),
    })
    expect(refused.status).toBe(404)
    expect(await h.app.store.db.selectFrom('connections').selectAll().execute()).toEqual([])
  })

  it.each([
    ['/posts', 'No posts yet. Every post you write appears here', '/compose', 'Compose a post'],
    ['/calendar', 'Nothing on the calendar yet.', '/compose', 'Schedule a post'],
    ['/analytics', 'No numbers yet. Once a profile is connected', '/channels', 'Connect a channel'],
    [
      '/channels',
      'No channels yet. Every social profile you connect appears here',
      '#connect',
      'Connect a profile',
    ],
  ])('%s, empty, says what it will show and links to what fills it', async (path, words, href, label) => {
    const page = await owner.browser.get(path)
    expect(page.status).toBe(200)
    const empty = /<div class="empty">[\s\S]*?<\/div>/.exec(page.text)?.[0] ?? ''
    expect(empty).toContain(words)
    expect(empty).toContain(`<a class="button" href="${href}">${label}</a>`)
    // No API names in a sentence a manager reads.
    expect(empty).not.toMatch(/create_post|REST|MCP|OAuth/)
  })
})

describe.each(backends)('migration 026 on an instance from before it, on $name', (backend) => {
  it('makes the longest-standing person the administrator and closes the checklist of workspaces that have posts', async () => {
    const h = await startHarness({ backend, sandbox: true })
    try {
      const db = h.app.store.db
      const quiet = await h.app.accounts.bootstrap({
        email: 'later@example.com',
        password: OWNER.password,
        workspace: 'Quiet',
      })
      const x = await sandboxConnect(h.app, {
        workspaceId: h.workspaceId,
        network: 'twitter',
        username: 'busy_x',
      })
      const created = await h.call('create_post', {
        content: 'Already posting',
        targetAccounts: [{ platform: 'twitter', profileId: x.profileId }],
        scheduleDate: '2031-05-01',
        scheduleTime: '09:00',
      })
      expect(created.status).toBe(200)
      // Back to the schema before 026, then migrate again.
      await sql`DROP TABLE setup_codes`.execute(db)
      await sql`ALTER TABLE users DROP COLUMN is_admin`.execute(db)
      await sql`ALTER TABLE workspaces DROP COLUMN onboarding_closed_at`.execute(db)
      await sql`DELETE FROM kysely_migration WHERE name = '026-instance-setup'`.execute(db)
      await migrate(h.app.store)

      const people = await db.selectFrom('users').select(['id', 'is_admin']).orderBy('created_at').execute()
      expect(people).toEqual([
        { id: h.userId, is_admin: 1 },
        { id: quiet.userId, is_admin: 0 },
      ])
      const workspaces = await db.selectFrom('workspaces').select(['id', 'onboarding_closed_at']).execute()
      const closed = Object.fromEntries(workspaces.map((w) => [w.id, w.onboarding_closed_at !== null]))
      expect(closed).toEqual({ [h.workspaceId]: true, [quiet.workspaceId]: false })
      expect(await db.selectFrom('setup_codes').selectAll().execute()).toEqual([])
    } finally {
      await h.close()
    }
  })
})
