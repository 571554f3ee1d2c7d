import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { createAccounts } from '../../src/modules/accounts/accounts.js'
import { systemClock } from '../../src/platform/clock.js'
import { rotateSecrets } from '../../src/platform/crypto/rotate.js'
import {
  connectionCredentials,
  createVault,
  keyIdOf,
  mastodonAppSecretAt,
  networkAppSecretAt,
  type Vault,
  webhookSecretAt,
} from '../../src/platform/crypto/vault.js'
import { openStore, type Store } from '../../src/platform/db/db.js'
import { upsertConnection } from '../../src/platform/db/statements/connections.js'
import { backends } from '../helpers/backends.js'
import { runHerald } from '../helpers/herald-command.js'

const oldKey = Buffer.alloc(32, 1)
const newKey = Buffer.alloc(32, 2)
const strangerKey = Buffer.alloc(32, 3)

const stateAt = { table: 'oauth_states', column: 'code_verifier', id: 'state-1' }
const grantAt = { table: 'pending_grants', column: 'sealed', id: 'grant-1' }
const ENDPOINT = 'e0e1e2e3e4e5e6e7e8e9eaeb'

/**
 * A workspace with three connections (two under the old key, one already under the new), an OAuth state,
 * a pending connect grant, a webhook endpoint with a current and a previous secret, and an X app saved on
 * the network apps page.
 */
async function seed(store: Store, email: string) {
  const accounts = createAccounts(store, systemClock)
  const { workspaceId, userId } = await accounts.bootstrap({
    email,
    password: 'password123',
    workspace: 'Rotate',
  })
  const old = createVault(oldKey)
  const ids: Record<string, string> = {}
  const add = async (profileId: string, vault: Vault) => {
    ids[profileId] = await upsertConnection(
      store.db,
      {
        workspaceId,
        platform: 'twitter',
        profileId,
        username: profileId,
        name: profileId,
        isOrganization: false,
        sealCredentials: (id) =>
          vault.sealJson(connectionCredentials(id), {
            accessToken: `access-${profileId}`,
            refreshToken: `refresh-${profileId}`,
          }),
        tokenExpiresAt: null,
      },
      Date.now(),
    )
  }
  await add('old-1', old)
  await add('old-2', old)
  await add('already-new', createVault(newKey))
  await store.db
    .insertInto('oauth_states')
    .values({
      id: 'state-1',
      workspace_id: workspaceId,
      user_id: userId,
      platform: 'twitter',
      code_verifier: old.seal(stateAt, 'the-pkce-verifier-of-state-1'),
      redirect_uri: 'http://127.0.0.1/connect/twitter/callback',
      created_at: Date.now(),
      expires_at: Date.now() + 600_000,
      used_at: null,
    })
    .execute()
  await store.db
    .insertInto('pending_grants')
    .values({
      id: 'grant-1',
      user_id: userId,
      workspace_id: workspaceId,
      platform: 'linkedin',
      sealed: old.sealJson(grantAt, { profiles: [], scopes: ['w_member_social'] }),
      expires_at: Date.now() + 600_000,
      created_at: Date.now(),
    })
    .execute()
  await store.db
    .insertInto('webhook_endpoints')
    .values({
      id: ENDPOINT,
      workspace_id: workspaceId,
      url: 'https://hooks.example.com/herald',
      description: '',
      event_types: '[]',
      enabled: 1,
      secret: old.seal(webhookSecretAt(ENDPOINT, 'secret'), 'whsec_current'),
      previous_secret: old.seal(webhookSecretAt(ENDPOINT, 'previous_secret'), 'whsec_previous'),
      previous_secret_until: Date.now() + 600_000,
      failing_since: null,
      disabled_reason: null,
      disabled_at: null,
      created_at: Date.now(),
      updated_at: Date.now(),
    })
    .execute()
  await store.db
    .insertInto('network_apps')
    .values({
      id: 'twitter',
      client_id: 'x-app',
      client_secret: old.seal(networkAppSecretAt('twitter'), 'x-app-secret'),
      options: '{}',
      updated_by: userId,
      updated_at: Date.now(),
    })
    .execute()
  await store.db
    .insertInto('mastodon_instances')
    .values({
      id: 'social.example',
      info: '{}',
      info_read_at: Date.now(),
      client_id: 'herald-on-social',
      client_secret: old.seal(mastodonAppSecretAt('social.example'), 'mastodon-app-secret'),
      redirect_uri: 'https://herald.example/connect/mastodon/callback',
      scopes: 'read write:statuses write:media',
      registered_at: Date.now(),
    })
    .execute()
  return { workspaceId, ids }
}

