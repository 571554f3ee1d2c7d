import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccounts } from '../../src/modules/accounts/accounts.js'
import { FakeClock } from '../../src/platform/clock.js'
import { openStore, type Store } from '../../src/platform/db/db.js'
import { charge, currentBalance, ledgerFor } from '../../src/platform/db/statements/credits.js'
import { AppError } from '../../src/platform/errors.js'
import { backends } from '../helpers/backends.js'

const clock = new FakeClock(Date.UTC(2026, 10, 21, 12))

async function workspaceWith(store: Store, credits: number) {
  const accounts = createAccounts(store, clock)
  const owner = await accounts.bootstrap({
    email: `owner-${Math.random().toString(36).slice(2)}@example.com`,
    password: 'batch-password',
    workspace: 'Batch',
    credits,
  })
  return owner.workspaceId
}

const take = (store: Store, workspaceId: string, amount: number, reference: string) =>
  store.batchedTransaction((tx) =>
    charge(tx, { workspaceId, amount, reason: 'test', reference }, clock.now()),
  )

describe.each(backends)('batched transactions on $name', (backend) => {
  let store: Store
  beforeAll(async () => {
    store = await backend.open()
  })
  afterAll(() => store.destroy())

  it('answers every unit with its own result', async () => {
    const workspaceId = await workspaceWith(store, 100)
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        store.batchedTransaction(async (tx) => {
          await charge(tx, { workspaceId, amount: n, reason: 'test' }, clock.now())
          return `unit ${n}`
        }),
      ),
    )
    expect(results).toEqual(['unit 1', 'unit 2', 'unit 3'])
    expect(await currentBalance(store.db, workspaceId)).toBe(94)
  })

  it('fails only the unit that throws and keeps the others', async () => {
    const workspaceId = await workspaceWith(store, 100)
    const outcomes = await Promise.allSettled([
      take(store, workspaceId, 10, 'first'),
      store.batchedTransaction(async (tx) => {
        await charge(tx, { workspaceId, amount: 20, reason: 'test', reference: 'thrower' }, clock.now())
        throw new Error('the unit gives up after writing')
      }),
      take(store, workspaceId, 30, 'third'),
    ])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('the unit gives up after writing')
    expect(await currentBalance(store.db, workspaceId)).toBe(60)
    const ledger = await ledgerFor(store.db, workspaceId)
    const references = ledger.map((row) => row.reference)
    expect(references).toEqual(expect.arrayContaining(['first', 'third']))
    expect(references).not.toContain('thrower')
  })

  it('decides each unit as if the units had run one after the other', async () => {
    const workspaceId = await workspaceWith(store, 100)
    const outcomes = await Promise.allSettled(
      [40, 40, 40].map((n, i) => take(store, workspaceId, n, `c${i}`)),
    )
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2)
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []))
    expect(refused).toHaveLength(1)
    expect(refused[0]).toBeInstanceOf(AppError)
    expect(refused[0].code).toBe('insufficient_credits')
    expect(await currentBalance(store.db, workspaceId)).toBe(20)
  })
})

describe('batched transactions on a SQLite file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-batch-'))
  const file = path.join(dir, 'herald.db')
  let store: Store
  let reader: SqliteDatabase.Database
  beforeAll(async () => {
    store = await openStore({ sqlitePath: file })
    reader = new SqliteDatabase(file, { readonly: true })
  })
  afterAll(async () => {
    reader.close()
    await store.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  const balanceSeenByAnotherConnection = (workspaceId: string) =>
    (
      reader.prepare('SELECT credit_balance FROM workspaces WHERE id = ?').get(workspaceId) as {
        credit_balance: number
      }
    ).credit_balance

  it('runs units that arrive together in one transaction and answers them after its commit', async () => {
    const workspaceId = await workspaceWith(store, 100)
    const log: string[] = []
    const unit = (n: number) =>
      store
        .batchedTransaction(async (tx) => {
          log.push(`ran ${n}`)
          return charge(tx, { workspaceId, amount: n, reason: 'test' }, clock.now())
        })
        .then((balance) => {
          log.push(`answered ${n}: committed balance ${balanceSeenByAnotherConnection(workspaceId)}`)
          return balance
        })
    await Promise.all([unit(1), unit(2), unit(3)])
    expect(log).toEqual([
      'ran 1',
      'ran 2',
      'ran 3',
      'answered 1: committed balance 94',
      'answered 2: committed balance 94',
      'answered 3: committed balance 94',
    ])
  })

  it('refuses, in arrival order, the unit the balance can no longer pay', async () => {
    const workspaceId = await workspaceWith(store, 100)
    const outcomes = await Promise.allSettled(
      [40, 40, 40].map((n, i) => take(store, workspaceId, n, `c${i}`)),
    )
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected'])
    expect(outcomes.slice(0, 2).map((o) => (o as PromiseFulfilledResult<number>).value)).toEqual([60, 20])
  })

  it('lets a unit queued during a commit join the next one', async () => {
    const workspaceId = await workspaceWith(store, 100)
    const first = take(store, workspaceId, 5, 'first')
    const second = first.then(() => take(store, workspaceId, 7, 'second'))
    expect(await first).toBe(95)
    expect(await second).toBe(88)
    expect(balanceSeenByAnotherConnection(workspaceId)).toBe(88)
  })
})
