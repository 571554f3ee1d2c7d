import { createHash, randomBytes } from 'node:crypto'
import {
  copyFile,
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises'
import path from 'node:path'
import { fileNameFromUrl, urlExtension } from '../../core/media-url.js'
import {
  type FetchedFile,
  type FetchOptions,
  type SafeFetcher,
  tooLarge,
  type Validators,
} from '../../platform/egress/safe-fetch.js'
import type { Logger } from '../../platform/logger.js'
import { createTempDir } from '../../platform/temp-files.js'

/**
 * Fetch once: the bytes behind media URLs, kept on disk so preflight, create_post and the worker's send
 * download a file once. Files only, so every process sharing the data folder shares the cache:
 * `objects/<sha256>` holds the bytes (two URLs with the same bytes share one file),
 * `index/<sha256 of the URL>.json` says which object a URL had and its validators (ETag, Last-Modified),
 * `work/` holds each user's private hard link to an object. A cached URL is revalidated with a conditional
 * request every time (304 reuses the bytes). Least recently used objects go when the cache passes its cap;
 * an object with a second link (someone is using it) never goes.
 */

export interface MediaCacheOptions {
  /** The cache folder (default `<data folder>/media-cache`). */
  dir: string
  /** Size cap in bytes; 0 disables the cache (every use downloads). */
  maxBytes: number
  fetcher: SafeFetcher
  logger?: Logger
}

export interface MediaCache {
  /** Where downloads land before they are kept (same file system as the objects, so keeping is a link). */
  readonly workDir: string
  /**
   * The bytes behind `url` under the fetch caps: the cached copy when the server confirms it is current
   * (304), otherwise a guarded download that is kept for next time. The caller disposes the file.
   * @throws {MediaError}
   */
  fetch(url: string, options: FetchOptions): Promise<FetchedFile>
  /** True when `url` has a cached copy a conditional request can confirm. */
  has(url: string): Promise<boolean>
  /** Keeps a download made elsewhere (the range probe's full-file fallback) for `url`; returns it. */
  keep(url: string, file: FetchedFile): Promise<FetchedFile>
  /** Bytes and files held. */
  usage(): Promise<{ bytes: number; count: number }>
  /** Removes least recently used objects until the cache is under its cap (objects in use stay). */
  evict(): Promise<void>
}

interface IndexEntry {
  url: string
  sha256: string
  size: number
  contentType: string | undefined
  finalUrl: string
  validators: Validators
}

const HEAD_BYTES = 4096
/** A work folder older than this belongs to a process that died mid-use. */
const STALE_WORK_MS = 24 * 3_600_000

export function createMediaCache(options: MediaCacheOptions): MediaCache {
  const { fetcher, maxBytes } = options
  const layout = layoutOf(options.dir)
  const { objectPath, workDir } = layout
  const enabled = maxBytes > 0
  const ready = enabled
    ? Promise.all([layout.objects, layout.index, workDir].map((dir) => mkdir(dir, { recursive: true })))
    : Promise.resolve()
  // Made at start and awaited only when the cache is used: a folder that could not be made (the data folder
  // removed as a short-lived process shuts down) is an error for the use that needs it, never an unhandled
  // rejection of a process that used no cache at all.
  ready.catch(() => undefined)

  const readEntry = async (url: string) => (enabled ? readIndexEntry(layout, url) : undefined)

  async function keep(url: string, file: FetchedFile): Promise<FetchedFile> {
    if (!enabled || (!file.validators.etag && !file.validators.lastModified) || file.size > maxBytes)
      return file
    try {
      await ready
      await storeObject(layout, file)
      await writeIndexEntry(layout, {
        url,
        sha256: file.sha256,
        size: file.size,
        contentType: file.contentType,
        finalUrl: file.finalUrl,
        validators: file.validators,
      })
      await evict()
    } catch (error) {
      // A cache that cannot write only costs a later download.
      options.logger?.warn({ err: error }, 'media cache could not keep a download')
    }
    return file
  }

  async function evict(): Promise<void> {
    if (!enabled) return
    await evictLeastRecentlyUsed(layout, maxBytes)
    await removeStaleWork(workDir)
  }

  return {
    workDir,
    keep,
    evict,
    async has(url) {
      const entry = await readEntry(url)
      return (
        entry !== undefined && (await stat(objectPath(entry.sha256)).catch(() => undefined)) !== undefined
      )
    },
    async fetch(url, fetchOptions) {
      if (!enabled) return fetcher.fetchToFile(url, fetchOptions)
      await ready
      const entry = await readEntry(url)
      if (entry) {
        const answer = await fetcher.fetchIfChanged(url, entry.validators, fetchOptions)
        if (answer !== 'not_modified') return keep(url, answer)
        const cached = await checkout(layout, entry, url, fetchOptions)
        if (cached) return cached
      }
      return keep(url, await fetcher.fetchToFile(url, fetchOptions))
    },
    async usage() {
      const found = await listObjects(layout.objects)
      return { bytes: found.reduce((sum, object) => sum + object.size, 0), count: found.length }
    },
  }
}

/** Where the cache keeps what: `objects/`, `index/` and `work/` under its folder. */
interface CacheLayout {
  objects: string
  index: string
  workDir: string
  indexPath(url: string): string
  objectPath(sha256: string): string
}

function layoutOf(dir: string): CacheLayout {
  const objects = path.join(dir, 'objects')
  const index = path.join(dir, 'index')
  return {
    objects,
    index,
    workDir: path.join(dir, 'work'),
    indexPath: (url) => path.join(index, `${createHash('sha256').update(url).digest('hex')}.json`),
    objectPath: (sha256) => path.join(objects, sha256),
  }
}

async function readIndexEntry(layout: CacheLayout, url: string): Promise<IndexEntry | undefined> {
  try {
    const entry = JSON.parse(await readFile(layout.indexPath(url), 'utf8')) as IndexEntry
    return entry.url === url && /^[0-9a-f]{64}$/.test(entry.sha256) ? entry : undefined
  } catch {
    return undefined
  }
}

/** Written under a temporary name and renamed, so a reader never sees half an entry. */
async function writeIndexEntry(layout: CacheLayout, entry: IndexEntry) {
  const partial = `${layout.indexPath(entry.url)}.${randomBytes(6).toString('hex')}.partial`
  await writeFile(partial, JSON.stringify(entry))
  await rename(partial, layout.indexPath(entry.url))
}

/** Links the download in as the object of its bytes (copied when the link would cross file systems). */
async function storeObject(layout: CacheLayout, file: FetchedFile) {
  const target = layout.objectPath(file.sha256)
  try {
    await link(file.path, target)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EXDEV') {
      const partial = `${target}.${randomBytes(6).toString('hex')}.partial`
      await copyFile(file.path, partial)
      await rename(partial, target)
    } else if (code !== 'EEXIST') throw error
  }
}

