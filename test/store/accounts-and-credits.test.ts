import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccounts } from '../../src/modules/accounts/accounts.js'
import { verifyPassword } from '../../src/modules/accounts/passwords.js'
import { FakeClock } from '../../src/platform/clock.js'
import type { Store } from '../../src/platform/db/db.js'
import { migrate } from '../../src/platform/db/db.js'
import { charge, currentBalance, ledgerFor } from '../../src/platform/db/statements/credits.js'
import { backends } from '../helpers/backends.js'

describe.each(backends)('accounts and credits store on $name', (backend) => {
  let store: Store
  const clock = new FakeClock(Date.UTC(2026, 10, 21, 12))
  beforeAll(async () => {
    store = await backend.open()
  })
  afterAll(() => store.destroy())

  it('runs migrations idempotently', async () => {
    await migrate(store)
    await migrate(store)
    const rows = await store.db.selectFrom('workspaces').selectAll().execute()
    expect(rows).toEqual([])
  })

  it('bootstraps a person who owns a workspace, with a hashed key and an argon2id password', async () => {
    const accounts = createAccounts(store, clock)
    const result = await accounts.bootstrap({
      email: 'Ada@Example.com',
      password: 'hunter22hunter',
      workspace: 'Lab',
      credits: 40,
    })
    const user = await store.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', result.userId)
      .executeTakeFirstOrThrow()
    expect(user.email).toBe('ada@example.com')
    expect(user.password_hash).toMatch(/^\$argon2id\$/)
    expect(await verifyPassword(user.password_hash, 'hunter22hunter')).toBe(true)
    const key = await store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', result.userId)
      .executeTakeFirstOrThrow()
    expect(key.key_hash).toHaveLength(64)
    expect(key.key_hash).not.toContain(result.apiKey)
    expect(result.apiKey.startsWith(key.prefix)).toBe(true)
    expect(key.default_workspace_id).toBe(result.workspaceId)
    expect(await currentBalance(store.db, result.workspaceId)).toBe(40)
    await expect(
      accounts.bootstrap({ email: 'ada@example.com', password: 'another-password', workspace: 'Again' }),
    ).rejects.toThrow(/already exists/)
  })

  it('moves the balance by exactly the charge and writes a ledger row for each movement', async () => {
    const accounts = createAccounts(store, clock)
    const { workspaceId } = await accounts.bootstrap({
      email: 'ledger@example.com',
      password: 'password123',
      workspace: 'L',
      credits: 10,
    })
    const after = await store.db
      .transaction()
      .execute((tx) => charge(tx, { workspaceId, amount: 3, reason: 'test', reference: 'r1' }, clock.now()))
    expect(after).toBe(7)
    const ledger = await ledgerFor(store.db, workspaceId)
    expect(ledger.map((row) => [Number(row.delta), Number(row.balance_after), row.reason])).toEqual([
      [10, 10, 'bootstrap'],
      [-3, 7, 'test'],
    ])
  })

  it('keeps the whole reference of a charge for many posts (create_post to 40 profiles)', async () => {
    const accounts = createAccounts(store, clock)
    const { workspaceId } = await accounts.bootstrap({
      email: 'many@example.com',
      password: 'password123',
      workspace: 'M',
      credits: 100,
    })
    const reference = Array.from({ length: 40 }, (_, i) => `post${String(i).padStart(20, '0')}`).join(',')
    expect(reference.length).toBeGreaterThan(200)
    await store.db
      .transaction()
      .execute((tx) => charge(tx, { workspaceId, amount: 40, reason: 'create_post', reference }, clock.now()))
    const ledger = await ledgerFor(store.db, workspaceId)
    expect(ledger.at(-1)?.reference).toBe(reference)
  })

  it('refuses a charge the balance cannot pay and changes nothing', async () => {
    const accounts = createAccounts(store, clock)
    const { workspaceId } = await accounts.bootstrap({
      email: 'poor@example.com',
      password: 'password123',
      workspace: 'P',
      credits: 2,
    })
    await expect(
      store.db
        .transaction()
        .execute((tx) => charge(tx, { workspaceId, amount: 3, reason: 'test' }, clock.now())),
    ).rejects.toMatchObject({
      code: 'insufficient_credits',
    })
    expect(await currentBalance(store.db, workspaceId)).toBe(2)
    expect(await ledgerFor(store.db, workspaceId)).toHaveLength(1)
  })

  it('never overdraws under concurrent charges', async () => {
    const accounts = createAccounts(store, clock)
    const { workspaceId } = await accounts.bootstrap({
      email: 'race@example.com',
      password: 'password123',
      workspace: 'R',
      credits: 10,
    })
    const attempts = Array.from({ length: 12 }, (_, i) =>
      store.db
        .transaction()
        .execute((tx) =>
          charge(tx, { workspaceId, amount: 1, reason: 'race', reference: String(i) }, clock.now()),
        )
        .then(
          () => 'ok',
          () => 'refused',
        ),
    )
    const outcomes = await Promise.all(attempts)
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(10)
    expect(await currentBalance(store.db, workspaceId)).toBe(0)
  })

  it('adds a member as editor and lists keys without their secret', async () => {
    const accounts = createAccounts(store, clock)
    const owner = await accounts.bootstrap({
      email: 'owner2@example.com',
      password: 'password123',
      workspace: 'Team',
    })
    await accounts.createUser({ email: 'ed@example.com', password: 'password123' })
    const added = await accounts.addMember({
      workspaceId: owner.workspaceId,
      email: 'ed@example.com',
      role: 'editor',
    })
    expect(added.role).toBe('editor')
    const key = await accounts.createKey({
      email: 'ed@example.com',
      workspaceId: owner.workspaceId,
      name: 'ci',
    })
    const listed = await accounts.listKeys({ email: 'ed@example.com' })
    expect(listed).toEqual([
      expect.objectContaining({
        id: key.id,
        name: 'ci',
        prefix: key.prefix,
        revoked: false,
        lastUsedAt: null,
      }),
    ])
    expect(JSON.stringify(listed)).not.toContain(key.apiKey)
    await accounts.revokeKey({ id: key.id })
    expect((await accounts.listKeys({ email: 'ed@example.com' }))[0]?.revoked).toBe(true)
    await expect(accounts.revokeKey({ id: key.id })).rejects.toMatchObject({ code: 'not_found' })
  })
})
