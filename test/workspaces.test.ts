import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectionCredentials } from '../src/platform/crypto/vault.js'
import { upsertConnection } from '../src/platform/db/statements/connections.js'
import { backends } from './helpers/backends.js'
import { type Harness, startHarness } from './helpers/harness.js'

describe.each(backends)('workspaces and account tools on $name', (backend) => {
  let h: Harness
  let outsider: { apiKey: string; workspaceId: string }
  beforeAll(async () => {
    h = await startHarness({ backend })
    outsider = await h.app.accounts.bootstrap({
      email: `outsider-${backend.name}@example.com`,
      password: 'password123',
      workspace: 'Other',
      credits: 5,
    })
  })
  afterAll(() => h.close())

  it('lists the workspace with role owner, isOwner and memberCount 1', async () => {
    const { status, body } = await h.call('list_workspaces', {})
    expect(status).toBe(200)
    expect(body).toEqual([
      {
        id: h.workspaceId,
        name: 'Acme',
        role: 'owner',
        isOwner: true,
        connectedPlatforms: [],
        memberCount: 1,
      },
    ])
  })

  it('treats another person’s workspace as not found', async () => {
    const { status, body } = await h.call('get_user_info', { workspaceId: outsider.workspaceId })
    expect(status).toBe(404)
    expect(body.error.code).toBe('not_found')
    expect((await h.call('list_workspaces', { workspaceId: outsider.workspaceId })).status).toBe(404)
    expect((await h.call('get_connected_accounts', { workspaceId: 'ffffffffffffffffffffffff' })).status).toBe(
      404,
    )
  })

  it('shows a shared workspace to an editor with role editor', async () => {
    const outsiderEmail = `outsider-${backend.name}@example.com`
    await h.app.accounts.addMember({ workspaceId: h.workspaceId, email: outsiderEmail, role: 'editor' })
    const { body } = await h.call('list_workspaces', {}, { key: outsider.apiKey })
    expect(body).toHaveLength(2)
    const shared = body.find((w: { id: string }) => w.id === h.workspaceId)
    expect(shared).toMatchObject({ role: 'editor', isOwner: false, memberCount: 2 })
    const info = await h.call('get_user_info', { workspaceId: h.workspaceId }, { key: outsider.apiKey })
    expect(info.body.workspace).toEqual({ id: h.workspaceId, name: 'Acme', role: 'editor' })
  })

  it('answers get_user_info with plan and credit balance of the default workspace', async () => {
    const { status, body } = await h.call('get_user_info', {})
    expect(status).toBe(200)
    expect(body).toMatchObject({
      id: h.userId,
      plan: 'free',
      workspace: { id: h.workspaceId, role: 'owner' },
      credits: { balance: 1000 },
    })
  })

  it('lists only connections with a live authorisation', async () => {
    const now = Date.now()
    const db = h.app.store.db
    await upsertConnection(
      db,
      {
        workspaceId: h.workspaceId,
        platform: 'twitter',
        profileId: '111',
        username: 'acme',
        name: 'Acme',
        isOrganization: false,
        sealCredentials: (id) =>
          h.app.vault.sealJson(connectionCredentials(id), { accessToken: 'secret-access' }),
        tokenExpiresAt: null,
      },
      now,
    )
    const deadId = await upsertConnection(
      db,
      {
        workspaceId: h.workspaceId,
        platform: 'linkedin',
        profileId: 'urn:li:organization:9',
        username: 'acme-co',
        name: 'Acme Co',
        isOrganization: true,
        sealCredentials: (id) =>
          h.app.vault.sealJson(connectionCredentials(id), { accessToken: 'secret-access' }),
        tokenExpiresAt: null,
      },
      now,
    )
    await db.updateTable('connections').set({ status: 'needs_reconnect' }).where('id', '=', deadId).execute()
    const { body } = await h.call('get_connected_accounts', {})
    expect(body).toEqual([
      { platform: 'twitter', username: 'acme', name: 'Acme', profileId: '111', isOrganization: false },
    ])
    const workspaces = await h.call('list_workspaces', {})
    expect(workspaces.body[0].connectedPlatforms).toEqual(['twitter'])
  })
})
