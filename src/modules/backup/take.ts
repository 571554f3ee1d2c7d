import fs from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { Clock } from '../../platform/clock.js'
import type { Config } from '../../platform/config.js'
import { secretKeyLocation } from '../../platform/crypto/secret-key.js'
import type { Vault } from '../../platform/crypto/vault.js'
import type { Store } from '../../platform/db/db.js'
import { fileStamp } from '../../platform/db/sqlite-copy.js'
import { HERALD_VERSION } from '../../platform/version.js'
import { createMediaStorage, type MediaStorage, StorageNotFoundError } from '../media/storage.js'
import { type ArchiveWriter, CHECKSUMS_ENTRY, createArchiveWriter, MANIFEST_ENTRY } from './archive.js'
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  type BackupChecksums,
  type BackupManifest,
  keyCheckAt,
} from './manifest.js'
import { MEDIA_LIST_ENTRY, SETTINGS_ENTRY } from './read.js'
import { finishRun, startRun } from './runs.js'
import { publicSettings } from './settings.js'
import { type MediaObject, takeSnapshot } from './snapshot.js'

/**
 * `herald backup` and the scheduled backups: one consistent copy of the database, the hosted media its rows
 * name, and the settings that are not secrets, in one archive (src/modules/backup/archive.ts). Secrets stay
 * sealed as the database holds them; the vault key is never written, and the result says where it is.
 */

export interface BackupDeps {
  config: Config
  store: Store
  vault: Vault
  clock: Clock
  /** Where the media is read from; by default the storage of the config. */
  storage?: MediaStorage
}

export interface BackupResult {
  file: string
  bytes: number
  manifest: BackupManifest
  /** Media whose row the copy holds but whose bytes were already gone (removed by retention meanwhile). */
  missingMedia: string[]
  /** Where the vault key is: it is not in the archive, and a restore needs it. */
  keyLocation: string
}

export const ARCHIVE_PREFIX = 'herald-backup-'
export const ARCHIVE_SUFFIX = '.tar.gz'

/**
 * Takes a backup into `dir` (default HERALD_BACKUP_DIR), recorded as a run (`runId` when the schedule already
 * claimed one). A failure removes everything written and is recorded with its reason.
 */
export async function takeBackup(
  deps: BackupDeps,
  options: { dir?: string; runId?: string } = {},
): Promise<BackupResult> {
  const { store, clock } = deps
  const dir = path.resolve(options.dir ?? deps.config.backups.dir)
  const runId = options.runId ?? (await startRun(store.db, 'command', clock.now()))
  try {
    await mkdir(dir, { recursive: true })
    const result = await writeBackup(deps, dir, runId)
    await finishRun(store.db, runId, { ok: true, file: result.file, bytes: result.bytes }, clock.now())
    return result
  } catch (error) {
    await finishRun(store.db, runId, { ok: false, error: (error as Error).message }, clock.now())
    throw error
  }
}

async function writeBackup(deps: BackupDeps, dir: string, id: string): Promise<BackupResult> {
  const { config, store, vault, clock } = deps
  const startedAt = clock.now()
  const name = `${ARCHIVE_PREFIX}${fileStamp(startedAt)}-${id.slice(-6)}`
  const file = path.join(dir, `${name}${ARCHIVE_SUFFIX}`)
  const scratch = await mkdtemp(path.join(dir, '.herald-backup-'))
  let archive: ArchiveWriter | undefined
  try {
    const snapshot = await takeSnapshot(store, config.databaseUrl, scratch)
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      formatVersion: BACKUP_FORMAT_VERSION,
      id,
      createdAt: new Date(startedAt).toISOString(),
      heraldVersion: HERALD_VERSION,
      database: store.dialect,
      ...(snapshot.postgresSchema ? { postgresSchema: snapshot.postgresSchema } : {}),
      schemaVersion: snapshot.migrations.at(-1) ?? '',
      migrations: snapshot.migrations,
      counts: snapshot.counts,
      databaseEntry: snapshot.entry,
      media: { driver: config.media.driver },
      secrets: { ...snapshot.sealed, keyCheck: vault.seal(keyCheckAt(id), id) },
    }
    archive = createArchiveWriter(file, name)
    await archive.addText(MANIFEST_ENTRY, `${JSON.stringify(manifest, null, 2)}\n`)
    await archive.addFile(snapshot.entry, snapshot.file)
    await rm(snapshot.file)
    await archive.addText(SETTINGS_ENTRY, `${JSON.stringify(publicSettings(config), null, 2)}\n`)
    await archive.addText(MEDIA_LIST_ENTRY, `${JSON.stringify(snapshot.media)}\n`)
    const storage = deps.storage ?? createMediaStorage(config.media)
    const missingMedia = await addMedia(archive, storage, snapshot.media, scratch)
    const checksums: BackupChecksums = { sha256: { ...archive.checksums }, missingMedia }
    await archive.addText(CHECKSUMS_ENTRY, `${JSON.stringify(checksums, null, 2)}\n`)
    const bytes = await archive.finish()
    return {
      file,
      bytes,
      manifest,
      missingMedia,
      keyLocation: secretKeyLocation(config.secretKey, config.dataDir),
    }
  } catch (error) {
    await archive?.abandon()
    throw error
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/**
 * Each hosted file the copy names, fetched from storage into the scratch folder one at a time (its size must
 * be known before its entry starts) and added as `media/<storage key>`. A file already gone is listed.
 */
async function addMedia(
  archive: ArchiveWriter,
  storage: MediaStorage,
  objects: MediaObject[],
  scratch: string,
): Promise<string[]> {
  const missing: string[] = []
  const temporary = path.join(scratch, 'media-object')
  for (const object of objects) {
    try {
      await pipeline(await storage.read(object.key), fs.createWriteStream(temporary, { mode: 0o600 }))
    } catch (error) {
      if (!(error instanceof StorageNotFoundError)) throw error
      missing.push(object.key)
      continue
    }
    await archive.addFile(`media/${object.key}`, temporary)
    await rm(temporary)
  }
  return missing
}
