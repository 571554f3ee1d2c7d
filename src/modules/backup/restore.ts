import fs from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import type { Config } from '../../platform/config.js'
import type { Vault } from '../../platform/crypto/vault.js'
import { type Db, heraldMigrations, openStore } from '../../platform/db/db.js'
import { countDumpRows, playDump } from '../../platform/db/postgres-dump.js'
import { fileStamp } from '../../platform/db/sqlite-copy.js'
import { newId } from '../../platform/ids.js'
import { createMediaStorage } from '../media/storage.js'
import { ArchiveError } from './archive.js'
import { checkBackupKey } from './key-check.js'
import {
  type BackupCounts,
  type BackupManifest,
  COUNTED_TABLES,
  countRows,
  type MediaList,
} from './manifest.js'
import { readBackup, SETTINGS_ENTRY } from './read.js'
import { settleRunsOpenAtBackup } from './runs.js'
import { dataHeldAt, type Placement, place, sqliteFileOf } from './target.js'

/**
 * `herald restore FILE`: puts a backup back into the configured data folder (or Postgres database and media
 * store). It refuses, changing nothing, when the target holds data and `force` is not given, when the backup
 * is of the other database or of a newer Herald, and when the keys configured here do not open its secrets:
 * all decided from the manifest, before anything is written. Then everything is extracted into a staging
 * folder and checked whole (checksums, counts) before any of it is put in place; the migrations run on the
 * staged copy, and the database goes in last, so a failure at any step leaves the target as it was.
 */

export class RestoreRefused extends Error {
  override name = 'RestoreRefused'
}

export interface RestoreReport {
  file: string
  backup: Pick<BackupManifest, 'id' | 'createdAt' | 'heraldVersion' | 'schemaVersion'>
  /** Counted in the restored database, after its migrations. */
  counts: BackupCounts
  restoredMedia: number
  missingMedia: string[]
  /** Where what the target held before went (with force); undefined when it held nothing. */
  replacedKeptAt: string | undefined
  /** The settings the backed-up Herald ran with (no secrets), for setting this one up alike. */
  settingsFile: string
  key: string
}

