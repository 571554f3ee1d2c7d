import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppContext } from '../../src/app.js'
import { createAccounts } from '../../src/modules/accounts/accounts.js'
import { systemClock } from '../../src/platform/clock.js'
import { loadConfig } from '../../src/platform/config.js'
import {
  connectionCredentials,
  createVault,
  type SealedAt,
  type Vault,
  VaultError,
  webhookSecretAt,
} from '../../src/platform/crypto/vault.js'
import { migrate, openStore, type Store } from '../../src/platform/db/db.js'
import { upsertConnection } from '../../src/platform/db/statements/connections.js'
import { createLogger } from '../../src/platform/logger.js'
import { backends } from '../helpers/backends.js'
import { sealV1 } from '../helpers/vault-v1.js'

const key = Buffer.alloc(32, 5)
const oldKey = Buffer.alloc(32, 6)
const lostKey = Buffer.alloc(32, 9)
const ENDPOINT = 'e9e8e7e6e5e4e3e2e1e0e9e8'
const stateAt: SealedAt = { table: 'oauth_states', column: 'code_verifier', id: 'state-017' }
const grantAt: SealedAt = { table: 'pending_grants', column: 'sealed', id: 'grant-017' }

/**
 * A database as it was before migration 017: every sealed column holds `v1` values (bound to nothing),
 * one of them under an older key that is still configured and one under a key that is lost. The migration
 * record is removed so that opening the store runs 017 over them.
 */
async function seedUnbound(store: Store) {
  const { workspaceId, userId } = await createAccounts(store, systemClock).bootstrap({
    email: `v1-${Math.random()}@example.com`,
    password: 'password123',
    workspace: 'Before 017',
  })
  const ids: Record<string, string> = {}
  for (const [profileId, sealWith] of [
    ['alpha', key],
    ['beta', oldKey],
    ['lost', lostKey],
  ] as const)
    ids[profileId] = await upsertConnection(
      store.db,
      {
        workspaceId,
        platform: 'twitter',
        profileId,
        username: profileId,
        name: profileId,
        isOrganization: false,
        sealCredentials: () => sealV1(sealWith, JSON.stringify({ accessToken: `access-${profileId}` })),
        tokenExpiresAt: null,
      },
      Date.now(),
    )
  const now = Date.now()
  await store.db
    .insertInto('oauth_states')
    .values({
      id: stateAt.id,
      workspace_id: workspaceId,
      user_id: userId,
      platform: 'twitter',
      code_verifier: sealV1(key, 'verifier-017'),
      redirect_uri: 'http://127.0.0.1/connect/twitter/callback',
      created_at: now,
      expires_at: now + 600_000,
      used_at: null,
    })
    .execute()
  await store.db
    .insertInto('pending_grants')
    .values({
      id: grantAt.id,
      user_id: userId,
      workspace_id: workspaceId,
      platform: 'linkedin',
      sealed: sealV1(key, JSON.stringify({ profiles: [], scopes: ['openid'] })),
      expires_at: now + 600_000,
      created_at: now,
    })
    .execute()
  await store.db
    .insertInto('webhook_endpoints')
    .values({
      id: ENDPOINT,
      workspace_id: workspaceId,
      url: 'https://hooks.example.com/017',
      description: '',
      event_types: '[]',
      enabled: 1,
      secret: sealV1(key, 'whsec_now'),
      previous_secret: sealV1(key, 'whsec_before'),
      previous_secret_until: now + 600_000,
      failing_since: null,
      disabled_reason: null,
      disabled_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute()
  await sql`DELETE FROM kysely_migration WHERE name = '017-bound-secrets'`.execute(store.db)
  return ids
}

async function credentialsOf(store: Store, id: string) {
  return (
    await store.db
      .selectFrom('connections')
      .select('credentials')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).credentials
}

/** Every value of the seed is bound to where it is, opens there and only there. */
async function expectBound(store: Store, vault: Vault, ids: Record<string, string>) {
  for (const profileId of ['alpha', 'beta']) {
    const sealed = await credentialsOf(store, ids[profileId]!)
    expect(sealed.startsWith(`v2.${vault.currentKeyId}.`)).toBe(true)
    expect(vault.openJson(connectionCredentials(ids[profileId]!), sealed)).toEqual({
      accessToken: `access-${profileId}`,
    })
  }
  // Copied into another row after the migration, a value no longer opens.
  const alpha = await credentialsOf(store, ids['alpha']!)
  expect(() => vault.open(connectionCredentials(ids['beta']!), alpha)).toThrow(VaultError)
  const state = await store.db.selectFrom('oauth_states').selectAll().executeTakeFirstOrThrow()
  expect(vault.open(stateAt, state.code_verifier)).toBe('verifier-017')
  const grant = await store.db.selectFrom('pending_grants').selectAll().executeTakeFirstOrThrow()
  expect(vault.openJson(grantAt, grant.sealed)).toEqual({ profiles: [], scopes: ['openid'] })
  const endpoint = await store.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow()
  expect(vault.open(webhookSecretAt(ENDPOINT, 'secret'), endpoint.secret)).toBe('whsec_now')
  expect(vault.open(webhookSecretAt(ENDPOINT, 'previous_secret'), endpoint.previous_secret!)).toBe(
    'whsec_before',
  )
  // A value under a key nobody holds stays as it was (it was unreadable before): refused as unbound.
  const lost = await credentialsOf(store, ids['lost']!)
  expect(lost.startsWith('v1.')).toBe(true)
  expect(() => vault.open(connectionCredentials(ids['lost']!), lost)).toThrow(/unbound v1 format/)
}

describe.each(backends)('migration 017 (bound vault values) on $name', (backend) => {
  let store: Store
  beforeAll(async () => {
    store = await backend.open()
  })
  afterAll(() => store.destroy())

  it('refuses to run without the vault key while unbound values exist, and changes nothing', async () => {
    const ids = await seedUnbound(store)
    const before = await credentialsOf(store, ids['alpha']!)
    await expect(migrate(store)).rejects.toThrow(/017.*needs the vault key/)
    expect(await credentialsOf(store, ids['alpha']!)).toBe(before)

    // With the key, every value is re-sealed bound to its row and column.
    const vault = createVault(key, [oldKey])
    await migrate(store, vault)
    await expectBound(store, vault, ids)

    // Recorded: running migrations again (even without the key) does nothing more.
    const after = await credentialsOf(store, ids['alpha']!)
    await migrate(store)
    expect(await credentialsOf(store, ids['alpha']!)).toBe(after)
  })
})

describe('migration 017 through the composition root', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-017-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('re-seals an existing SQLite file when Herald starts with its key', async () => {
    const file = path.join(dataDir, 'herald.sqlite')
    const before = await openStore({ sqlitePath: file })
    const ids = await seedUnbound(before)
    await before.destroy()

    const app = await createAppContext(
      loadConfig({
        HERALD_DATA_DIR: dataDir,
        HERALD_SECRET_KEY: key.toString('base64'),
        HERALD_OLD_SECRET_KEYS: oldKey.toString('base64'),
      }),
      { logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })) },
    )
    try {
      await expectBound(app.store, app.vault, ids)
    } finally {
      await app.store.destroy()
    }
  })
})
