import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { newId } from '../../src/lib/ids.js'
import { openStore, type Store } from '../../src/store/db.js'
import type { PostRow, TargetRow } from '../../src/store/posts.js'
import { postgresTestUrl } from './backends.js'

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

/** Inserts `count` posts of one target each, due at `runAt`, directly (fast seeding for load tests). */
export async function seedDueTargets(
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
  const ids: string[] = []
  const now = Date.now()
  for (let start = 0; start < input.count; start += 500) {
    await store.db.transaction().execute(async (tx) => {
      const posts: PostRow[] = []
      const targets: TargetRow[] = []
      for (let i = start; i < Math.min(input.count, start + 500); i++) {
        const postId = newId(now)
        const content = input.contentOf?.(i) ?? `burst ${i}`
        posts.push({
          id: postId,
          workspace_id: input.workspaceId,
          author_id: input.authorId,
          content,
          media_urls: '[]',
          youtube: null,
          variants: '{}',
          status: 'scheduled',
          schedule_date: '2030-01-01',
          schedule_time: '00:00',
          timezone: 'UTC',
          due_at: input.runAt,
          publish_immediately: 0,
          attempts: 0,
          last_error: '',
          created_at: now,
          updated_at: now,
          published_at: null,
        })
        targets.push({
          id: newId(now),
          post_id: postId,
          workspace_id: input.workspaceId,
          connection_id: input.connectionId,
          position: 0,
          platform: 'twitter',
          profile_id: 'tw-1',
          username: 'acme',
          content,
          media_urls: '[]',
          youtube: null,
          status: 'pending',
          run_at: input.runAt + i,
          lease_owner: null,
          lease_expires_at: null,
          attempts: 0,
          remote_id: null,
          url: null,
          error: null,
          upload_error: null,
          stuck_at: null,
          published_at: null,
          created_at: now,
          updated_at: now,
        })
        ids.push(postId)
      }
      await tx.insertInto('posts').values(posts).execute()
      await tx.insertInto('targets').values(targets).execute()
    })
  }
  return ids
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
