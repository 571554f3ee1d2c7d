import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { connectMetaGrant } from '../helpers/meta-connect.js'
import { type S3Server, startS3Server } from '../helpers/s3-server.js'
import { solidImage } from './fixtures.js'
import { startServer, type TestServer } from './servers.js'

/**
 * With S3 storage, networks that fetch media by URL are handed a presigned GET of Herald's copy in the
 * bucket: the Meta simulator's fetcher downloads the bytes from s3rver, not from Herald.
 */
describe('an Instagram post in sandbox mode with S3 storage', () => {
  let s3: S3Server
  let images: TestServer
  let h: Harness
  let worker: Worker
  let photo: Buffer

  beforeAll(async () => {
    photo = await solidImage(1080, 1080, 'jpeg')
    images = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      res.end(photo)
    })
    s3 = await startS3Server()
    h = await startHarness({
      sandbox: true,
      env: { ...s3.env, HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_S3_PRESIGN_SECONDS: '7200' },
    })
    await connectMetaGrant(h, 'Bucket Bakery')
    worker = createAppWorker(h.app, { id: 's3-worker' })
    worker.start()
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await images?.close()
    await s3?.close()
  })

  it('publishes, the simulator having fetched the image from the bucket through a presigned URL', async () => {
    const { status, body } = await h.call('create_post', {
      content: 'Fresh from the bucket',
      platforms: ['instagram'],
      mediaUrl: `${images.url}/loaf.jpg`,
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.posts[0].status).toBe('published')

    const state = (await (await fetch(`${h.baseUrl}${sandboxPrefixes.instagram}/_sandbox/state`)).json()) as {
      fetches: { ok: boolean; url: string; bytes: number; format?: string }[]
      media: { caption?: string }[]
    }
    const fetched = state.fetches.at(-1)!
    const url = new URL(fetched.url)
    expect(`${url.origin}/${url.pathname.split('/')[1]}`).toBe(`${s3.endpoint}/${s3.bucket}`)
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/)
    expect(url.searchParams.get('X-Amz-Expires')).toBe('7200')
    expect(fetched).toMatchObject({ ok: true, bytes: photo.length, format: 'jpeg' })
    expect(state.media.filter((m) => m.caption === 'Fresh from the bucket')).toHaveLength(1)
  }, 60_000)
})
