import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PublishFailure, type PublishRequest } from '../../src/adapters/adapter.js'
import type { YouTubeAdapter } from '../../src/adapters/youtube/index.js'
import { FakeClock } from '../../src/platform/clock.js'
import { scriptedFaults } from '../helpers/fault-script.js'
import {
  clipBytes,
  connectAccount,
  makeAdapter,
  publishRequest,
  sha256,
  startWorld,
  type YouTubeWorld,
} from './youtube-fixtures.js'

/**
 * YouTube's resumable session is the key to an unknown outcome. The session URI is saved
 * as progress before any byte is sent; a lookup asks the session what it holds (`Content-Range: bytes
 * *\/<size>`: 308 with its Range is partial, 200/201 is the finished video); a later publish asks it too, and
 * returns the video an earlier attempt finished or resumes a partial transfer from the offset the session
 * reports, never opening a second session (which would upload and charge again).
 */

const START = Date.UTC(2026, 6, 15, 18, 0)

let world: YouTubeWorld
let clock: FakeClock
let adapter: YouTubeAdapter

beforeAll(async () => {
  clock = new FakeClock(START)
  world = await startWorld({ clock })
})
afterAll(() => world.close())
beforeEach(() => {
  world.sandbox.reset()
  clock.set(START)
  adapter = makeAdapter(world)
})
afterEach(() => {
  expect(world.http.problems).toEqual([])
  expect(world.http.responseProblems).toEqual([])
})

/** A publish request that records its progress, and notes which upload calls had happened at each save. */
function recording(request: PublishRequest) {
  const progress: Record<string, string> = {}
  const uploadsAtSave: number[] = []
  return {
    progress,
    uploadsAtSave,
    req: {
      ...request,
      saveProgress: async (entries: Record<string, string>) => {
        uploadsAtSave.push(world.sandbox.requests.filter((r) => r.op === 'upload').length)
        Object.assign(progress, entries)
      },
    } satisfies PublishRequest,
  }
}

const ops = () => world.sandbox.requests.map((r) => r.op).filter((op) => op !== 'token')

async function failureOf(promise: Promise<unknown>): Promise<PublishFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof PublishFailure)) throw new Error(`expected a PublishFailure, got ${String(error)}`)
  return error
}

