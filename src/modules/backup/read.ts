import fs from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { assertSafeKey } from '../media/storage.js'
import { ArchiveError, CHECKSUMS_ENTRY, MANIFEST_ENTRY, readArchive } from './archive.js'
import {
  type BackupChecksums,
  type BackupManifest,
  checksumsSchema,
  type MediaList,
  manifestSchema,
  mediaListSchema,
} from './manifest.js'

/**
 * Reads a backup archive whole, once: the manifest first (handed to `accept` before anything is written, so a
 * backup that must be refused is refused then), then every entry, hashed as it is read and, where `accept`
 * asked for it, written into a folder. What does not add up (a checksum, an entry too many or missing, the
 * media count) is returned as problems in words.
 */

export const SETTINGS_ENTRY = 'settings.json'
export const MEDIA_LIST_ENTRY = 'media.json'
const MEDIA_PREFIX = 'media/'
/** The manifest, the checksums and the media list are small; a larger one is not Herald's. */
const MAX_TEXT_ENTRY = 64 * 1024 * 1024

export interface Extraction {
  /** The folder to write the entries into (which need not exist yet); undefined: only hash them. */
  dir?: string
  /** Whether the media files are written too (verify needs only the database). */
  media: boolean
}

export interface ReadBackup {
  manifest: BackupManifest
  checksums: BackupChecksums
  mediaList: MediaList
  /** The names of the media files the archive holds (`<id>/<file>`, their storage keys). */
  mediaKeys: string[]
  problems: string[]
}

async function readText(stream: Readable, name: string): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    size += (chunk as Buffer).length
    if (size > MAX_TEXT_ENTRY) throw new ArchiveError(`${name} in the archive is too large to be Herald's`)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function parsed<T>(
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
  text: string,
  name: string,
) {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ArchiveError(`${name} in the archive is not JSON: this is not a Herald backup`)
  }
  const result = schema.safeParse(value)
  if (!result.success) throw new ArchiveError(`${name} in the archive is not a Herald backup's ${name}`)
  return result.data as T
}

async function writeEntry(dir: string, name: string, stream: Readable) {
  const target = path.join(dir, ...name.split('/'))
  await mkdir(path.dirname(target), { recursive: true })
  await pipeline(stream, fs.createWriteStream(target, { mode: 0o600 }))
}

export async function readBackup(
  file: string,
  accept: (manifest: BackupManifest) => Promise<Extraction>,
): Promise<ReadBackup> {
  let manifest: BackupManifest | undefined
  let extraction: Extraction | undefined
  let checksums: BackupChecksums | undefined
  let mediaList: MediaList = []
  const mediaKeys: string[] = []
  const problems: string[] = []
  const computed = await readArchive(file, async ({ name, stream }) => {
    if (!manifest) {
      if (name !== MANIFEST_ENTRY)
        throw new ArchiveError(
          `The archive does not start with ${MANIFEST_ENTRY}: this is not a Herald backup`,
        )
      manifest = parsed(manifestSchema, await readText(stream, name), name)
      extraction = await accept(manifest)
      return
    }
    const dir = extraction?.dir
    if (name === CHECKSUMS_ENTRY) checksums = parsed(checksumsSchema, await readText(stream, name), name)
    else if (name === MEDIA_LIST_ENTRY)
      mediaList = parsed(mediaListSchema, await readText(stream, name), name)
    else if (name.startsWith(MEDIA_PREFIX)) {
      const key = name.slice(MEDIA_PREFIX.length)
      assertSafeKey(key)
      mediaKeys.push(key)
      if (dir && extraction?.media) await writeEntry(dir, name, stream)
    } else if (name === manifest.databaseEntry || name === SETTINGS_ENTRY) {
      if (dir) await writeEntry(dir, name, stream)
    } else problems.push(`The archive holds ${name}, which a Herald backup does not`)
  })
  if (!manifest) throw new ArchiveError(`${file} is empty: this is not a Herald backup`)
  if (!checksums) throw new ArchiveError(`The archive ends without ${CHECKSUMS_ENTRY}: it was cut short`)
  problems.push(...checksumProblems(computed, checksums, manifest))
  if (mediaKeys.length + checksums.missingMedia.length !== manifest.counts.media)
    problems.push(
      `The manifest counts ${manifest.counts.media} media, the archive holds ${mediaKeys.length} and names ${checksums.missingMedia.length} as gone`,
    )
  return { manifest, checksums, mediaList, mediaKeys, problems }
}

function checksumProblems(
  computed: Record<string, string>,
  declared: BackupChecksums,
  manifest: BackupManifest,
): string[] {
  const problems: string[] = []
  for (const [name, sha256] of Object.entries(declared.sha256)) {
    const seen = computed[name]
    if (seen === undefined) problems.push(`${name} is listed in the checksums but not in the archive`)
    else if (seen !== sha256)
      problems.push(`${name} does not match its checksum: the archive was altered or damaged`)
  }
  for (const name of Object.keys(computed))
    if (name !== CHECKSUMS_ENTRY && declared.sha256[name] === undefined)
      problems.push(`${name} is in the archive but has no checksum`)
  if (computed[manifest.databaseEntry] === undefined)
    problems.push(`The archive has no ${manifest.databaseEntry}: it holds no database`)
  return problems
}