async function expectOnlyNewKeyOpens(store: Store) {
  const newOnly = createVault(newKey)
  const oldOnly = createVault(oldKey)
  const rows = await store.db.selectFrom('connections').select(['id', 'profile_id', 'credentials']).execute()
  expect(rows).toHaveLength(3)
  for (const row of rows) {
    expect(row.credentials.split('.')[1]).toBe(keyIdOf(newKey))
    expect(newOnly.openJson(connectionCredentials(row.id), row.credentials)).toEqual({
      accessToken: `access-${row.profile_id}`,
      refreshToken: `refresh-${row.profile_id}`,
    })
    expect(() => oldOnly.open(connectionCredentials(row.id), row.credentials)).toThrow()
  }
  const state = await store.db.selectFrom('oauth_states').selectAll().executeTakeFirstOrThrow()
  expect(newOnly.open(stateAt, state.code_verifier)).toBe('the-pkce-verifier-of-state-1')
  expect(() => oldOnly.open(stateAt, state.code_verifier)).toThrow()
  const grant = await store.db.selectFrom('pending_grants').selectAll().executeTakeFirstOrThrow()
  expect(newOnly.openJson(grantAt, grant.sealed)).toEqual({ profiles: [], scopes: ['w_member_social'] })
  const endpoint = await store.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow()
  expect(newOnly.open(webhookSecretAt(ENDPOINT, 'secret'), endpoint.secret)).toBe('whsec_current')
  expect(newOnly.open(webhookSecretAt(ENDPOINT, 'previous_secret'), endpoint.previous_secret!)).toBe(
    'whsec_previous',
  )
  expect(() => oldOnly.open(webhookSecretAt(ENDPOINT, 'secret'), endpoint.secret)).toThrow()
  const app = await store.db.selectFrom('network_apps').selectAll().executeTakeFirstOrThrow()
  expect(newOnly.open(networkAppSecretAt('twitter'), app.client_secret!)).toBe('x-app-secret')
  expect(() => oldOnly.open(networkAppSecretAt('twitter'), app.client_secret!)).toThrow()
  const instance = await store.db.selectFrom('mastodon_instances').selectAll().executeTakeFirstOrThrow()
  expect(newOnly.open(mastodonAppSecretAt('social.example'), instance.client_secret!)).toBe(
    'mastodon-app-secret',
  )
  expect(() => oldOnly.open(mastodonAppSecretAt('social.example'), instance.client_secret!)).toThrow()
}

describe.each(backends)('secrets rotate on $name', (backend) => {
  let store: Store
  beforeAll(async () => {
    store = await backend.open()
  })
  afterAll(() => store.destroy())

  it('re-seals rows sealed with an old key so that they open under the new key only', async () => {
    const { ids } = await seed(store, `rotate-${backend.name}@example.com`)
    const report = await rotateSecrets(store.db, createVault(newKey, [oldKey]))
    expect(report).toEqual({
      keyId: keyIdOf(newKey),
      connections: { total: 3, rotated: 2, current: 1, failed: 0, failedIds: [] },
      oauthStates: { total: 1, rotated: 1, current: 0, failed: 0, failedIds: [] },
      pendingGrants: { total: 1, rotated: 1, current: 0, failed: 0, failedIds: [] },
      webhookSecrets: { total: 2, rotated: 2, current: 0, failed: 0, failedIds: [] },
      networkApps: { total: 1, rotated: 1, current: 0, failed: 0, failedIds: [] },
      mastodonApps: { total: 1, rotated: 1, current: 0, failed: 0, failedIds: [] },
    })
    await expectOnlyNewKeyOpens(store)

    // Running it again finds nothing left to do.
    const again = await rotateSecrets(store.db, createVault(newKey, [oldKey]))
    expect(again.connections).toMatchObject({ rotated: 0, current: 3 })

    // A value sealed with a key that is not configured is reported, not lost.
    await store.db
      .updateTable('connections')
      .set({
        credentials: createVault(strangerKey).sealJson(connectionCredentials(ids['old-1']!), {
          accessToken: 'x',
        }),
      })
      .where('id', '=', ids['old-1']!)
      .execute()
    const stranger = await rotateSecrets(store.db, createVault(newKey, [oldKey]))
    expect(stranger.connections).toMatchObject({ failed: 1, failedIds: [ids['old-1']] })
  })

  it('does not launder a value copied from another row into a value sealed for its new row', async () => {
    const store = await backend.open()
    onTestFinished(() => store.destroy())
    const { ids } = await seed(store, `rotate-copy-${backend.name}@example.com`)
    const victim = await store.db
      .selectFrom('connections')
      .select('credentials')
      .where('id', '=', ids['old-2']!)
      .executeTakeFirstOrThrow()
    // An attacker with write access to the database puts old-2's tokens into old-1.
    await store.db
      .updateTable('connections')
      .set({ credentials: victim.credentials })
      .where('id', '=', ids['old-1']!)
      .execute()
    const report = await rotateSecrets(store.db, createVault(newKey, [oldKey]))
    expect(report.connections.failedIds).toEqual([ids['old-1']])
    const copied = await store.db
      .selectFrom('connections')
      .select('credentials')
      .where('id', '=', ids['old-1']!)
      .executeTakeFirstOrThrow()
    expect(copied.credentials).toBe(victim.credentials)
  })
})

describe('`npm run herald -- secrets rotate`', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-rotate-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('re-seals the database under HERALD_SECRET_KEY with the old key from HERALD_OLD_SECRET_KEYS and prints counts', async () => {
    const file = path.join(dataDir, 'herald.sqlite')
    const store = await openStore({ sqlitePath: file })
    await seed(store, 'cli-rotate@example.com')
    await store.destroy()

    const { stdout } = await runHerald(['secrets', 'rotate', '--json'], {
      ...process.env,
      DATABASE_URL: '',
      HERALD_DATA_DIR: dataDir,
      HERALD_SECRET_KEY: newKey.toString('base64'),
      HERALD_OLD_SECRET_KEYS: oldKey.toString('base64'),
      LOG_LEVEL: 'warn',
    })
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!)
    expect(report.connections).toEqual({ total: 3, rotated: 2, current: 1, failed: 0, failedIds: [] })
    expect(report.oauthStates).toMatchObject({ total: 1, rotated: 1 })
    expect(report.pendingGrants).toMatchObject({ total: 1, rotated: 1 })
    expect(report.webhookSecrets).toMatchObject({ total: 2, rotated: 2 })
    expect(report.networkApps).toMatchObject({ total: 1, rotated: 1 })

    const after = await openStore({ sqlitePath: file })
    try {
      await expectOnlyNewKeyOpens(after)
    } finally {
      await after.destroy()
    }
  })
})
