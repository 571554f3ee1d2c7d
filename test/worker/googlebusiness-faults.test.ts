import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NO_API_ACCESS_MESSAGE } from '../../src/adapters/googlebusiness/index.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import type { Fault } from '../../src/sandbox/fault-injector.js'
import { backends } from '../helpers/backends.js'
import { type ScriptedFaults, scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * Faults after the effect on Google Business Profile's one publishing call (a local post's creation),
 * through the real worker, tools, adapter and simulator: a 5xx, a 429, an answer that comes too late, a
 * cut connection, each after Google made the post, ends with that one post published and found by the
 * lookup; a refusal before anything was made ends with one post after a certain "not there"; evidence the
 * lookup cannot decide on leaves the target stuck with a reason and sends nothing more. The oracle is what
 * the simulator holds, never Herald's rows.
 */

// A late answer is given up on after a second here, not after the adapter's 30 s.
const realTimeout = AbortSignal.timeout.bind(AbortSignal)
AbortSignal.timeout = (ms: number) => realTimeout(Math.min(ms, 1_000))

const CREATE = { network: 'googlebusiness', operation: 'localPosts.create' } as const

describe.each(backends)('faults after the effect on Google Business Profile, on $name', (backend) => {
  const clock = new FakeClock(Date.UTC(2026, 9, 1, 9))
  let faults: ScriptedFaults
  let h: Harness
  let photos: TestServer
  let worker: Worker
  let location: string

  beforeAll(async () => {
    const photo = await solidImage(1200, 900, 'jpeg')
    photos = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      res.end(photo)
    })
    faults = scriptedFaults()
    h = await startHarness({
      backend,
      sandbox: true,
      clock,
      faults,
      credits: 1000,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'googlebusiness',
      username: 'Fault Bakery',
    })
    location = connected.profileId
    worker = createAppWorker(h.app, { id: `gbp-faults-${backend.name}` })
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await photos?.close()
  })

  const copies = (summary: string) =>
    [...h.sandboxes!.googlebusiness.posts.values()].filter((p) => p.post.summary === summary)
  const target = (postId: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow()
  const offer = async (content: string) => {
    const created = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'googlebusiness', profileId: location }],
      mediaUrl: `${photos.url}/offer.jpg`,
      googlebusiness: {
        type: 'offer',
        event: { title: content.slice(0, 40), startDate: '2026-10-02', endDate: '2026-10-20' },
        offer: { couponCode: 'FAULT10' },
      },
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    return created.body.postIds[0] as string
  }
  /** Runs the worker, a minute and a half of the clock each pass, until the target settles or is stuck. */
  const settle = async (postId: string) => {
    for (let pass = 0; pass < 40; pass++) {
      await worker.tick()
      await worker.idle()
      const row = await target(postId)
      if (row.status !== 'pending' || row.stuck_at !== null) return row
      clock.advance(90_000)
    }
    throw new Error('the target never settled')
  }

  it.each<[string, Fault]>([
    ['a 500', { timing: 'after', answer: { kind: 'status', status: 500 } }],
    ['a 503', { timing: 'after', answer: { kind: 'status', status: 503 } }],
    ['a 429', { timing: 'after', answer: { kind: 'status', status: 429 } }],
    ['an answer past the client’s patience', { timing: 'after', answer: { kind: 'hang' } }],
    ['a cut connection', { timing: 'after', answer: { kind: 'reset' } }],
  ])(
    'publishes the one post Google made before %s, found by the lookup',
    async (what, fault) => {
      const content = `Offer answered by ${what}`
      faults.on(CREATE, fault)
      const id = await offer(content)
      const settled = await settle(id)
      expect(copies(content)).toHaveLength(1)
      expect(settled).toMatchObject({ status: 'published', remote_id: copies(content)[0]!.name })
      // A rate limit's wait is not an attempt.
      const limited = fault.answer.kind === 'status' && fault.answer.status === 429
      expect(settled.attempts).toBe(limited ? 0 : 1)
    },
    60_000,
  )

  it('sends again only after the lookup is sure nothing was made, and makes one post', async () => {
    const content = 'Offer refused before anything was made'
    faults.on(CREATE, { timing: 'before', answer: { kind: 'status', status: 503 } })
    const id = await offer(content)
    const settled = await settle(id)
    expect(settled.status).toBe('published')
    expect(copies(content)).toHaveLength(1)
    expect(settled.attempts).toBe(2)
  }, 60_000)

  it('fails the target in words, sending nothing, while Google has not granted the project access', async () => {
    const content = 'Offer while the project has no access'
    h.sandboxes!.googlebusiness.accessGranted = false
    try {
      const id = await offer(content)
      const settled = await settle(id)
      expect(settled.status).toBe('failed')
      expect(settled.error).toBe(NO_API_ACCESS_MESSAGE)
      const post = await h.call('get_post', { id })
      expect(post.body.targets[0].error).toContain('until Google approves the project')
    } finally {
      h.sandboxes!.googlebusiness.accessGranted = true
    }
    expect(copies(content)).toHaveLength(0)
  }, 60_000)

  it('leaves the target stuck with a reason when the location holds two posts like it, and sends nothing more', async () => {
    const content = 'Offer the lookup cannot tell apart'
    const sim = h.sandboxes!.googlebusiness
    faults.on(CREATE, { timing: 'after', answer: { kind: 'status', status: 500 } })
    const id = await offer(content)
    await worker.tick()
    await worker.idle()
    // Someone made the same offer by hand at the location in the meantime.
    const [made] = copies(content)
    sim.addPost(sim.locations.get(location)!, made!.post, made!.photo)
    const settled = await settle(id)
    expect(settled.stuck_at).not.toBeNull()
    expect(settled.error).toContain('cannot tell whether the unanswered attempt went out')
    expect(copies(content)).toHaveLength(2)
    const answer = await h.call('get_post', { id })
    expect(answer.body.status).toBe('processing')
  }, 60_000)
})
