import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import type { Fault } from '../../src/sandbox/fault-injector.js'
import { backends } from '../helpers/backends.js'
import { type ScriptedFaults, scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'

/**
 * Every Pinterest call that publishes or prepares a pin, failing after it took effect (a 5xx, a reset
 * connection, an answer that comes too late), through the real worker, tools and adapter, on SQLite and
 * Postgres. The oracle is the simulator's own state (`/_sandbox/state`): each post ends with exactly one
 * pin on the board, found by the lookup, and each video's file uploaded once; or, where the board shows two
 * pins that could be it, the target stuck with the reason, never a second pin.
 */

type State = { pins: Array<Record<string, any>>; media: Array<Record<string, any>>; violations: unknown[] }

const AFTER: Record<string, Fault['answer']> = {
  '5xx': { kind: 'status', status: 503 },
  'reset connection': { kind: 'reset' },
  'late answer': { kind: 'hang' },
}
const LATE_MS = 3_000

describe.each(backends)('Pinterest publishing calls that fail after their effect ($name)', (backend) => {
  let h: Harness
  let faults: ScriptedFaults
  let worker: Worker
  let media: TestServer
  let board: string
  const originalTimeout = AbortSignal.timeout.bind(AbortSignal)

  beforeAll(async () => {
    faults = scriptedFaults()
    media = await serveJpegOrVideo(
      await solidImage(1000, 1500, 'jpeg'),
      mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 16 * 1024 }),
    )
    h = await startHarness({
      backend,
      sandbox: true,
      faults,
      credits: 1000,
      env: {
        HERALD_IMMEDIATE_WAIT_MS: '0',
        HERALD_UNKNOWN_OUTCOME_CHECK_MS: '100',
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
      },
    })
    board = (
      await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'pinterest', username: 'faults_fi' })
    ).profileId
    worker = createAppWorker(h.app, { id: `pinterest-faults-${backend.name}`, leaseMs: 60_000 })
  }, 60_000)
  afterAll(async () => {
    await h?.close()
    await media?.close()
  })
  afterEach(() => {
    faults.clear()
    AbortSignal.timeout = originalTimeout
  })

  const state = async () =>
    (await (await fetch(`${h.baseUrl}${sandboxPrefixes.pinterest}/_sandbox/state`)).json()) as State
  const target = (postId: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow()
  const settle = async (postId: string) => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const row = await target(postId)
      if (row.status !== 'pending' || row.stuck_at !== null) return row
      if (Date.now() > deadline) throw new Error(`target still pending: ${row.error}`)
      await worker.tick()
      await worker.idle()
      await new Promise((r) => setTimeout(r, 40))
    }
  }
  const create = async (content: string, mediaUrls: string[]) => {
    const created = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'pinterest', profileId: board }],
      mediaUrls,
      pinterest: { title: content.slice(0, 40) },
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    return created.body.postIds[0] as string
  }
  const on = (operation: string, answer: Fault['answer']) => {
    // A late answer is one the client stops waiting for: its wait is made short for the test.
    if (answer.kind === 'hang') AbortSignal.timeout = (ms: number) => originalTimeout(Math.min(ms, LATE_MS))
    faults.on({ network: 'pinterest', operation }, { timing: 'after', answer })
  }
  const pinsWith = async (content: string) => (await state()).pins.filter((p) => p.description === content)

  const kinds: Array<[string, (m: TestServer) => string[]]> = [
    ['an image', (m) => [`${m.url}/one.jpg`]],
    ['a carousel', (m) => [`${m.url}/one.jpg`, `${m.url}/two.jpg`, `${m.url}/three.jpg`]],
    ['a video', (m) => [`${m.url}/clip.mp4`]],
  ]
  for (const [kind, urls] of kinds)
    for (const [fault, answer] of Object.entries(AFTER))
      it(`pins ${kind} once when the pin's create answers a ${fault} after making it`, async () => {
        const content = `${kind} after a ${fault} (${backend.name})`
        on('pins/create', answer)
        const postId = await create(content, urls(media))
        const row = await settle(postId)
        const pins = await pinsWith(content)
        expect(pins).toHaveLength(1)
        expect(row).toMatchObject({ status: 'published', remote_id: pins[0]!.id, attempts: 1 })
        expect(row.url).toContain(`/pin/${pins[0]!.id}/`)
      }, 60_000)

  it.each(Object.entries(AFTER))(
    "uploads a video's file once when the upload answers a %s after Pinterest stored it",
    async (fault, answer) => {
      const content = `upload after a ${fault} (${backend.name})`
      on('media/upload', answer)
      const postId = await create(content, [`${media.url}/clip.mp4`])
      const row = await settle(postId)
      const [pin] = await pinsWith(content)
      expect(row).toMatchObject({ status: 'published', remote_id: pin!.id })
      const upload = (await state()).media.find((m) => m.id === pin!.mediaId)!
      expect(upload.uploads).toBe(1)
      expect(await pinsWith(content)).toHaveLength(1)
    },
    60_000,
  )

  it.each(Object.entries(AFTER))(
    'pins once when the video registration answers a %s after making it, the unused registration never uploaded to',
    async (fault, answer) => {
      const content = `registration after a ${fault} (${backend.name})`
      const before = (await state()).media.length
      on('media/create', answer)
      const postId = await create(content, [`${media.url}/clip.mp4`])
      const row = await settle(postId)
      const pins = await pinsWith(content)
      expect(pins).toHaveLength(1)
      expect(row.status).toBe('published')
      const made = (await state()).media.slice(before)
      expect(made).toHaveLength(2)
      expect(made.map((m) => m.uploads)).toEqual([0, 1])
    },
    60_000,
  )

  it('leaves the target stuck with the reason when the board shows two pins that could be the unanswered one', async () => {
    const content = `twins after a 5xx (${backend.name})`
    on('pins/create', AFTER['5xx']!)
    faults.on(
      { network: 'pinterest', operation: 'boards/list_pins' },
      { timing: 'before', answer: { kind: 'status', status: 503 } },
    )
    const postId = await create(content, [`${media.url}/one.jpg`])
    await worker.tick()
    await worker.idle()
    // Someone pins the same thing to the board before Herald looks.
    const [pin] = await pinsWith(content)
    const sandbox = h.sandboxes!.pinterest
    sandbox.pins.set('9'.repeat(17), {
      ...sandbox.pins.get(pin!.id)!,
      id: '9'.repeat(17),
      createdAt: sandbox.now(),
    })
    const row = await settle(postId)
    expect(row).toMatchObject({ status: 'pending', stuck_reason: 'ambiguous' })
    expect(row.error).toMatch(/cannot tell whether the unanswered attempt went out.*2 posts/)
    expect(await pinsWith(content)).toHaveLength(2)
    expect((await state()).violations).toEqual([])
  }, 60_000)
})
