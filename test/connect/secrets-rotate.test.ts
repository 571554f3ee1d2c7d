import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccounts } from '../../src/auth/accounts.js'
import { rotateSecrets } from '../../src/connect/rotate.js'
import { createVault, keyIdOf, type Vault } from '../../src/connect/vault.js'
import { systemClock } from '../../src/lib/clock.js'
import { upsertConnection } from '../../src/store/connections.js'
import { openStore, type Store } from '../../src/store/db.js'
import { backends } from '../helpers/backends.js'
import { runHerald } from '../helpers/herald-command.js'

const oldKey = Buffer.alloc(32, 1)
const newKey = Buffer.alloc(32, 2)
const strangerKey = Buffer.alloc(32, 3)

/** A workspace with three connections (two under the old key, one already under the new) and an OAuth state. */
async function seed(store: Store, email: string) {
  const accounts = createAccounts(store.db, systemClock)
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
        credentials: vault.sealJson({
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
      code_verifier: old.seal('the-pkce-verifier-of-state-1'),
      redirect_uri: 'http://127.0.0.1/connect/twitter/callback',
      created_at: Date.now(),
      expires_at: Date.now() + 600_000,
      used_at: null,
    })
    .execute()
  return { workspaceId, ids }
}

async function expectOnlyNewKeyOpens(store: Store) {
  const newOnly = createVault(newKey)
  const oldOnly = createVault(oldKey)
  const rows = await store.db.selectFrom('connections').select(['profile_id', 'credentials']).execute()
  expect(rows).toHaveLength(3)
  for (const row of rows) {
    expect(row.credentials.split('.')[1]).toBe(keyIdOf(newKey))
    expect(newOnly.openJson(row.credentials)).toEqual({
      accessToken: `access-${row.profile_id}`,
      refreshToken: `refresh-${row.profile_id}`,
    })
    expect(() => oldOnly.open(row.credentials)).toThrow()
  }
  const state = await store.db.selectFrom('oauth_states').selectAll().executeTakeFirstOrThrow()
  expect(newOnly.open(state.code_verifier)).toBe('the-pkce-verifier-of-state-1')
  expect(() => oldOnly.open(state.code_verifier)).toThrow()
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
    })
    await expectOnlyNewKeyOpens(store)

    // Running it again finds nothing left to do.
    const again = await rotateSecrets(store.db, createVault(newKey, [oldKey]))
    expect(again.connections).toMatchObject({ rotated: 0, current: 3 })

    // A value sealed with a key that is not configured is reported, not lost.
    await store.db
      .updateTable('connections')
      .set({ credentials: createVault(strangerKey).sealJson({ accessToken: 'x' }) })
      .where('id', '=', ids['old-1']!)
      .execute()
    const stranger = await rotateSecrets(store.db, createVault(newKey, [oldKey]))
    expect(stranger.connections).toMatchObject({ failed: 1, failedIds: [ids['old-1']] })
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

    const after = await openStore({ sqlitePath: file })
    try {
      await expectOnlyNewKeyOpens(after)
    } finally {
      await after.destroy()
    }
  })
})