/** A private link to the cached object, checked against this use's caps. Undefined when it was evicted. */
async function checkout(
  layout: CacheLayout,
  entry: IndexEntry,
  url: string,
  fetchOptions: FetchOptions,
): Promise<FetchedFile | undefined> {
  const object = layout.objectPath(entry.sha256)
  const temp = await createTempDir(layout.workDir)
  const file = temp.file('body')
  try {
    await link(object, file)
  } catch {
    await temp.dispose()
    return undefined
  }
  try {
    const now = new Date()
    await utimes(object, now, now).catch(() => undefined)
    const head = await readHead(file)
    let cap = fetchOptions.maxBytes
    if (fetchOptions.capForHead) cap = Math.min(cap, fetchOptions.capForHead(head))
    if (entry.size > cap) throw tooLarge(entry.size, cap)
    return {
      path: file,
      size: entry.size,
      sha256: entry.sha256,
      head,
      contentType: entry.contentType,
      finalUrl: entry.finalUrl,
      name: fileNameFromUrl(url),
      extension: urlExtension(url),
      validators: entry.validators,
      dispose: temp.dispose,
    }
  } catch (error) {
    await temp.dispose()
    throw error
  }
}

async function listObjects(objects: string) {
  const names = await readdir(objects).catch(() => [] as string[])
  const found: { file: string; size: number; mtimeMs: number; nlink: number }[] = []
  for (const name of names) {
    if (!/^[0-9a-f]{64}$/.test(name)) continue
    const file = path.join(objects, name)
    const info = await stat(file).catch(() => undefined)
    if (info) found.push({ file, size: info.size, mtimeMs: info.mtimeMs, nlink: info.nlink })
  }
  return found
}

async function evictLeastRecentlyUsed(layout: CacheLayout, maxBytes: number) {
  const found = await listObjects(layout.objects)
  let total = found.reduce((sum, object) => sum + object.size, 0)
  for (const object of found.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    if (total <= maxBytes) break
    // A second link is a use in progress (this process or another): it stays.
    if (object.nlink > 1) continue
    await rm(object.file, { force: true })
    total -= object.size
  }
}

/** Work folders left by a process that died mid-use. */
async function removeStaleWork(workDir: string) {
  const cutoff = Date.now() - STALE_WORK_MS
  for (const name of await readdir(workDir).catch(() => [] as string[])) {
    const dir = path.join(workDir, name)
    const info = await stat(dir).catch(() => undefined)
    if (info && info.mtimeMs < cutoff) await rm(dir, { recursive: true, force: true })
  }
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r')
  try {
    const buffer = Buffer.alloc(HEAD_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}
