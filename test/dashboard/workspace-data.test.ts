import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../helpers/backends.js'
import { hostMedia } from '../helpers/backup-rig.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { addMember, type Member } from '../helpers/team.js'

/** "Your data" on the Workspace page: a person's own export, and an owner deleting the workspace. */
describe.each(backends)('a person’s data and deleting a workspace ($name)', (backend) => {
  let h: Harness
  let owner: Browser
  let editor: Member
  let otherWorkspace: string
  let mediaKey: string

  beforeAll(async () => {
    h = await startHarness({ backend })
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
    const made = await h.call('create_post', {
      content: 'Spring launch',
      targetAccounts: [{ platform: 'bluesky', profileId: 'bs-1' }],
      scheduleDate: '2031-04-01',
      scheduleTime: '10:00',
    })
    expect(made.status).toBe(200)
    mediaKey = await hostMedia(h.app, h.workspaceId, Buffer.from('an image of the workspace'))
    editor = await addMember(h, 'editor')
    otherWorkspace = (await h.app.accounts.createWorkspace({ name: 'Other', ownerEmail: h.email }))
      .workspaceId
    await connectProfile(h, 'bluesky', 'bs-9', 'other.bsky.social', { workspaceId: otherWorkspace })
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
  })
  afterAll(() => h.close())

  it('downloads everything Herald holds about the signed-in person, without a token, hash or secret', async () => {
    const page = await owner.get('/account/export')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-disposition')).toMatch(/^attachment; filename="herald-my-data-/)
    const data = JSON.parse(page.text)
    expect(data.person.email).toBe(h.email)
    const acme = data.workspaces.find((w: { id: string }) => w.id === h.workspaceId)
    expect(acme.posts.map((p: { content: string }) => p.content)).toEqual(['Spring launch'])
    expect(acme.connections[0]).toMatchObject({ platform: 'bluesky', username: 'acme.bsky.social' })
    expect(acme.creditLedger.length).toBeGreaterThan(0)
    expect(data.workspaces.map((w: { name: string }) => w.name).sort()).toEqual(['Acme', 'Other'])
    for (const secret of ['access-bluesky-bs-1', 'key_hash', 'password_hash', 'credentials', 'v2.'])
      expect(page.text).not.toContain(secret)
  })

  it("gives an editor their workspace without the owner's ledger and webhooks", async () => {
    const browser = createBrowser(h.baseUrl)
    await browser.login(editor.email, editor.password)
    const data = JSON.parse((await browser.get('/account/export')).text)
    expect(data.person.email).toBe(editor.email)
    expect(data.workspaces).toHaveLength(1)
    expect(data.workspaces[0].posts).toHaveLength(1)
    expect(data.workspaces[0].creditLedger).toBeUndefined()
    expect((await browser.get('/workspace/delete')).status).toBe(403)
  })

  it('asks for the name, deletes nothing for a wrong one, then deletes the workspace and its data only', async () => {
    const workspacePage = await owner.get('/workspace')
    expect(workspacePage.text).toContain('href="/workspace/delete"')
    const confirm = await owner.get('/workspace/delete')
    expect(confirm.text).toContain("Type the workspace's name")
    expect(confirm.text).toContain("First Herald asks each profile's network to withdraw its access")
    const csrf = owner.csrf(confirm)
    const wrong = await owner.post('/workspace/delete', { csrf, confirmName: 'Acme Inc' })
    expect(wrong.status).toBe(400)
    expect(wrong.text).toContain('to confirm; nothing was deleted')
    const db = h.app.store.db
    expect(
      await db.selectFrom('posts').select('id').where('workspace_id', '=', h.workspaceId).execute(),
    ).toHaveLength(1)

    // While one of its posts is being sent (a worker holds its target's lease), nothing is deleted.
    const lease = { lease_owner: 'a-worker', lease_expires_at: Date.now() + 60_000 }
    await db.updateTable('targets').set(lease).where('workspace_id', '=', h.workspaceId).execute()
    const sending = await owner.post('/workspace/delete', { csrf, confirmName: 'Acme' })
    expect(sending.status).toBe(409)
    expect(sending.text).toContain('being sent right now; nothing was deleted')
    expect(
      await db.selectFrom('posts').select('id').where('workspace_id', '=', h.workspaceId).execute(),
    ).toHaveLength(1)
    await db
      .updateTable('targets')
      .set({ lease_owner: null, lease_expires_at: null })
      .where('workspace_id', '=', h.workspaceId)
      .execute()

    const done = await owner.post('/workspace/delete', { csrf, confirmName: 'Acme' })
    // The page says what each network answered; Bluesky offers apps no way to withdraw their access.
    expect(done.status, h.logs.filter((l) => l.includes('"level":50')).join('\n')).toBe(200)
    expect(done.text).toContain('Acme is deleted')
    expect(done.text).toContain('Withdrawn at the network for 0 of 1.')
    expect(done.text).toContain(
      '<strong>Bluesky @acme.bsky.social</strong>: Bluesky does not let an app withdraw its own access: remove Herald in its settings.',
    )
    expect(done.text).toContain('href="/login"')
    // The session went with the workspace.
    expect((await owner.get('/workspace')).location).toMatch(/\/login/)
    for (const table of [
      'posts',
      'targets',
      'connections',
      'memberships',
      'credit_ledger',
      'media',
      'sessions',
    ] as const)
      expect(
        await db.selectFrom(table).select('workspace_id').where('workspace_id', '=', h.workspaceId).execute(),
        table,
      ).toEqual([])
    expect(await db.selectFrom('workspaces').select('id').where('id', '=', h.workspaceId).execute()).toEqual(
      [],
    )
    await expect(h.app.media.storage.read(mediaKey)).rejects.toThrow(/No stored media/)
    // The other workspace, and the people, stay.
    expect(
      await db.selectFrom('connections').select('id').where('workspace_id', '=', otherWorkspace).execute(),
    ).toHaveLength(1)
    expect(await db.selectFrom('users').select('id').execute()).toHaveLength(2)
  })
})
