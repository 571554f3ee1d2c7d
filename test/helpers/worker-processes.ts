import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { openStore, type Store } from '../../src/platform/db/db.js'
import { postgresTestUrl } from './backends.js'
import { seedScheduledPosts } from './seed.js'

/** A database both the test and separate worker processes open: a SQLite file or a Postgres schema. */
export interface SharedDatabase {
  name: 'sqlite' | 'postgres'
  env: Record<string, string>
  open(): Promise<Store>
  drop(): Promise<void>
}

export function sharedSqlite(): SharedDatabase {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-shared-'))
  return {
    name: 'sqlite',
    env: { WORKER_DATA_DIR: dir },
    open: () => openStore({ sqlitePath: path.join(dir, 'herald.sqlite') }),
    drop: async () => {},
  }
}

export function sharedPostgres(): SharedDatabase {
  const url = postgresTestUrl as string
  const schema = `herald_proc_${randomBytes(5).toString('hex')}`
  const withSchema = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`
  return {
    name: 'postgres',
    env: {
      WORKER_DATABASE_URL: withSchema,
      WORKER_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'herald-shared-')),
    },
    open: () => openStore({ databaseUrl: url, schema, poolSize: 10 }),
    drop: async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await client.end()
    },
  }
}

export interface WorkerProcess {
  child: ChildProcess
  exited: Promise<number | null>
  stderr: string[]
}

/** Starts test/fixtures/worker-process.ts as its own Node process and waits until it is ready. */
export async function startWorkerProcess(
  db: SharedDatabase,
  env: Record<string, string>,
): Promise<WorkerProcess> {
  const nodeArgs = process.env.WORKER_NODE_ARGS ? process.env.WORKER_NODE_ARGS.split(' ') : []
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'test/fixtures/worker-process.ts'], {
    env: { ...process.env, ...db.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const stderr: string[] = []
  child.stderr?.on('data', (chunk) => stderr.push(chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      if (chunk.toString().includes('ready')) resolve()
    })
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${stderr.join('')}`)))
  })
  return { child, exited, stderr }
}

/** Inserts `count` one-target posts due from `runAt` (1 ms apart), directly (fast seeding for load tests). */
export function seedDueTargets(
  store: Store,
  input: {
    workspaceId: string
    authorId: string
    connectionId: string
    count: number
    runAt: number
    contentOf?: (i: number) => string
  },
): Promise<string[]> {
  return seedScheduledPosts(store, {
    ...input,
    runAt: (i) => input.runAt + i,
    contentOf: input.contentOf ?? ((i) => `burst ${i}`),
  })
}

export async function targetCounts(store: Store) {
  const rows = await store.db
    .selectFrom('targets')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute()
  const leased = await store.db
    .selectFrom('targets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('lease_owner', 'is not', null)
    .executeTakeFirstOrThrow()
  const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0)
  return {
    pending: count('pending'),
    published: count('published'),
    failed: count('failed'),
    leased: Number(leased.n),
  }
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}
