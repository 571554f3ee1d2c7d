import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MediaError } from '../../src/core/media-port.js'
import { createMediaService, type MediaService } from '../../src/modules/media/media-service.js'
import { createLocalStorage } from '../../src/modules/media/storage-local.js'
import { loadConfig } from '../../src/platform/config.js'
import { openStore, type Store } from '../../src/platform/db/db.js'
import { createLogger } from '../../src/platform/logger.js'
import { webmFile } from './fixtures.js'
import { bigMp4, type RangeServer, startRangeServer, virtualFile } from './range-server.js'

const PUBLIC = '93.184.216.34'
const MB = 1024 * 1024

function serviceFor(server: RangeServer, dir: string, store: Store): MediaService {
  const config = loadConfig({
    HERALD_DATA_DIR: dir,
    PUBLIC_BASE_URL: 'https://herald.example.com',
  })
  return createMediaService({
    config,
    db: store.db,
    logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
    now: () => Date.now(),
    storage: createLocalStorage(path.join(dir, 'media')),
    fetcherOptions: {
      lookup: async (host) => (host === 'cdn.test' ? [{ address: PUBLIC, family: 4 }] : []),
      dial: ({ address }) => ({ host: address === PUBLIC ? '127.0.0.1' : address, port: server.port }),
    },
  })
}

describe('preflight probes videos with range requests', () => {
  const files = {
    '/end.mp4': bigMp4(200 * MB, 'end'),
    '/start.mp4': bigMp4(200 * MB, 'start'),
    '/over.mp4': bigMp4(300 * MB, 'end'),
    '/clip.webm': virtualFile([
      webmFile({ width: 640, height: 360, durationMs: 5000 }),
      { fill: 0, length: 50 * MB },
    ]),
  }
  let ranged: RangeServer
  let ignoring: RangeServer
  let store: Store
  let dir: string

  beforeAll(async () => {
    ranged = await startRangeServer(files, { ranges: true, etag: '"v1"' })
    ignoring = await startRangeServer(files, { ranges: false, etag: '"v1"' })
    store = await openStore({ sqlitePath: ':memory:' })
    dir = mkdtempSync(path.join(tmpdir(), 'herald-range-probe-'))
  })
  afterAll(async () => {
    await ranged.close()
    await ignoring.close()
    await store.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  it.each(['end', 'start'])(
    'reads a 200 MB MP4 with its moov at the %s in under 2 MB, without a whole download',
    async (where) => {
      const media = serviceFor(ranged, path.join(dir, `ranged-${where}`), store)
      const before = ranged.bytesSent()
      const info = await media.inspect(`http://cdn.test/${where}.mp4`, { network: 'youtube' })
      expect(info).toMatchObject({
        kind: 'video',
        size: 200 * MB,
        width: 1080,
        height: 1920,
        durationMs: 42_000,
      })
      expect(ranged.bytesSent() - before).toBeLessThan(2 * MB)
      expect(ranged.fullDownloads()).toBe(0)
      expect(await media.cache.usage()).toEqual({ bytes: 0, count: 0 })
    },
  )

  it('reads a WebM from its first bytes', async () => {
    const media = serviceFor(ranged, path.join(dir, 'webm'), store)
    const before = ranged.bytesSent()
    const info = await media.inspect('http://cdn.test/clip.webm', { network: 'youtube' })
    expect(info).toMatchObject({
      kind: 'video',
      contentType: 'video/webm',
      width: 640,
      height: 360,
      durationMs: 5000,
    })
    expect(ranged.bytesSent() - before).toBeLessThanOrEqual(256 * 1024)
  })

  it('refuses a video over the network cap from the range answer alone', async () => {
    const media = serviceFor(ranged, path.join(dir, 'cap'), store)
    const before = ranged.bytesSent()
    const error = (await media
      .inspect('http://cdn.test/over.mp4', { network: 'youtube' })
      .catch((e: unknown) => e)) as MediaError
    expect(error.reason).toBe('too_large')
    expect(ranged.bytesSent() - before).toBeLessThanOrEqual(256 * 1024)
  })

  it('falls back to one whole download when the server ignores ranges, and keeps it for the next use', async () => {
    const media = serviceFor(ignoring, path.join(dir, 'ignoring'), store)
    const info = await media.inspect('http://cdn.test/end.mp4', { network: 'youtube' })
    expect(info).toMatchObject({ size: 200 * MB, durationMs: 42_000 })
    expect(ignoring.fullDownloads()).toBe(1)
    expect(ignoring.bytesSent()).toBe(200 * MB)
    expect(await media.cache.usage()).toEqual({ bytes: 200 * MB, count: 1 })

    const prepared = await media.prepare('http://cdn.test/end.mp4', { network: 'youtube' })
    expect(prepared.size).toBe(200 * MB)
    expect(ignoring.fullDownloads()).toBe(1)
    expect(ignoring.notModified()).toBe(1)
    await prepared.dispose()
    expect(readdirSync(path.join(dir, 'ignoring', 'media-cache', 'work'))).toEqual([])
  })
})
