import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createMediaStorage,
  type MediaStorage,
  StorageNotFoundError,
} from '../../src/modules/media/storage.js'
import { loadConfig } from '../../src/platform/config.js'
import { type S3Server, startS3Server } from '../helpers/s3-server.js'

const collect = async (stream: Readable) => {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

describe.each(['local', 's3'] as const)('media storage (%s driver)', (driver) => {
  let dir: string
  let s3: S3Server | undefined
  let storage: MediaStorage
  const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251))

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'herald-storage-'))
    writeFileSync(path.join(dir, 'source'), bytes)
    if (driver === 's3') s3 = await startS3Server()
    const config = loadConfig(driver === 's3' ? s3!.env : { HERALD_DATA_DIR: dir })
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