export async function restoreBackup(
  config: Config,
  file: string,
  options: { force: boolean; now?: number },
): Promise<RestoreReport> {
  const now = options.now ?? Date.now()
  if (!fs.existsSync(file)) throw new RestoreRefused(`No file ${file}`)
  const held = await dataHeldAt(config)
  if (held.length > 0 && !options.force)
    throw new RestoreRefused(
      `This Herald already holds data (${held.join('; ')}). Restore into an empty data folder (HERALD_DATA_DIR) or database, or run again with --force to put that aside and replace it. Nothing was changed.`,
    )
  const staging = path.join(config.dataDir, `.restore-${newId(now)}`)
  let vault: Vault | undefined
  let keyWords = ''
  try {
    const read = await readBackup(file, async (manifest) => {
      refuseUnrestorable(config, manifest)
      const verdict = checkBackupKey(config, manifest)
      if (!verdict.ok) throw new RestoreRefused(verdict.problem)
      vault = verdict.vault
      keyWords = verdict.note
      await mkdir(staging, { recursive: true, mode: 0o700 })
      return { dir: staging, media: true }
    })
    if (read.problems.length > 0)
      throw new RestoreRefused(
        `The backup does not check out, so nothing was restored:\n  ${read.problems.join('\n  ')}`,
      )
    const { manifest } = read
    const staged = path.join(staging, manifest.databaseEntry)
    const archive = { file: path.resolve(file), bytes: fs.statSync(file).size }
    const aside = path.join(config.dataDir, `replaced-by-restore-${fileStamp(now)}`)
    const restored = { staged, manifest, archive, now, vault }
    await putMediaInBucket(config, staging, read.mediaList, read.mediaKeys)
    const { counts, movedAside } =
      manifest.database === 'sqlite'
        ? await restoreSqlite(config, restored, staging, aside)
        : await restorePostgres(config, restored, staging, aside)
    const settingsFile = path.join(config.dataDir, 'settings-from-backup.json')
    fs.renameSync(path.join(staging, SETTINGS_ENTRY), settingsFile)
    const { id, createdAt, heraldVersion, schemaVersion } = manifest
    return {
      file: path.resolve(file),
      backup: { id, createdAt, heraldVersion, schemaVersion },
      counts,
      restoredMedia: read.mediaKeys.length,
      missingMedia: read.checksums.missingMedia,
      replacedKeptAt: movedAside ? aside : undefined,
      settingsFile,
      key: keyWords,
    }
  } catch (error) {
    if (error instanceof ArchiveError) throw new RestoreRefused(`${error.message}. Nothing was changed.`)
    throw error
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/** A backup of the other database, or of a Herald that knows migrations this one does not. */
function refuseUnrestorable(config: Config, manifest: BackupManifest) {
  const here = config.databaseUrl ? 'postgres' : 'sqlite'
  if (manifest.database !== here)
    throw new RestoreRefused(
      manifest.database === 'sqlite'
        ? 'This backup is of a Herald on SQLite; this one is configured for Postgres (DATABASE_URL). Restore it with DATABASE_URL unset (into a data folder), then move it with your own tools if you must. Nothing was changed.'
        : 'This backup is of a Herald on Postgres; set DATABASE_URL to the database to restore it into. Nothing was changed.',
    )
  const known = new Set(Object.keys(heraldMigrations(here)))
  const unknown = manifest.migrations.filter((name) => !known.has(name))
  if (unknown.length > 0)
    throw new RestoreRefused(
      `This backup was made by a newer Herald (${manifest.heraldVersion}; its database has migrations this one does not know: ${unknown.join(', ')}). Upgrade Herald first. Nothing was changed.`,
    )
}

interface Restored {
  staged: string
  manifest: BackupManifest
  archive: { file: string; bytes: number }
  now: number
  vault: Vault | undefined
}

/**
 * Migrates and counts the staged copy where it is, then puts it in place with the media folder in one swap
 * (the old files aside), so the folder ends wholly restored or as it was.
 */
async function restoreSqlite(config: Config, restored: Restored, staging: string, aside: string) {
  const { staged, vault } = restored
  const store = await openStore({
    sqlitePath: staged,
    copyBeforeMigrating: false,
    ...(vault ? { vault } : {}),
  })
  let counts: BackupCounts
  try {
    await settleRuns(store.db, restored)
    counts = checkedCounts(await countRows(store.db), restored.manifest)
  } finally {
    await store.destroy()
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${staged}${suffix}`, { force: true })
  }
  const file = sqliteFileOf(config)
  const placed = await place(
    [
      ...localMediaPlacement(config, staging),
      { from: undefined, to: `${file}-wal` },
      { from: undefined, to: `${file}-shm` },
      { from: staged, to: file },
    ],
    aside,
  )
  return { counts, movedAside: placed.movedAside }
}

/**
 * Checks the dump's rows against the manifest, swaps the media folder in, then plays the dump back in one
 * transaction (all of it or nothing; a failure puts the media folder back), then migrates and counts it.
 */
async function restorePostgres(config: Config, restored: Restored, staging: string, aside: string) {
  const { staged, manifest, vault } = restored
  const databaseUrl = config.databaseUrl as string
  const rows = await countDumpRows(staged)
  checkedCounts(
    Object.fromEntries(
      Object.entries(COUNTED_TABLES).map(([name, table]) => [name, rows.get(table) ?? 0]),
    ) as BackupCounts,
    manifest,
  )
  const placed = await place(localMediaPlacement(config, staging), aside)
  try {
    await playDump(databaseUrl, staged)
  } catch (error) {
    await placed.undo()
    throw error
  }
  const store = await openStore({ databaseUrl, poolSize: 2, ...(vault ? { vault } : {}) })
  try {
    await settleRuns(store.db, restored)
    return { counts: checkedCounts(await countRows(store.db), manifest), movedAside: placed.movedAside }
  } finally {
    await store.destroy()
  }
}

const settleRuns = (db: Db, { manifest, archive, now }: Restored) =>
  settleRunsOpenAtBackup(db, { id: manifest.id, ...archive, createdAt: Date.parse(manifest.createdAt) }, now)

function checkedCounts(counts: BackupCounts, manifest: BackupManifest): BackupCounts {
  const wrong = (Object.keys(counts) as (keyof BackupCounts)[]).filter(
    (k) => counts[k] !== manifest.counts[k],
  )
  if (wrong.length > 0)
    throw new RestoreRefused(
      `The restored database's counts differ from the manifest's (${wrong.map((k) => `${k}: ${counts[k]} restored, ${manifest.counts[k]} in the manifest`).join('; ')}), so nothing was put in place.`,
    )
  return counts
}

/** Local storage: the staged media folder becomes the media folder (none on S3). */
function localMediaPlacement(config: Config, staging: string): Placement[] {
  if (config.media.driver !== 'local') return []
  const stagedMedia = path.join(staging, 'media')
  fs.mkdirSync(stagedMedia, { recursive: true })
  return [{ from: stagedMedia, to: config.media.dir }]
}

/**
 * S3: each file is put back in the bucket before the database goes in (a file put for a restore that then
 * fails is one its database never names; the sweep of unnamed media does not reach it, it is only bytes).
 */
async function putMediaInBucket(config: Config, staging: string, list: MediaList, keys: string[]) {
  if (config.media.driver !== 's3') return
  const storage = createMediaStorage(config.media)
  const types = new Map(list.map((m) => [m.key, m.contentType]))
  for (const key of keys) {
    const source = path.join(staging, 'media', ...key.split('/'))
    const contentType = types.get(key) ?? 'application/octet-stream'
    await storage.putFile(key, source, { contentType, size: fs.statSync(source).size })
  }
}
