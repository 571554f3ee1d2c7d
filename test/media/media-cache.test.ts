import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMediaCache } from '../../src/modules/media/media-cache.js'
import { createSafeFetcher } from '../../src/platform/egress/safe-fetch.js'
import { type RangeServer, startRangeServer, virtualFile } from './range-server.js'

const KB = 1024
const limits = { maxBytes: 10 * 1024 * KB }

describe('the fetch-once media cache', () => {
  const files = {
    '/a': virtualFile([{ fill: 1, length: 300 * KB }]),
    '/b': virtualFile([{ fill: 2, length: 300 * KB }]),
    '/c': virtualFile([{ fill: 3, length: 300 * KB }]),
    '/same-as-a': virtualFile([{ fill: 1, length: 300 * KB }]),
  }
  let server: RangeServer
  let unvalidated: RangeServer
  let dir: string
  const fetcher = createSafeFetcher({ allowPrivate: true })
  const cacheIn = (name: string, maxBytes = 10 * 1024 * KB) =>
    createMediaCache({ dir: path.join(dir, name), maxBytes, fetcher })

  beforeAll(async () => {
    server = await startRangeServer(files, { ranges: true, etag: '"v1"' })
    unvalidated = await startRangeServer(files, { ranges: true })
    dir = mkdtempSync(path.join(tmpdir(), 'herald-media-cache-'))
  })
  afterAll(async () => {
    await server.close()
    await unvalidated.close()
    rmSync(dir, { recursive: true, force: true })
  })
  let counts = { full: 0, unchanged: 0 }
  afterEach(() => {
    counts = { full: server.fullDownloads(), unchanged: server.notModified() }
  })
  const since = () => ({
    full: server.fullDownloads() - counts.full,
    unchanged: server.notModified() - counts.unchanged,
  })

  it('downloads a URL once and answers later uses from the cache after a 304', async () => {
    const cache = cacheIn('once')
    const first = await cache.fetch(`${server.url}/a`, limits)
    const second = await cache.fetch(`${server.url}/a`, limits)
    expect(since()).toEqual({ full: 1, unchanged: 1 })
    expect(second.path).not.toBe(first.path)
    expect(readFileSync(second.path)).toEqual(readFileSync(first.path))
    expect(second).toMatchObject({ size: 300 * KB, sha256: first.sha256, validators: { etag: '"v1"' } })
    await first.dispose()
    await second.dispose()
    expect(existsSync(second.path)).toBe(false)
    expect(await cache.usage()).toEqual({ bytes: 300 * KB, count: 1 })
  })

  it('stores two URLs with the same bytes as one file', async () => {
    const cache = cacheIn('shared')
    for (const name of ['a', 'same-as-a'])
      await (await cache.fetch(`${server.url}/${name}`, limits)).dispose()
    expect(await cache.has(`${server.url}/same-as-a`)).toBe(true)
    expect(await cache.usage()).toEqual({ bytes: 300 * KB, count: 1 })
  })

  it('applies the caller’s size cap to a cached file too', async () => {
    const cache = cacheIn('capped')
    await (await cache.fetch(`${server.url}/a`, limits)).dispose()
    const error = await cache.fetch(`${server.url}/a`, { maxBytes: 100 * KB }).catch((e: unknown) => e)
    expect(error).toMatchObject({ reason: 'too_large' })
  })

  it('evicts the least recently used file past its cap, but never a file in use', async () => {
    const cache = cacheIn('lru', 700 * KB)
    const a = await cache.fetch(`${server.url}/a`, limits)
    await (await cache.fetch(`${server.url}/b`, limits)).dispose()
    await new Promise((resolve) => setTimeout(resolve, 20))
    // a is older than b, but still in use: b goes when c arrives.
    await (await cache.fetch(`${server.url}/c`, limits)).dispose()
    expect(await cache.has(`${server.url}/a`)).toBe(true)
    expect(await cache.has(`${server.url}/b`)).toBe(false)
    expect(await cache.has(`${server.url}/c`)).toBe(true)
    await a.dispose()
    await cache.evict()
    expect(await cache.usage()).toEqual({ bytes: 600 * KB, count: 2 })
  })

  it('does not keep what a server gives no validators for, and a cap of 0 disables the cache', async () => {
    const cache = cacheIn('no-validators')
    await (await cache.fetch(`${unvalidated.url}/a`, limits)).dispose()
    expect(await cache.has(`${unvalidated.url}/a`)).toBe(false)
    const off = cacheIn('off', 0)
    for (let i = 0; i < 2; i++) await (await off.fetch(`${server.url}/b`, limits)).dispose()
    expect(since()).toEqual({ full: 2, unchanged: 0 })
    expect(await off.usage()).toEqual({ bytes: 0, count: 0 })
  })

  it('is shared by every process using the same folder: a second one revalidates instead of downloading', async () => {
    const one = cacheIn('shared-folder')
    const other = cacheIn('shared-folder')
    await (await one.fetch(`${server.url}/c`, limits)).dispose()
    const reused = await other.fetch(`${server.url}/c`, limits)
    expect(since()).toEqual({ full: 1, unchanged: 1 })
    expect(reused.size).toBe(300 * KB)
    await reused.dispose()
  })
})
