import { spawn } from 'node:child_process'
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { type Kysely, sql } from 'kysely'
import type { Database } from './schema.js'

/**
 * Postgres copies through the PostgreSQL client programs: `pg_dump` writes a plain SQL dump of Herald's
 * schema, `psql` plays one back in a single transaction. Neither is a dependency of Herald: when they are
 * not installed, {@link PostgresToolMissing} says which package brings them and which command to run.
 */

export class PostgresToolMissing extends Error {
  override name = 'PostgresToolMissing'
  constructor(
    readonly tool: 'pg_dump' | 'psql',
    readonly command: string,
  ) {
    super(
      `${tool} is not installed here. Install the PostgreSQL client programs of your server's major version or newer (Debian and Ubuntu: apt-get install postgresql-client), or run it yourself: ${command}`,
    )
  }
}

/** The dump's options: plain SQL, Herald's schema only, playable over an older copy (drops first). */
export const dumpArguments = (schema: string) => [
  '--format=plain',
  '--no-owner',
  '--no-privileges',
  '--clean',
  '--if-exists',
  `--schema=${schema}`,
]

/**
 * The connection settings of a postgres:// URL as libpq's environment variables, so that no password is
 * ever on a command line (where other users of the machine could read it).
 */
export function libpqEnvironment(databaseUrl: string): Record<string, string> {
  const url = new URL(databaseUrl)
  const env: Record<string, string> = {}
  if (url.hostname) env.PGHOST = decodeURIComponent(url.hostname.replace(/^\[|\]$/g, ''))
  if (url.port) env.PGPORT = url.port
  if (url.username) env.PGUSER = decodeURIComponent(url.username)
  if (url.password) env.PGPASSWORD = decodeURIComponent(url.password)
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''))
  if (database) env.PGDATABASE = database
  const host = url.searchParams.get('host')
  if (host) env.PGHOST = host
  const sslmode = url.searchParams.get('sslmode')
  if (sslmode) env.PGSSLMODE = sslmode
  const options = url.searchParams.get('options')
  if (options) env.PGOPTIONS = options
  return env
}

/** The URL as a person would type it to run a command by hand, with the password left out. */
const urlWithoutPassword = (databaseUrl: string) => {
  const url = new URL(databaseUrl)
  url.password = ''
  return url.href
}

/** Runs a client program; resolves with its stderr, rejects with it (or {@link PostgresToolMissing}). */
function runClient(
  tool: 'pg_dump' | 'psql',
  args: string[],
  databaseUrl: string,
  byHand: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, {
      env: { ...process.env, ...libpqEnvironment(databaseUrl) },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 8_000) stderr += chunk.toString('utf8')
    })
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new PostgresToolMissing(tool, byHand) : error),
    )
    child.once('close', (code) =>
      code === 0 ? resolve(stderr) : reject(new Error(`${tool} failed (exit ${code}): ${stderr.trim()}`)),
    )
  })
}

/**
 * Dumps Herald's schema into `target` from one snapshot, and runs `inSnapshot` on a connection that sees
 * exactly what the dump holds (the transaction exports its snapshot and pg_dump uses it), so counts taken
 * there are the dump's own counts even while the service keeps writing.
 */
export async function dumpPostgres<T>(
  db: Kysely<Database>,
  databaseUrl: string,
  target: string,
  inSnapshot: (connection: Kysely<Database>, schema: string) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY`.execute(connection)
    try {
      const { rows } = await sql<{ snapshot: string; schema: string }>`
        SELECT pg_export_snapshot() AS snapshot, current_schema() AS schema`.execute(connection)
      const { snapshot, schema } = rows[0] as { snapshot: string; schema: string }
      const found = await inSnapshot(connection, schema)
      const args = [...dumpArguments(schema), `--snapshot=${snapshot}`, `--file=${target}`]
      const byHand = `pg_dump ${dumpArguments(schema).join(' ')} "${urlWithoutPassword(databaseUrl)}" > herald.sql`
      await runClient('pg_dump', args, databaseUrl, byHand)
      return found
    } finally {
      await sql`COMMIT`.execute(connection)
    }
  })
}

/** Plays a dump back into the database of `databaseUrl` in one transaction: all of it, or nothing. */
export async function playDump(databaseUrl: string, file: string): Promise<void> {
  const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '--single-transaction', '-f', file]
  await runClient('psql', args, databaseUrl, `psql -X -v ON_ERROR_STOP=1 --single-transaction -f ${file}`)
}

/**
 * The rows of each table in a plain dump, counted from its COPY sections (one line per row: COPY's text
 * format writes a newline inside a value as `\n`), so a dump is checked without a server to load it into.
 */
export async function countDumpRows(file: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  let table: string | undefined
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  })
  for await (const line of lines) {
    if (table === undefined) {
      const copy = /^COPY (?:"?[^".\s]+"?\.)?"?([^".\s(]+)"? \(.*\) FROM stdin;$/.exec(line)
      if (copy) {
        table = copy[1] as string
        counts.set(table, 0)
      }
    } else if (line === '\\.') table = undefined
    else counts.set(table, (counts.get(table) ?? 0) + 1)
  }
  return counts
}

/** Whether Herald's tables exist in the schema `db` uses (a restore refuses to play over them unforced). */
export async function holdsHeraldTables(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`
    SELECT to_regclass(current_schema() || '.kysely_migration')::text AS found`.execute(db)
  return Boolean(rows[0]?.found)
}
