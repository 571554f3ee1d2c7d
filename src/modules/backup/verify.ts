import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import type { Config } from '../../platform/config.js'
import { countDumpRows } from '../../platform/db/postgres-dump.js'
import { openSqliteFile } from '../../platform/db/sqlite-copy.js'
import { checkBackupKey } from './key-check.js'
import {
  appliedMigrationNames,
  type BackupCounts,
  type BackupManifest,
  COUNTED_TABLES,
  countRows,
} from './manifest.js'
import { readBackup } from './read.js'

/**
 * `herald backup verify FILE`: the manifest, every checksum, and the database itself: a SQLite copy is
 * opened (its integrity checked, its rows counted, its migrations read); a Postgres dump's rows are counted
 * from its COPY sections, since playing it back needs a server. Both are compared with the manifest. The
 * archive is read, never changed; only the database entry is written, to a scratch folder removed after.
 */

export interface VerifyReport {
  file: string
  ok: boolean
  manifest: Pick<
    BackupManifest,
    'id' | 'createdAt' | 'heraldVersion' | 'database' | 'schemaVersion' | 'counts'
  >
  /** Counted in the database the archive holds. */
  counts: BackupCounts | undefined
  missingMedia: string[]
  problems: string[]
  /** Whether the keys configured here open the backup's secrets, in words. */
  key: { ok: boolean; words: string }
}

export async function verifyBackup(config: Config, file: string): Promise<VerifyReport> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'herald-verify-'))
  try {
    const read = await readBackup(file, async () => ({ dir: scratch, media: false }))
    const { manifest } = read
    const problems = [...read.problems]
    const database = path.join(scratch, manifest.databaseEntry)
    const found = manifest.database === 'sqlite' ? await inspectSqlite(database) : await inspectDump(database)
    problems.push(...found.problems)
    if (found.counts)
      for (const [name, n] of Object.entries(found.counts) as [keyof BackupCounts, number][])
        if (manifest.counts[name] !== n)
          problems.push(`The manifest counts ${manifest.counts[name]} ${name}, the database holds ${n}`)
    if (found.migrations !== undefined && found.migrations !== manifest.migrations.length)
      problems.push(
        `The manifest lists ${manifest.migrations.length} migrations, the database records ${found.migrations}`,
      )
    const verdict = checkBackupKey(config, manifest)
    const { id, createdAt, heraldVersion, schemaVersion, counts } = manifest
    return {
      file: path.resolve(file),
      ok: problems.length === 0,
      manifest: { id, createdAt, heraldVersion, database: manifest.database, schemaVersion, counts },
      counts: found.counts,
      missingMedia: read.checksums.missingMedia,
      problems,
      key: verdict.ok ? { ok: true, words: verdict.note } : { ok: false, words: verdict.problem },
    }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

interface Inspection {
  counts: BackupCounts | undefined
  migrations: number | undefined
  problems: string[]
}

async function inspectSqlite(file: string): Promise<Inspection> {
  let db: ReturnType<typeof openSqliteFile>
  try {
    db = openSqliteFile(file, { readonly: true })
  } catch (error) {
    return {
      counts: undefined,
      migrations: undefined,
      problems: [`The database does not open: ${(error as Error).message}`],
    }
  }
  try {
    const { rows } = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(db)
    const verdict = rows.map((r) => r.integrity_check).join('; ')
    const problems = verdict === 'ok' ? [] : [`The database fails SQLite's integrity check: ${verdict}`]
    return { counts: await countRows(db), migrations: (await appliedMigrationNames(db)).length, problems }
  } catch (error) {
    return {
      counts: undefined,
      migrations: undefined,
      problems: [`The database does not read: ${(error as Error).message}`],
    }
  } finally {
    await db.destroy()
  }
}

async function inspectDump(file: string): Promise<Inspection> {
  const rows = await countDumpRows(file)
  const missing = Object.values(COUNTED_TABLES).filter((table) => !rows.has(table))
  if (missing.length > 0)
    return {
      counts: undefined,
      migrations: undefined,
      problems: [`The dump holds no rows section for ${missing.join(', ')}`],
    }
  const counts = Object.fromEntries(
    Object.entries(COUNTED_TABLES).map(([name, table]) => [name, rows.get(table) ?? 0]),
  ) as BackupCounts
  return { counts, migrations: rows.get('kysely_migration'), problems: [] }
}
