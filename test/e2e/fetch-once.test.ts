import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { bigMp4, type RangeServer, startRangeServer } from '../media/range-server.js'

/**
 * One video URL through preflight_post, create_post and the worker's YouTube upload: the checks read
 * it with range requests, the send downloads it, and nothing downloads it twice.
 */
describe('a media URL is downloaded once per post', () => {
  const MB = 1024 * 1024
  const video = bigMp4(24 * MB, 'end')
  let ranged: RangeServer
  let ignoring: RangeServer
  let h: Harness
  let worker: Worker

  beforeAll(async () => {
    ranged = await startRangeServer(
      { '/launch.mp4': video, '/big.mp4': bigMp4(200 * MB, 'end') },
      { ranges: true, etag: '"launch-1"' },
    )
    ignoring = await startRangeServer({ '/launch.mp4': video }, { ranges: false, etag: '"launch-1"' })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '30000' },
    })
    worker = createAppWorker(h.app, { id: 'e2e-fetch-once' })
    worker.start()
    await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'youtube',
      username: 'creator@example.com',
    })
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await ranged?.close()
    await ignoring?.close()
  })

  it.each([
    ['serves ranges', () => ranged],
    ['ignores ranges', () => ignoring],
  ])(
    'preflights, creates and sends once from a server that %s',
    async (_how, server) => {
      const post = {
        content: 'Launch day',
        platforms: ['youtube'],
        mediaUrl: `${server().url}/launch.mp4`,
        youtube: { privacyStatus: 'unlisted' },
      }
      const checked = await h.call('preflight_post', post)
      expect(checked.status, JSON.stringify(checked.body)).toBe(200)
      expect(checked.body.ok, JSON.stringify(checked.body)).toBe(true)
      const created = await h.call('create_post', { ...post, publishImmediately: true })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      expect(created.body.posts[0].status, JSON.stringify(created.body)).toBe('published')

      expect(server().fullDownloads()).toBe(1)
      // One whole file, plus at most a few hundred KB of range reads by the two checks.
      expect(server().bytesSent()).toBeLessThan(video.size + MB)
    },
    60_000,
  )

  it('preflights a 200 MB video reading under 2 MB of it', async () => {
    const before = ranged.bytesSent()
    const downloads = ranged.fullDownloads()
    const { status, body } = await h.call('preflight_post', {
      content: 'Big launch',
      platforms: ['youtube'],
      mediaUrl: `${ranged.url}/big.mp4`,
      youtube: { privacyStatus: 'unlisted' },
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.ok, JSON.stringify(body)).toBe(true)
    expect(ranged.bytesSent() - before).toBeLessThan(2 * MB)
    expect(ranged.fullDownloads()).toBe(downloads)
  })
})