describe("resolving a YouTube upload's unknown outcome through its session", () => {
  it('saves the session URI (and the size) as progress before the first byte is sent', async () => {
    const connection = await connectAccount(world, adapter)
    const { req, progress, uploadsAtSave } = recording(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    await adapter.publish(req)
    expect(progress.session).toMatch(/\/upload\/youtube\/v3\/videos\?.*upload_id=/)
    expect(progress.size).toBe(String(clipBytes.length))
    expect(uploadsAtSave[0]).toBe(0)
  })

  it('a lookup finds the video a lost answer hid, by asking the session', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop_after_complete' })
    world.sandbox.addFault({ op: 'upload.status', action: 'drop' })
    const { req, progress } = recording(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    expect((await failureOf(adapter.publish(req))).kind).toBe('unknown_outcome')
    const [upload] = world.sandbox.uploads
    const answer = await adapter.findPublished!({ ...req, since: START, progress })
    expect(answer).toEqual({
      kind: 'found',
      result: { remoteId: upload!.videoId, url: `https://www.youtube.com/shorts/${upload!.videoId}` },
    })
  })

  it('a lookup answers absent when the session holds part of the file, and when no session was saved', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop', afterBytes: 20_000 })
    world.sandbox.addFault({ op: 'upload.status', action: 'drop' })
    const { req, progress } = recording(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    expect((await failureOf(adapter.publish(req))).kind).toBe('unknown_outcome')
    expect(await adapter.findPublished!({ ...req, since: START, progress })).toEqual({ kind: 'absent' })
    expect(await adapter.findPublished!({ ...req, since: START, progress: {} })).toEqual({ kind: 'absent' })
    expect(world.sandbox.uploads).toEqual([])
  })

  it('a lookup whose session is gone (a week later) cannot tell, and says so', async () => {
    const connection = await connectAccount(world, adapter)
    const { req, progress } = recording(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    world.sandbox.addFault({ op: 'upload', action: 'drop', afterBytes: 1 })
    world.sandbox.addFault({ op: 'upload.status', action: 'drop' })
    expect((await failureOf(adapter.publish(req))).kind).toBe('unknown_outcome')
    // Google keeps a session about a week.
    clock.advance(8 * 24 * 60 * 60 * 1000)
    const answer = await adapter.findPublished!({ ...req, since: START, progress })
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    expect((answer as { reason: string }).reason).toMatch(/upload session/)
  })

  it('a later publish returns the video an earlier attempt finished: no second session, upload or charge', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop_after_complete' })
    world.sandbox.addFault({ op: 'upload.status', action: 'drop' })
    const first = recording(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }))
    expect((await failureOf(adapter.publish(first.req))).kind).toBe('unknown_outcome')
    const quota = world.sandbox.quotaUsed()
    const again = await adapter.publish({ ...first.req, progress: first.progress })
    expect(world.sandbox.uploads).toHaveLength(1)
    expect(again.remoteId).toBe(world.sandbox.uploads[0]!.videoId)
    expect(ops().filter((op) => op === 'videos.insert')).toHaveLength(1)
    expect(world.sandbox.quotaUsed()).toBe(quota)
  })

  it('a later publish resumes a partial upload from the offset the session reports', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop', afterBytes: 20_000 })
    world.sandbox.addFault({ op: 'upload.status', action: 'drop' })
    const first = recording(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }))
    expect((await failureOf(adapter.publish(first.req))).kind).toBe('unknown_outcome')
    const held = world.sandbox.sessions.get(new URL(first.progress.session!).searchParams.get('upload_id')!)
    expect(held?.received).toBeGreaterThanOrEqual(20_000)
    const again = await adapter.publish({ ...first.req, progress: first.progress })
    const [upload] = world.sandbox.uploads
    expect(again.remoteId).toBe(upload!.videoId)
    expect(upload).toMatchObject({ bytes: clipBytes.length, sha256: sha256(clipBytes), transfers: 2 })
    expect(ops().filter((op) => op === 'videos.insert')).toHaveLength(1)
    expect(world.sandbox.quotaUsed()).toBe(1 + 1600)
  })

  it('an upload answered 408 asks the session before deciding, as for a 5xx', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'error', reason: 'backendError', status: 408 })
    const result = await adapter.publish(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    expect(result.remoteId).toBe(world.sandbox.uploads[0]!.videoId)
    expect(ops().filter((op) => op.startsWith('upload'))).toEqual(['upload', 'upload.status', 'upload'])
  })

  it('an upload that took every byte and never answers gives up on the answer and asks the session', async () => {
    const script = scriptedFaults()
    const hung = await startWorld({ clock, faults: script })
    const original = AbortSignal.timeout
    // The upload's own timeout (two minutes and more) shortened, so the test waits a moment instead; the other
    // calls keep theirs, so a loaded machine's slow session open is not taken for the hang.
    AbortSignal.timeout = (ms: number) => original.call(AbortSignal, ms >= 120_000 ? 300 : ms)
    try {
      const hungAdapter = makeAdapter(hung)
      const connection = await connectAccount(hung, hungAdapter)
      script.on((call) => call.effectful, { timing: 'after', answer: { kind: 'hang' } })
      const result = await hungAdapter.publish(
        publishRequest(connection, { mediaUrls: [`${hung.mediaOrigin}/clip.mp4`] }),
      )
      expect(hung.sandbox.uploads).toHaveLength(1)
      expect(result.remoteId).toBe(hung.sandbox.uploads[0]!.videoId)
    } finally {
      AbortSignal.timeout = original
      hung.server.server.closeAllConnections()
      await hung.close()
    }
  }, 20_000)

  it('a later publish whose session has gone opens a new one', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop', afterBytes: 1, times: 2 })
    const first = recording(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }))
    expect((await failureOf(adapter.publish(first.req))).kind).toBe('transient')
    clock.advance(8 * 24 * 60 * 60 * 1000)
    const again = await adapter.publish({ ...first.req, progress: first.progress })
    expect(again.remoteId).toBe(world.sandbox.uploads[0]!.videoId)
    expect(ops().filter((op) => op === 'videos.insert')).toHaveLength(2)
  })
})
