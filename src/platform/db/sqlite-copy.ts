import fs from 'node:fs'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import type { Logger } from '../logger.js'

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
 * Copies the database file `source` into `target` from a connection of its own, so a process that does not
 * hold the database open (`herald backup` beside a running service) takes the same consistent copy.
 */
export function copySqliteOnline(source: string, target: string): void {
  const database = new SqliteDatabase(source, { readonly: true, fileMustExist: true })
  try {
    database.pragma('busy_timeout = 10000')
    database.prepare('VACUUM INTO ?').run(target)
  } finally {
    database.close()
  }
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
