import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
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
import { mp4File, noisePng, solidImage } from './fixtures.js'
import { startServer, type TestServer } from './servers.js'

const PUBLIC = '93.184.216.34'

describe('the media service', () => {
  let web: TestServer
  let store: Store
  let media: MediaService
  let dir: string
  const files = new Map<string, Buffer>()

  beforeAll(async () => {
    files.set('/noise.png', await noisePng(2500, 2500))
    files.set('/tall.png', await solidImage(900, 2400, 'png'))
    files.set('/clip', mp4File({ width: 1080, height: 1920, durationMs: 59_000 }))
    files.set('/wide.mp4', mp4File({ width: 1920, height: 1080, durationMs: 240_000 }))
    web = await startServer((req, res) => {
      if (req.url === '/huge.png') {
        res.writeHead(200)
        res.write(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(100).fill(0)]))
        const chunk = Buffer.alloc(1024 * 1024)
        let sent = 0
        const pump = () => {
          while (sent < 21 && res.write(chunk)) sent++
          if (sent < 21) res.once('drain', pump)
          else res.end()
        }
        pump()
        return
      }
      const body = files.get(req.url ?? '')
      if (!body) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-length': String(body.length) }).end(body)
    })
    dir = mkdtempSync(path.join(tmpdir(), 'herald-media-service-'))
    store = await openStore({ sqlitePath: ':memory:' })
    const config = loadConfig({ HERALD_DATA_DIR: dir, PUBLIC_BASE_URL: 'https://herald.example.com' })
    media = createMediaService({
      config,
      db: store.db,
      logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
      now: () => Date.now(),
      storage: createLocalStorage(path.join(dir, 'media')),
      fetcherOptions: {
        lookup: async (host) => (host === 'cdn.test' ? [{ address: PUBLIC, family: 4 }] : []),
        dial: ({ address }) => ({ host: address === PUBLIC ? '127.0.0.1' : address, port: web.port }),
      },
    })
  })
  afterAll(async () => {
    await web.close()
    await store.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  it('prepares a large PNG for Bluesky as a JPEG under 1,000,000 bytes in a temporary file', async () => {
    const prepared = await media.prepare('http://cdn.test/noise.png', { network: 'bluesky' })
    expect(prepared).toMatchObject({ kind: 'image', contentType: 'image/jpeg', name: 'noise.jpg' })
    expect(prepared.size).toBeLessThan(1_000_000)
    expect(readFileSync(prepared.path).length).toBe(prepared.size)
    expect(prepared.publicUrl).toBeUndefined()
    await prepared.dispose()
    expect(existsSync(prepared.path)).toBe(false)
  })

  it('hosts the converted file for Instagram, once per content, and reads its own URL from storage', async () => {
    const first = await media.prepare('http://cdn.test/tall.png', { network: 'instagram' })
    expect(first.contentType).toBe('image/jpeg')
    expect(first.width! / first.height!).toBeGreaterThanOrEqual(0.8)
    expect(first.publicUrl).toMatch(/^https:\/\/herald\.example\.com\/media\/[0-9a-f]{32}\/tall\.jpg$/)
    const row = await store.db.selectFrom('media').selectAll().executeTakeFirstOrThrow()
    expect(row).toMatchObject({ content_type: 'image/jpeg', size: first.size, name: 'tall.jpg' })
    const again = await media.prepare('http://cdn.test/tall.png', { network: 'instagram' })
    expect(again.publicUrl).toBe(first.publicUrl)

    const before = web.requests.length
    const own = await media.prepare(first.publicUrl!, { network: 'instagram' })
    expect(web.requests.length).toBe(before)
    expect(own.publicUrl).toBe(first.publicUrl)
    expect(readFileSync(own.path)).toEqual(readFileSync(first.path))
    expect(media.isHostedUrl(first.publicUrl!)).toBe(true)
    expect(media.isHostedUrl('http://cdn.test/tall.png')).toBe(false)
    for (const p of [first, again, own]) await p.dispose()
  })

  it('inspects a video for YouTube without keeping it, naming it by its detected type', async () => {
    const info = await media.inspect('http://cdn.test/clip', { network: 'youtube' })
    expect(info).toMatchObject({
      kind: 'video',
      contentType: 'video/mp4',
      width: 1080,
      height: 1920,
      durationMs: 59_000,
      isShortEligible: true,
      name: 'clip.mp4',
      conversions: [],
    })
    const wide = await media.inspect('http://cdn.test/wide.mp4', { network: 'youtube' })
    expect(wide.isShortEligible).toBe(false)
  })

  it('refuses an image for YouTube as soon as the first bytes show it', async () => {
    const error = (await media
      .inspect('http://cdn.test/tall.png', { network: 'youtube' })
      .catch((e) => e)) as MediaError
    expect(error.reason).toBe('unsupported_type')
    expect(error.message).toMatch(/YouTube needs a video/)
  })

  it('stops an image download at the network’s image cap', async () => {
    const error = (await media
      .inspect('http://cdn.test/huge.png', { network: 'twitter' })
      .catch((e) => e)) as MediaError
    expect(error.reason).toBe('too_large')
    expect(error.message).toMatch(/20 MB/)
  })

  it('refuses a hosted-looking URL that names no hosted file', async () => {
    const error = (await media
      .inspect(`https://herald.example.com/media/${'0'.repeat(32)}/x.png`, { network: 'twitter' })
      .catch((e) => e)) as MediaError
    expect(error.reason).toBe('fetch_failed')
  })
})
