import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { type Kysely, sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import {
  appliedMigrations,
  heraldMigrations,
  migrate,
  openStore,
  type Store,
} from '../../src/platform/db/db.js'
import { KEPT_MIGRATION_COPIES } from '../../src/platform/db/sqlite-copy.js'
import { backends } from '../helpers/backends.js'

const addsColumn = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('workspaces').addColumn('test_motto', 'varchar(40)').execute()
  },
}

/** A later migration that changes two things, then fails: neither change may stay. */
const failsHalfway = {
  async up(db: Kysely<unknown>) {
    await db.schema.createTable('test_half_done').addColumn('id', 'varchar(24)').execute()
    await sql`UPDATE workspaces SET name = 'renamed by a failing migration'`.execute(db)
    throw new Error('this migration fails on purpose')
  },
}

async function seededWorkspace(store: Store) {
  await store.db
    .insertInto('workspaces')
    .values({ id: 'w'.repeat(24), name: 'Acme', plan: 'free', credit_balance: 10, created_at: 1 })
    .execute()
}

const workspaceNames = async (store: Store) =>
  (await store.db.selectFrom('workspaces').select('name').execute()).map((r) => r.name)

describe('migrations on a SQLite file', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
  })
  const dataFile = () => {
    const dir = fs.mkdtempSync(path.join(tmpdir(), 'herald-migrate-'))
    dirs.push(dir)
    return path.join(dir, 'herald.sqlite')
  }

  it('copies a database that holds data next to itself before migrating it, and says where', async () => {
    const file = dataFile()
    const store = await openStore({ sqlitePath: file })
    await seededWorkspace(store)
    const copies: string[] = []
    await migrate(store, undefined, {
      migrations: { ...heraldMigrations('sqlite'), '900-test-motto': addsColumn },
      onCopy: (copy) => copies.push(copy),
    })
    await store.destroy()
    expect(copies).toHaveLength(1)
    const copy = copies[0] as string
    expect(path.dirname(copy)).toBe(path.dirname(file))
    expect(path.basename(copy)).toMatch(/^herald\.before-migrating-\d{8}T\d{6}Z\.sqlite$/)
    // The copy is the database as it was: the workspace, and no column of the new migration.
    const before = new SqliteDatabase(copy, { readonly: true })
    expect(before.prepare('SELECT name FROM workspaces').all()).toEqual([{ name: 'Acme' }])
    const columns = before.prepare("SELECT name FROM pragma_table_info('workspaces')").all()
    expect(columns.map((c) => (c as { name: string }).name)).not.toContain('test_motto')
    before.close()
  })

  it('takes no copy of a new database, nor of one with nothing pending', async () => {
    const file = dataFile()
    const copies: string[] = []
    const store = await openStore({ sqlitePath: file, onCopyBeforeMigrating: (c) => copies.push(c) })
    await store.destroy()
    const again = await openStore({ sqlitePath: file, onCopyBeforeMigrating: (c) => copies.push(c) })
    await again.destroy()
    expect(copies).toEqual([])
    expect(fs.readdirSync(path.dirname(file)).filter((n) => n.includes('before-migrating'))).toEqual([])
  })

  it(`keeps the newest ${KEPT_MIGRATION_COPIES} copies taken before migrating`, async () => {
    const file = dataFile()
    const dir = path.dirname(file)
    for (const stamp of ['20200101T000000Z', '20200102T000000Z', '20200103T000000Z', '20200104T000000Z'])
      fs.writeFileSync(path.join(dir, `herald.before-migrating-${stamp}.sqlite`), 'old copy')
    const store = await openStore({ sqlitePath: file })
    await seededWorkspace(store)
    await migrate(store, undefined, {
      migrations: { ...heraldMigrations('sqlite'), '900-test-motto': addsColumn },
    })
    await store.destroy()
    const kept = fs.readdirSync(dir).filter((n) => n.includes('before-migrating'))
    expect(kept).toHaveLength(KEPT_MIGRATION_COPIES)
    expect(kept).not.toContain('herald.before-migrating-20200101T000000Z.sqlite')
    expect(kept).not.toContain('herald.before-migrating-20200102T000000Z.sqlite')
  })
})

describe.each(backends)('a failing migration on $name', (backend) => {
  it('leaves the database as it was: no table, no changed row, nothing recorded', async () => {
    const dir = fs.mkdtempSync(path.join(tmpdir(), 'herald-migrate-'))
    const store =
      backend.name === 'sqlite'
        ? await openStore({ sqlitePath: path.join(dir, 'herald.sqlite') })
        : await backend.open()
    try {
      await seededWorkspace(store)
      const before = await appliedMigrations(store, await currentSchema(store))
      const copies: string[] = []
      const run = migrate(store, undefined, {
        migrations: {
          ...heraldMigrations(store.dialect),
          '900-test-motto': addsColumn,
          '901-test-fails-halfway': failsHalfway,
        },
        onCopy: (copy) => copies.push(copy),
      })
      await expect(run).rejects.toThrow(/901-test-fails-halfway failed: this migration fails on purpose/)
      if (backend.name === 'sqlite') await expect(run).rejects.toThrow(/as it was before the run; a copy/)
      expect(await workspaceNames(store)).toEqual(['Acme'])
      const tables = await store.db.introspection.getTables()
      expect(tables.map((t) => t.name)).not.toContain('test_half_done')
      const workspaces = tables.find((t) => t.name === 'workspaces')
      expect(workspaces?.columns.map((c) => c.name)).not.toContain('test_motto')
      expect(await appliedMigrations(store, await currentSchema(store))).toEqual(before)
      expect(copies).toHaveLength(backend.name === 'sqlite' ? 1 : 0)
    } finally {
      await store.destroy()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

async function currentSchema(store: Store) {
  if (store.dialect !== 'postgres') return undefined
  return (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(store.db)).rows[0]?.schema
}
