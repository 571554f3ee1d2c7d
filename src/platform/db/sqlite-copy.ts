import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import type { Logger } from '../logger.js'
import type { Database } from './schema.js'

/**
 * Consistent copies of a live SQLite database. `VACUUM INTO` reads the whole database inside one read
 * transaction and writes a compact, self-contained file: under WAL it never blocks the writers, and unlike
 * a file copy it never catches a page half-written or a WAL not yet checkpointed. (The online backup API
 * restarts whenever another process writes, so under steady writes it may never finish.)
 */

/** How many copies taken before migrating are kept next to the database; older ones go. */
export const KEPT_MIGRATION_COPIES = 3

/** `20261202T163000Z`: a UTC instant that sorts as text and is safe in a file name. */
export const fileStamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

/** Copies the database open on `connection` into `target`, which must not exist. */
// biome-ignore lint/suspicious/noExplicitAny: any database's connection, whatever its tables
export async function vacuumInto(connection: Kysely<any>, target: string): Promise<void> {
  await sql`VACUUM INTO ${target}`.execute(connection)
}

/**
 * The copy, in a thread of its own: better-sqlite3 runs a statement on the thread that calls it, and a long
 * `VACUUM INTO` on the main thread would hold up everything else the process does (a worker renewing its
 * leases). The thread's code is CommonJS given as text, loading the same better-sqlite3 this module uses.
 */
const COPY_THREAD = `
const { workerData, parentPort } = require('node:worker_threads')
const Database = require(workerData.driver)
const database = new Database(workerData.source, { readonly: true, fileMustExist: true })
try {
  database.pragma('busy_timeout = 10000')
  database.prepare('VACUUM INTO ?').run(workerData.target)
} finally {
  database.close()
}
parentPort.postMessage('copied')
`

/**
 * Copies the database file `source` into `target` (which must not exist) from a connection of its own, so a
 * process that does not hold the database open (`herald backup` beside a running service) takes the same
 * consistent copy as one that does.
 */
export function copySqliteOnline(source: string, target: string): Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  return new Promise((resolve, reject) => {
    const thread = new Worker(COPY_THREAD, { eval: true, workerData: { driver, source, target } })
    let copied = false
    thread.once('message', () => {
      copied = true
    })
    thread.once('error', reject)
    thread.once('exit', (code) =>
      copied ? resolve() : reject(new Error(`The copy of ${source} stopped (thread exit ${code})`)),
    )
  })
}

/**
 * Before the pending migrations run on a database that holds data: a copy next to it,
 * `<name>.before-migrating-<UTC stamp>.sqlite`, returned so the caller can say where it is. The newest
 * {@link KEPT_MIGRATION_COPIES} such copies are kept.
 */
export async function copyBeforeMigrating(
  // biome-ignore lint/suspicious/noExplicitAny: any database's connection, whatever its tables
  connection: Kysely<any>,
  file: string,
  now = Date.now(),
): Promise<string> {
  const base = path.basename(file, path.extname(file))
  const dir = path.dirname(file)
  const target = path.join(dir, `${base}.before-migrating-${fileStamp(now)}.sqlite`)
  fs.rmSync(target, { force: true })
  await vacuumInto(connection, target)
  const prefix = `${base}.before-migrating-`
  const copies = fs
    .readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && name.endsWith('.sqlite'))
    .sort()
  for (const old of copies.slice(0, Math.max(0, copies.length - KEPT_MIGRATION_COPIES)))
    fs.rmSync(path.join(dir, old), { force: true })
  return target
}

/** Said (as a warning, so the CLI shows it too) where the copy taken before migrating is. */
export function announceCopy(logger: Logger, file: string): void {
  logger.warn(
    { file },
    `Before running the pending database migrations, a copy of the database as it was is at ${file} (the newest ${KEPT_MIGRATION_COPIES} are kept)`,
  )
}

/** A Kysely over a SQLite file other than the store's (a backup's copy, read to count its rows). */
export function openSqliteFile(file: string, options: { readonly: boolean }): Kysely<Database> {
  const database = new SqliteDatabase(file, { readonly: options.readonly, fileMustExist: true })
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) })
}
