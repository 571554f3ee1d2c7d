import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openStore, type Store } from '../../src/platform/db/db.js'

/** The store backends every store and worker suite runs on: SQLite always, Postgres when configured. */
export interface Backend {
  name: 'sqlite' | 'postgres'
  open(): Promise<Store>
}

const postgresUrl = process.env.HERALD_TEST_DATABASE_URL

export const backends: Backend[] = [
  { name: 'sqlite', open: () => openStore({ sqlitePath: ':memory:' }) },
  ...(postgresUrl ? [{ name: 'postgres' as const, open: () => openPostgresSchema(postgresUrl) }] : []),
]

if (!postgresUrl) {
  process.stderr.write(
    'HERALD_TEST_DATABASE_URL is not set: Postgres runs of the store and worker suites are skipped.\n',
  )
}

/** A fresh schema per store so parallel test files never see each other's rows; dropped on destroy. */
async function openPostgresSchema(url: string): Promise<Store> {
  const schema = `herald_test_${randomBytes(6).toString('hex')}`
  const store = await openStore({ databaseUrl: url, schema, poolSize: 20 })
  return {
    ...store,
    async destroy() {
      await store.destroy()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await client.end()
    },
  }
}

export const postgresTestUrl = postgresUrl
