import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { createMediaStorage, type MediaStorage, StorageNotFoundError } from '../../src/media/storage.js'
import { startServer, type TestServer } from './servers.js'

const collect = async (stream: Readable) => {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Just enough of the S3 REST API (path-style PUT, ranged GET, DELETE) to exercise the S3 driver. */
async function startFakeS3(): Promise<TestServer & { objects: Map<string, { body: Buffer; type: string }> }> {
  const objects = new Map<string, { body: Buffer; type: string }>()
  const server = await startServer(async (req, res) => {
    const key = decodeURIComponent((req.url ?? '').split('?')[0]!)
    if (req.method === 'PUT') {
      const body = await collect(req)
      objects.set(key, { body, type: req.headers['content-type'] ?? '' })
      return void res.writeHead(200, { etag: '"e"' }).end()
    }
    if (req.method === 'DELETE') {
      objects.delete(key)
      return void res.writeHead(204).end()
    }
    const object = objects.get(key)
    if (!object) {
      res.writeHead(404, { 'content-type': 'application/xml' })
      return void res.end(
        '<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>missing</Message></Error>',
      )
    }
    const range = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '')
    if (range) {
      const [start, end] = [Number(range[1]), Number(range[2])]
      res.writeHead(206, {
        'content-type': object.type,
        'content-length': String(end - start + 1),
        'content-range': `bytes ${start}-${end}/${object.body.length}`,
      })
      return void res.end(object.body.subarray(start, end + 1))
    }
    res.writeHead(200, { 'content-type': object.type, 'content-length': String(object.body.length) })
    res.end(object.body)
  })
  return Object.assign(server, { objects })
}

describe.each(['local', 's3'] as const)('media storage (%s driver)', (driver) => {
  let dir: string
  let s3: Awaited<ReturnType<typeof startFakeS3>> | undefined
  let storage: MediaStorage
  const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251))

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'herald-storage-'))
    writeFileSync(path.join(dir, 'source'), bytes)
    if (driver === 's3') s3 = await startFakeS3()
    const config = loadConfig(
      driver === 's3'
        ? {
            HERALD_MEDIA_STORAGE: 's3',
            HERALD_S3_BUCKET: 'herald-media',
            HERALD_S3_ENDPOINT: s3!.url,
            HERALD_S3_ACCESS_KEY_ID: 'test',
            HERALD_S3_SECRET_ACCESS_KEY: 'test-secret',
          }
        : { HERALD_DATA_DIR: dir },
    )
    storage = createMediaStorage(config.media)
  })
  afterAll(async () => {
    await s3?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('stores a file and reads it back whole and by range', async () => {
    await storage.putFile('abc123/file.bin', path.join(dir, 'source'), {
      contentType: 'image/png',
      size: bytes.length,
    })
    expect(storage.driver).toBe(driver)
    expect(await collect(await storage.read('abc123/file.bin'))).toEqual(bytes)
    expect(await collect(await storage.read('abc123/file.bin', { start: 10, end: 19 }))).toEqual(
      bytes.subarray(10, 20),
    )
    if (s3) expect(s3.objects.get('/herald-media/abc123/file.bin')?.type).toBe('image/png')
  })

  it('deletes a file, after which reading it is not found', async () => {
    await storage.delete('abc123/file.bin')
    await expect(storage.read('abc123/file.bin')).rejects.toBeInstanceOf(StorageNotFoundError)
    await storage.delete('abc123/file.bin')
  })

  it('refuses keys that could leave the storage folder', async () => {
    await expect(storage.read('../etc/passwd')).rejects.toThrow(/Unsafe storage key/)
    await expect(storage.read('a/../../b')).rejects.toThrow(/Unsafe storage key/)
  })
})
