import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import type { FaultInjector, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { mp4File } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * YouTube answers a first comment with 429 after making it, and asks Herald to come back in 30 s (its
 * Retry-After), while its comment listing shows a new comment only 50 s after it was made. A lookup at the
 * reset would read a listing without the comment, answer "not there", and post it again. The oracle is the
 * comments the YouTube simulator holds.
 */
const LISTING_LAG_MS = 50_000

describe.each(backends)('a first comment YouTube made before answering 429, on $name', (backend) => {
  const clock = new FakeClock(Date.UTC(2026, 7, 3, 9))
  const listed: number[] = []
  let inserts = 0
  const faults: FaultInjector = {
    listingLagMs: (network) => (network === 'youtube' ? LISTING_LAG_MS : 0),
    decide(call: SimulatedCall) {
      if (call.network !== 'youtube') return undefined
      if (call.operation === 'commentThreads.list') listed.push(clock.now())
      if (call.operation !== 'commentThreads.insert' || inserts++ > 0) return undefined
      return { timing: 'after', answer: { kind: 'status', status: 429 } }
    },
  }
  let h: Harness
  let video: TestServer
  let worker: Worker

  beforeAll(async () => {
    const clip = mp4File({ width: 1080, height: 1920, durationMs: 9000, mdatBytes: 48 * 1024 })
    video = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(clip.length) })
      res.end(clip)
    })
    h = await startHarness({
      backend,
      sandbox: true,
      clock,
      faults,
      credits: 500,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    worker = createAppWorker(h.app, { id: 'rate-limited-comment' })
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await video?.close()
  })

  it('is looked for only once the listing can show it, found, and never posted twice', async () => {
    const { profileId } = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'youtube',
      username: 'ratelimited.creator@example.com',
    })
    const comment = 'Recipe in the description, ask us anything'
    const created = await h.call('create_post', {
      content: 'Sourdough in nine seconds',
      mediaUrl: `${video.url}/short.mp4`,
      targetAccounts: [{ platform: 'youtube', profileId }],
      firstComment: comment,
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.postIds[0] as string
    const post = async () => (await h.call('get_post', { id })).body
    const start = clock.now()
    for (let pass = 0; pass < 60 && (await post()).status !== 'published'; pass++) {
      await worker.tick()
      await worker.idle()
      clock.advance(5_000)
    }
    const held = [...h.sandboxes!.youtube.comments.values()].filter((c) => c.text === comment)
    expect(held).toHaveLength(1)
    expect(inserts).toBe(1)
    const done = await post()
    expect(done.status, JSON.stringify(done.targets)).toBe('published')
    expect(done.targets[0].items[0]).toMatchObject({ status: 'published', postId: held[0]!.id })
    // Every read of the comments came after the comment could be listed.
    expect(listed.length).toBeGreaterThan(0)
    for (const at of listed) expect(at - start).toBeGreaterThanOrEqual(LISTING_LAG_MS)
  }, 60_000)
})
