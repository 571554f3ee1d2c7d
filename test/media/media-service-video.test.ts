import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMediaService, type MediaService } from '../../src/modules/media/media-service.js'
import { probeFile } from '../../src/modules/media/probe.js'
import { loadConfig } from '../../src/platform/config.js'
import { openStore, type Store } from '../../src/platform/db/db.js'
import { createLogger } from '../../src/platform/logger.js'
import { startServer, type TestServer } from './servers.js'
import { ffmpegPath, h264Clip, movClip, processesMentioning, webmClip } from './video-fixtures.js'

const PUBLIC = '93.184.216.34'
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

describe('the media service with video', () => {
  let web: TestServer
  let store: Store
  let dir: string
  let media: MediaService
  let noFfmpeg: MediaService
  const files = new Map<string, Buffer>()

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'herald-media-video-'))
    const sources = path.join(dir, 'sources')
    const { mkdirSync } = await import('node:fs')
    mkdirSync(sources)
    const [webm, mov, mp4, slow] = await Promise.all([
      webmClip(path.join(sources, 'clip.webm')),
      movClip(path.join(sources, 'clip.mov')),
      h264Clip(path.join(sources, 'clip.mp4')),
      movClip(path.join(sources, 'slow.mov'), { seconds: 30, width: 1280, height: 720 }),
    ])
    files.set('/clip.webm', readFileSync(webm))
    files.set('/webm-named.mp4', readFileSync(webm))
    files.set('/clip.mov', readFileSync(mov))
    files.set('/clip.mp4', readFileSync(mp4))
    files.set('/slow.mov', readFileSync(slow))
    web = await startServer((req, res) => {
      if (req.url === '/huge.mp4') {
        // Declares 300 MB; sends only the first bytes, so only a fetch cap on the declared length ends it.
        res.writeHead(200, { 'content-length': String(300 * 1024 * 1024) })
        res.write(files.get('/clip.mp4')!.subarray(0, 64 * 1024))
        req.socket.once('close', () => res.destroy())
        return
      }
      const body = files.get(req.url ?? '')
      if (!body) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-length': String(body.length) }).end(body)
    })
    store = await openStore({ sqlitePath: ':memory:' })
    const build = (ffmpeg: { path: string; version: string } | null) =>
      createMediaService({
        config: loadConfig({ HERALD_DATA_DIR: dir, PUBLIC_BASE_URL: 'https://herald.example.com' }),
        db: store.db,
        logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
        now: () => Date.now(),
        ffmpeg,
        fetcherOptions: {
          lookup: async (host) => (host === 'cdn.test' ? [{ address: PUBLIC, family: 4 }] : []),
          dial: ({ address }) => ({ host: address === PUBLIC ? '127.0.0.1' : address, port: web.port }),
          tempDir: dir,
        },
      })
    media = build({ path: ffmpegPath, version: 'test' })
    noFfmpeg = build(null)
  }, 120_000)
  afterAll(async () => {
    await web.close()
    await store.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  const probe = (file: string) =>
    probeFile({
      path: file,
      head: readFileSync(file).subarray(0, 4096),
      size: statSync(file).size,
      extension: '.mp4',
    })

  it('prepares a WebM for LinkedIn as an H.264/AAC MP4 named .mp4', async () => {
    const prepared = await media.prepare('http://cdn.test/clip.webm', { network: 'linkedin' })
    expect(prepared).toMatchObject({
      kind: 'video',
      contentType: 'video/mp4',
      name: 'clip.mp4',
      width: 320,
      height: 240,
    })
    const info = await probe(prepared.path)
    expect(info.codec).toMatch(/^avc1/)
    expect(info.audioCodec).toBe('mp4a.40.2')
    expect(statSync(prepared.path).size).toBe(prepared.size)
    await prepared.dispose()
  })

  it('hosts the converted MP4 of a MOV for Instagram, not the MOV', async () => {
    const prepared = await media.prepare('http://cdn.test/clip.mov', { network: 'instagram' })
    expect(prepared.publicUrl).toMatch(/^https:\/\/herald\.example\.com\/media\/[0-9a-f]{32}\/clip\.mp4$/)
    const id = prepared.publicUrl!.split('/').at(-2)!
    const hosted = await media.findHosted(id, 'clip.mp4')
    expect(hosted?.record).toMatchObject({ contentType: 'video/mp4', size: prepared.size })
    expect((await probe(prepared.path)).codec).toMatch(/^avc1/)
    await prepared.dispose()
  })

  it('passes an H.264/AAC MP4 through byte for byte', async () => {
    for (const network of ['linkedin', 'instagram', 'twitter', 'youtube'] as const) {
      const prepared = await media.prepare('http://cdn.test/clip.mp4', { network })
      expect(sha(readFileSync(prepared.path)), network).toBe(sha(files.get('/clip.mp4')!))
      await prepared.dispose()
    }
  })

  it('stops a video download at 256 MB for YouTube (spec §1)', async () => {
    await expect(media.inspect('http://cdn.test/huge.mp4', { network: 'youtube' })).rejects.toMatchObject({
      reason: 'too_large',
    })
  })

  it('names the conversion in inspect, for preflight', async () => {
    const webm = await media.inspect('http://cdn.test/clip.webm', { network: 'instagram' })
    expect(webm.conversions).toEqual(['WEBM (VP8) → MP4 (H.264/AAC)'])
    const mov = await media.inspect('http://cdn.test/clip.mov', { network: 'threads' })
    expect(mov.conversions).toEqual(['MOV (MPEG4) → MP4 (H.264/AAC)'])
    expect((await media.inspect('http://cdn.test/clip.webm', { network: 'youtube' })).conversions).toEqual([])
  })

  it('says so when a video needs converting and there is no ffmpeg, and still passes a kept video', async () => {
    const error = await noFfmpeg.inspect('http://cdn.test/clip.webm', { network: 'linkedin' }).catch((e) => e)
    expect(error).toMatchObject({
      reason: 'conversion_failed',
      message:
        'LinkedIn needs this video converted (WEBM (VP8) → MP4 (H.264/AAC)), and this Herald has no ffmpeg: install ffmpeg or set HERALD_FFMPEG_PATH',
    })
    await expect(
      noFfmpeg.prepare('http://cdn.test/clip.mov', { network: 'instagram' }),
    ).rejects.toMatchObject({
      reason: 'conversion_failed',
    })
    const kept = await noFfmpeg.prepare('http://cdn.test/clip.mp4', { network: 'linkedin' })
    expect(kept.contentType).toBe('video/mp4')
    await kept.dispose()
    expect(await noFfmpeg.ffmpeg()).toBeUndefined()
  })

  it('keeps X’s rule: a video behind a URL that does not end in .mp4 is refused, not converted', async () => {
    const calls = [
      () => media.prepare('http://cdn.test/clip.webm', { network: 'twitter' }),
      () => media.inspect('http://cdn.test/clip.mov', { network: 'twitter' }),
    ]
    for (const call of calls)
      await expect(call()).rejects.toMatchObject({
        reason: 'unsupported_type',
        message: 'X takes the media type from the URL, which does not end in .mp4; this file is a video',
      })
    const kept = await media.prepare('http://cdn.test/clip.mp4', { network: 'twitter' })
    expect(kept.contentType).toBe('video/mp4')
    await kept.dispose()
  })

  it('converts a WebM behind an .mp4 URL into an MP4 X takes', async () => {
    const prepared = await media.prepare('http://cdn.test/webm-named.mp4', { network: 'twitter' })
    expect(prepared).toMatchObject({ contentType: 'video/mp4', name: 'webm-named.mp4' })
    expect((await probe(prepared.path)).codec).toMatch(/^avc1/)
    await prepared.dispose()
  })

  it("stops the conversion when the worker's signal fires, leaving no ffmpeg and no files", async () => {
    const controller = new AbortController()
    const running = media.prepare('http://cdn.test/slow.mov', {
      network: 'instagram',
      signal: controller.signal,
    })
    let ffmpegs: number[] = []
    for (let i = 0; i < 100 && ffmpegs.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      ffmpegs = processesMentioning(`${dir}/`).filter((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('converted.mp4'),
      )
    }
    expect(ffmpegs.length).toBe(1)
    controller.abort()
    await expect(running).rejects.toMatchObject({ reason: 'conversion_failed' })
    expect(processesMentioning('converted.mp4').filter((pid) => ffmpegs.includes(pid))).toEqual([])
    const { readdirSync } = await import('node:fs')
    expect(readdirSync(dir).filter((name) => name.startsWith('herald-'))).toEqual([])
  })
})
