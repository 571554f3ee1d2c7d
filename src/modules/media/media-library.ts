import { createHash, randomBytes } from 'node:crypto'
import { stat, writeFile } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { MediaError } from '../../core/media-port.js'
import { sanitizeFileName } from '../../core/media-url.js'
import type { Db } from '../../platform/db/db.js'
import type { LocalSource } from '../../platform/egress/safe-fetch.js'
import { createTempDir } from '../../platform/temp-files.js'
import { hashFile } from './hash-file.js'
import {
  findMedia,
  findMediaByContent,
  insertMedia,
  linkMediaUse,
  type MediaRecord,
  recordMediaUse,
} from './media-records.js'
import { type MediaStorage, StorageNotFoundError } from './storage.js'

/**
 * The files Herald hosts: bytes in {@link MediaStorage}, one `media` row each, served at
 * `{PUBLIC_BASE_URL}/media/<id>/<name>` where the id is 128 random bits.
 */

/** A file written to storage whose `media` row is not yet committed (see generate_image). */
export interface StagedMedia {
  record: MediaRecord
  /** `{PUBLIC_BASE_URL}/media/<id>/<name>` */
  url: string
  /** Inserts the `media` row, in the caller's transaction. */
  commit(db: Db): Promise<void>
  /** Removes the stored file (the transaction failed). */
  discard(): Promise<void>
}

export interface HostedMedia {
  record: MediaRecord
  open(range?: { start: number; end: number }): Promise<Readable>
}

/** What to stage: bytes in memory (generated images) or a file on disk (uploads, never read whole). */
export type StageInput = ({ bytes: Buffer } | { file: string }) & {
  contentType: string
  name: string
  width?: number
  height?: number
  workspaceId: string | null
}

export interface HostInput {
  contentType: string
  size: number
  width?: number | undefined
  height?: number | undefined
  durationMs?: number | undefined
  name: string
  sourceUrl: string
  /** The target this copy is made for: it stays hosted while that target is pending. */
  targetId?: string | undefined
}

export interface MediaLibrary {
  readonly storage: MediaStorage
  /** A hosted file by id when `name` matches; undefined otherwise. */
  find(id: string, name: string): Promise<HostedMedia | undefined>
  /** True for URLs under `{PUBLIC_BASE_URL}/media/`. */
  isHostedUrl(url: string): boolean
  /**
   * The URL a network that fetches by URL is given for one of our hosted URLs: a presigned GET of the
   * object when storage can sign one (S3), the hosted URL itself otherwise.
   */
  networkUrl(hostedUrl: string): Promise<string>
  /** The fetcher's view: our own URLs come from storage. @throws {MediaError} for an unknown hosted URL. */
  localSource(url: URL): Promise<LocalSource | undefined>
  /** Stores a file and its row now; a file with the same bytes already hosted is reused. Returns the URL. */
  host(file: string, input: HostInput): Promise<string>
  /** Stores bytes under a new id; the row is written by `commit`, in the caller's transaction. */
  stage(input: StageInput): Promise<StagedMedia>
  /** One of our URLs was used (sent, or linked to `targetId`): its retention restarts now. */
  recordUse(url: string, targetId?: string): Promise<void>
}

const DEFAULT_PRESIGN_SECONDS = 86_400

const newMediaId = () => randomBytes(16).toString('hex')

interface LibraryDeps {
  publicBaseUrl: string
  db: Db
  storage: MediaStorage
  now(): number
  tempDir?: string | undefined
  /** Lifetime of presigned URLs (S3 storage); see `networkUrl`. */
  presignSeconds?: number | undefined
}

