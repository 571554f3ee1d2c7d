import path from 'node:path'
import type { Kysely } from 'kysely'
import type { Store } from '../../platform/db/db.js'
import { dumpPostgres } from '../../platform/db/postgres-dump.js'
import type { Database } from '../../platform/db/schema.js'
import { copySqliteOnline, openSqliteFile } from '../../platform/db/sqlite-copy.js'
import { appliedMigrationNames, type BackupCounts, countRows, sealedKeyIds } from './manifest.js'

/**
 * The database part of a backup: one consistent copy, and what is read from that same copy (counts, keys,
 * migrations, the hosted media to take along), so the manifest describes exactly the rows the copy holds.
 */

export interface MediaObject {
  key: string
  contentType: string
  size: number
}

export interface Snapshot {
  /** The file written in `scratch`, and its name in the archive. */
  file: string
  entry: 'database.sqlite' | 'database.sql'
  postgresSchema?: string
  counts: BackupCounts
  sealed: { sealedValues: number; keyIds: string[] }
  migrations: string[]
  media: MediaObject[]
}

async function readSnapshot(db: Kysely<Database>) {
  const [counts, sealed, migrations, media] = await Promise.all([
    countRows(db),
    sealedKeyIds(db),
    appliedMigrationNames(db),
    db.selectFrom('media').select(['storage_key', 'content_type', 'size']).orderBy('id').execute(),
  ])
  return {
    counts,
    sealed,
    migrations,
    media: media.map((m) => ({ key: m.storage_key, contentType: m.content_type, size: Number(m.size) })),
  }
}

/** Copies the store's database into `scratch` (a folder that exists and is empty). */
export async function takeSnapshot(
  store: Store,
  databaseUrl: string | undefined,
  scratch: string,
): Promise<Snapshot> {
  if (store.dialect === 'postgres') {
    if (!databaseUrl) throw new Error('A Postgres store without DATABASE_URL cannot be dumped')
    const file = path.join(scratch, 'database.sql')
    let postgresSchema = ''
    const read = await dumpPostgres(store.db, databaseUrl, file, (connection, schema) => {
      postgresSchema = schema
      return readSnapshot(connection)
    })
    return { file, entry: 'database.sql', postgresSchema, ...read }
  }
  if (!store.sqliteFile) throw new Error('A database in memory has no file to back up')
  const file = path.join(scratch, 'database.sqlite')
  await copySqliteOnline(store.sqliteFile, file)
  const copy = openSqliteFile(file, { readonly: true })
  try {
    return { file, entry: 'database.sqlite', ...(await readSnapshot(copy)) }
  } finally {
    await copy.destroy()
  }
}
