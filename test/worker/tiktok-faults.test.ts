import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { NetworkAdapter } from '../../src/adapters/adapter.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { readProgress } from '../../src/modules/delivery/progress.js'
import { sendTarget } from '../../src/modules/delivery/send.js'
import type { Fault, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { backends } from '../helpers/backends.js'
import { scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'

/**
 * Faults after the effect on every TikTok publishing call, through the worker's send path and the target
 * row, on SQLite and Postgres: the last chunk of a video (direct and draft) and the photo init, answered
 * 500, never answered, or cut off, and every status poll after an upload failing. Each ends with exactly
 * one copy on the simulator (counted in its own state) or a target stuck with a reason; a failed status
 * poll never leads to a second init.
 */

const FAULTS: ReadonlyArray<[string, Fault]> = [
  ['500', { timing: 'after', answer: { kind: 'status', status: 500 } }],
  ['a late answer', { timing: 'after', answer: { kind: 'hang' } }],
  ['a reset', { timing: 'after', answer: { kind: 'reset' } }],
]

const on = (operation: string) => (call: SimulatedCall) =>
  call.network === 'tiktok' && call.operation === operation

describe.each(backends)('TikTok publishing calls failing after their effect ($name)', (backend) => {
  const script = scriptedFaults()
  let h: Harness
  let media: TestServer
  beforeAll(async () => {
    media = await serveJpegOrVideo(
      await solidImage(1080, 1350, 'jpeg'),
      mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 32 * 1024 }),
    )
    h = await startHarness({
      backend,
      sandbox: true,
      credits: 1000,
      faults: script,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
    })
    h.sandboxes!.tiktok.processingPolls = 0
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'tiktok', username: 'fault.bakery' })
  }, 60_000)
  afterAll(async () => {
    await h?.close()
    await media?.close()
  })
  afterEach(() => {
    script.clear()
    // Six inits a minute per creator: the suite makes more, as if minutes apart.
    h.sandboxes!.tiktok.refillBudgets()
  })

  const adapter = () => h.app.adapters.tiktok as NetworkAdapter
  const deps = () => ({
    db: h.app.store.db,
    vault: h.app.vault,
    now: () => Date.now(),
    logger: h.app.logger,
    adapters: { tiktok: adapter() },
  })
  const copies = (content: string) =>
    [...h.sandboxes!.tiktok.posts.values()].filter((p) => p.title === content || p.description === content)
      .length +
    [...h.sandboxes!.tiktok.drafts.values()].filter((d) => d.title === content || d.description === content)
      .length
  const row = (id: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

  /** A scheduled post's target, claimed by hand as a worker's claim does, its attempt begun `startedAgoMs` ago. */
  async function claimed(
    content: string,
    media: string[],
    tiktok: Record<string, unknown>,
    startedAgoMs = 0,
  ) {
    const { status, body } = await h.call('create_post', {
      content,
      platforms: ['tiktok'],
      mediaUrls: media,
      tiktok,
      scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '12:00',
    })
    expect(status, JSON.stringify(body)).toBe(200)
    await h.app.store.db
      .updateTable('targets')
      .set({
        lease_owner: 'worker-a',
        lease_expires_at: Date.now() + 120_000,
        attempts: 1,
        attempt_started_at: Date.now() - startedAgoMs,
      })
      .where('post_id', '=', body.posts[0].id)
      .execute()
    return h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', body.posts[0].id)
      .executeTakeFirstOrThrow()
  }

  /** The queued lookup, as the worker runs it once it is due: the target marked unknown and claimed again. */
  async function lookedUp(targetId: string) {
    const before = await row(targetId)
    await h.app.store.db
      .updateTable('targets')
      .set({
        unknown_outcome_at: before.unknown_outcome_at ?? Date.now(),
        lease_owner: 'worker-b',
        lease_expires_at: Date.now() + 120_000,
      })
      .where('id', '=', targetId)
      .execute()
    return sendTarget(deps(), await row(targetId), new AbortController().signal)
  }

  /** The send as the worker makes it; a late answer is given up on as the worker's client would. */
  const send = (target: Awaited<ReturnType<typeof claimed>>, late: boolean) =>
    sendTarget(deps(), target, late ? AbortSignal.timeout(1_500) : new AbortController().signal)

  it.each(FAULTS)(
    'the last chunk of a public video answered with %s: one video, recorded by its publish id',
    async (name, fault) => {
      const content = `Dawn bake, last chunk ${name} (${backend.name})`
      const target = await claimed(content, [`${media.url}/clip.mp4`], { privacyLevel: 'PUBLIC_TO_EVERYONE' })
      script.on(on('upload'), fault)
      const first = await send(target, fault.answer.kind === 'hang')
      expect(readProgress((await row(target.id)).progress)?.publishId).toMatch(/^v_pub_file~/)
      const result = first.outcome.kind === 'published' ? first : await lookedUp(target.id)
      expect(result.outcome.kind, JSON.stringify(result.outcome)).toBe('published')
      expect(copies(content)).toBe(1)
      const post = [...h.sandboxes!.tiktok.posts.values()].find((p) => p.title === content)!
      expect(result.outcome).toMatchObject({ remoteId: post.id })
      expect(
        [...h.sandboxes!.tiktok.jobs.values()].filter((j) => j.publishId === post.publishId),
      ).toHaveLength(1)
    },
  )

  it.each(FAULTS)(
    'the last chunk of a draft answered with %s: one draft in the inbox',
    async (name, fault) => {
      const content = `Draft, last chunk ${name} (${backend.name})`
      const target = await claimed(content, [`${media.url}/clip.mp4`], { sendAsDraft: true })
      const drafts = h.sandboxes!.tiktok.drafts.size
      script.on(on('upload'), fault)
      const first = await send(target, fault.answer.kind === 'hang')
      const result = first.outcome.kind === 'published' ? first : await lookedUp(target.id)
      expect(result.outcome.kind, JSON.stringify(result.outcome)).toBe('published')
      expect(h.sandboxes!.tiktok.drafts.size - drafts).toBe(1)
    },
  )

  it.each(FAULTS)(
    'a public photo init answered with %s: the lookup finds the one post in the video list',
    async (name, fault) => {
      const content = `Rye loaves, photo init ${name} (${backend.name})`
      const target = await claimed(content, [`${media.url}/a.jpg`, `${media.url}/b.jpg`], {
        privacyLevel: 'PUBLIC_TO_EVERYONE',
      })
      script.on(on('content/init'), fault)
      const first = await send(target, fault.answer.kind === 'hang')
      expect(first.outcome.kind).toBe('check')
      expect(copies(content)).toBe(1)
      const result = await lookedUp(target.id)
      const post = [...h.sandboxes!.tiktok.posts.values()].find((p) => p.description === content)!
      expect(result.outcome).toMatchObject({ kind: 'published', remoteId: post.id })
      expect(copies(content)).toBe(1)
    },
  )

  it.each(FAULTS)(
    'a private photo init answered with %s: stuck with the reason, never sent twice',
    async (name, fault) => {
      const content = `Private crumb, photo init ${name} (${backend.name})`
      const target = await claimed(content, [`${media.url}/a.jpg`], { privacyLevel: 'SELF_ONLY' })
      script.on(on('content/init'), fault)
      const first = await send(target, fault.answer.kind === 'hang')
      expect(first.outcome.kind).toBe('check')
      const result = await lookedUp(target.id)
      expect(result.outcome.kind).toBe('unknown')
      expect((result.outcome as { error: string }).error).toMatch(/TikTok lists public posts only/)
      expect(copies(content)).toBe(1)
    },
  )

  it.each(FAULTS)(
    'a draft photo init answered with %s: stuck with the reason, one draft in the inbox',
    async (name, fault) => {
      const content = `Draft photo, init ${name} (${backend.name})`
      const target = await claimed(content, [`${media.url}/a.jpg`], { sendAsDraft: true })
      script.on(on('content/init'), fault)
      const first = await send(target, fault.answer.kind === 'hang')
      expect(first.outcome.kind).toBe('check')
      const result = await lookedUp(target.id)
      expect(result.outcome.kind).toBe('unknown')
      expect((result.outcome as { error: string }).error).toMatch(/TikTok lists no drafts/)
      expect(copies(content)).toBe(1)
    },
  )

  it('a photo init refused before its effect is looked for, and sent again once TikTok has had its hour', async () => {
    const content = `Spelt, refused before (${backend.name})`
    const target = await claimed(
      content,
      [`${media.url}/a.jpg`],
      { privacyLevel: 'PUBLIC_TO_EVERYONE' },
      2 * 3_600_000,
    )
    script.on(on('content/init'), { timing: 'before', answer: { kind: 'reset' } })
    const first = await send(target, false)
    expect(first.outcome.kind).toBe('check')
    expect(copies(content)).toBe(0)
    const result = await lookedUp(target.id)
    expect(result.outcome.kind, JSON.stringify(result.outcome)).toBe('published')
    expect(copies(content)).toBe(1)
  })

  it('every status poll failing after the upload: looked up by the publish id, never a second init', async () => {
    const content = `Status polls failing (${backend.name})`
    const target = await claimed(content, [`${media.url}/clip.mp4`], {
      privacyLevel: 'MUTUAL_FOLLOW_FRIENDS',
    })
    const inits = () => script.calls.filter(on('video/init')).length
    const before = inits()
    script.on(on('status/fetch'), { timing: 'before', answer: { kind: 'status', status: 503 } }, 10)
    const first = await send(target, false)
    expect(first.outcome.kind).toBe('check')
    script.clear()
    const result = await lookedUp(target.id)
    expect(result.outcome.kind, JSON.stringify(result.outcome)).toBe('published')
    expect(inits() - before).toBe(1)
    expect(copies(content)).toBe(1)
  })
})