export function createMediaLibrary(deps: LibraryDeps): MediaLibrary {
  const { db, storage } = deps
  const base = new URL(`${deps.publicBaseUrl}/`)
  const prefix = `${base.pathname}media/`
  const publicUrl = (id: string, name: string) =>
    `${deps.publicBaseUrl}/media/${id}/${encodeURIComponent(name)}`

  /** id and name of one of our URLs ('' when malformed); undefined for any other URL. */
  const parse = (url: URL): { id: string; name: string } | undefined => {
    if (url.origin !== base.origin || !url.pathname.startsWith(prefix)) return undefined
    const [id = '', name = '', ...rest] = url.pathname.slice(prefix.length).split('/')
    if (rest.length > 0) return { id: '', name: '' }
    try {
      return { id, name: decodeURIComponent(name) }
    } catch {
      return { id: '', name: '' }
    }
  }

  async function find(id: string, name: string): Promise<HostedMedia | undefined> {
    if (!/^[0-9a-f]{32}$/.test(id)) return undefined
    const record = await findMedia(db, id)
    if (!record || record.name !== name) return undefined
    return { record, open: (range) => storage.read(record.storageKey, range) }
  }

  return {
    storage,
    find,
    isHostedUrl(url) {
      try {
        return parse(new URL(url)) !== undefined
      } catch {
        return false
      }
    },

    async networkUrl(hostedUrl) {
      const presign = storage.presignedUrl?.bind(storage)
      const parts = presign && parse(new URL(hostedUrl))
      if (!presign || !parts) return hostedUrl
      const hosted = await find(parts.id, parts.name)
      if (!hosted) throw new MediaError('fetch_failed', 'No media is hosted at this URL')
      return presign(hosted.record.storageKey, deps.presignSeconds ?? DEFAULT_PRESIGN_SECONDS)
    },

    async localSource(url) {
      const parts = parse(url)
      if (!parts) return undefined
      const hosted = await find(parts.id, parts.name)
      if (!hosted) throw new MediaError('fetch_failed', 'No media is hosted at this URL')
      return {
        size: hosted.record.size,
        contentType: hosted.record.contentType,
        open: () =>
          hosted.open().catch((error: unknown) => {
            if (error instanceof StorageNotFoundError)
              throw new MediaError('fetch_failed', 'The hosted file is missing from storage')
            throw error
          }),
      }
    },

    host: (file, input) => hostFile(deps, publicUrl, file, input),

    async recordUse(url, targetId) {
      let parts: { id: string; name: string } | undefined
      try {
        parts = parse(new URL(url))
      } catch {
        return
      }
      if (parts && /^[0-9a-f]{32}$/.test(parts.id)) await recordMediaUse(db, parts.id, deps.now(), targetId)
    },

    stage: (input) => stageMedia(deps, publicUrl, input),
  }
}

/** Stores a file and its row now; a file with the same bytes already hosted is reused. Returns the URL. */
async function hostFile(
  deps: LibraryDeps,
  publicUrl: (id: string, name: string) => string,
  file: string,
  input: HostInput,
): Promise<string> {
  const { db, storage } = deps
  const sha256 = await hashFile(file)
  const existing = await findMediaByContent(db, sha256, input.contentType)
  // Reused only if it is still there when marked used (the sweep deletes only rows not used since).
  if (existing && (await recordMediaUse(db, existing.id, deps.now(), input.targetId)))
    return publicUrl(existing.id, existing.name)
  const id = newMediaId()
  const name = sanitizeFileName(input.name) || 'media'
  const storageKey = `${id}/${name}`
  await storage.putFile(storageKey, file, { contentType: input.contentType, size: input.size })
  // Linked before the row exists: the sweep never sees a copy for a pending target unlinked.
  if (input.targetId) await linkMediaUse(db, id, input.targetId, deps.now())
  await insertMedia(db, {
    id,
    workspaceId: null,
    sourceUrl: input.sourceUrl,
    sha256,
    contentType: input.contentType,
    size: input.size,
    width: input.width ?? null,
    height: input.height ?? null,
    durationMs: input.durationMs ?? null,
    storageKey,
    name,
    createdAt: deps.now(),
  })
  return publicUrl(id, name)
}

/** Stores bytes under a new id; the row is written by `commit`, in the caller's transaction. */
async function stageMedia(
  deps: LibraryDeps,
  publicUrl: (id: string, name: string) => string,
  input: StageInput,
): Promise<StagedMedia> {
  const { storage } = deps
  const id = newMediaId()
  const name = sanitizeFileName(input.name) || 'image.png'
  const storageKey = `${id}/${name}`
  let size: number
  let sha256: string
  if ('file' in input) {
    size = (await stat(input.file)).size
    sha256 = await hashFile(input.file)
    await storage.putFile(storageKey, input.file, { contentType: input.contentType, size })
  } else {
    size = input.bytes.length
    sha256 = createHash('sha256').update(input.bytes).digest('hex')
    const temp = await createTempDir(deps.tempDir)
    try {
      const file = temp.file('staged')
      await writeFile(file, input.bytes)
      await storage.putFile(storageKey, file, { contentType: input.contentType, size })
    } finally {
      await temp.dispose()
    }
  }
  const record: MediaRecord = {
    id,
    workspaceId: input.workspaceId,
    sourceUrl: null,
    sha256,
    contentType: input.contentType,
    size,
    width: input.width ?? null,
    height: input.height ?? null,
    durationMs: null,
    storageKey,
    name,
    createdAt: deps.now(),
  }
  return {
    record,
    url: publicUrl(id, name),
    commit: (trx) => insertMedia(trx, record),
    discard: () => storage.delete(storageKey),
  }
}
