import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NetworkAdapter } from '../../src/networks/adapter.js'
import { sandboxPrefixes } from '../../src/networks/registry.js'
import { readProgress } from '../../src/worker/progress.js'
import { sendTarget } from '../../src/worker/send.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { connectMetaGrant } from '../helpers/meta-connect.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * Crash safety of Instagram publishing through the worker's send path and the target row: the container
 * id is on the target the moment Meta returns it; a retry publishes that container; an unanswered
 * media_publish is resolved by looking among the account's recent media; never two posts.
 */
describe.each(backends)('an Instagram target whose worker dies mid-publish ($name)', (backend) => {
  let h: Harness
  let images: TestServer
  let photo: Buffer
  const meta = () => `${h.baseUrl}${sandboxPrefixes.instagram}`
  const state = async () => (await (await fetch(`${meta()}/_sandbox/state`)).json()) as Record<string, any[]>

  beforeAll(async () => {
    photo = await solidImage(1080, 1080, 'jpeg')
    images = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      res.end(photo)
    })
    h = await startHarness({ backend, sandbox: true, credits: 500, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
    await connectMetaGrant(h, 'Crash Bakery')
  }, 60_000)
  afterAll(async () => {
    await h?.close()
    await images?.close()
  })

  /** A scheduled Instagram post whose target this test claims by hand, as a worker's claim does. */
  async function claimedTarget(content: string, workerId: string) {
    const { status, body } = await h.call('create_post', {
      content,
      platforms: ['instagram'],
      mediaUrl: `${images.url}/bread.jpg`,
      publishImmediately: false,
      scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '12:00',
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const postId = body.posts[0].id as string
    return claim(postId, workerId)
  }
  async function claim(postId: string, workerId: string) {
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: workerId, lease_expires_at: Date.now() + 60_000, attempts: 1, stuck_at: null })
      .where('post_id', '=', postId)
      .execute()
    return h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
  }
  const deps = (adapter: NetworkAdapter) => ({
    db: h.app.store.db,
    vault: h.app.vault,
    now: () => Date.now(),
    logger: h.app.logger,
    adapters: { instagram: adapter },
  })

  it('killed after the container exists and before media_publish: the retry publishes one post from that container', async () => {
    const real = h.app.adapters.instagram!
    // The process "dies" the moment the container id is on the target: nothing after it runs.
    const dying: NetworkAdapter = {
      ...real,
      publish: (request) =>
        real.publish({
          ...request,
          saveProgress: async (entries) => {
            await request.saveProgress!(entries)
            if (entries.container) throw new Error('SIGKILL')
          },
        }),
    }
    const target = await claimedTarget('Killed before publish', 'worker-a')
    await sendTarget(deps(dying), target, new AbortController().signal)
    const afterCrash = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('id', '=', target.id)
      .executeTakeFirstOrThrow()
    const progress = readProgress(afterCrash.progress)
    expect(progress?.container).toBeDefined()
    const before = await state()
    expect(before.media!.filter((m) => m.caption === 'Killed before publish')).toHaveLength(0)

    const retried = await claim(target.post_id, 'worker-b')
    const result = await sendTarget(deps(real), retried, new AbortController().signal)
    expect(result.outcome.kind).toBe('published')
    const after = await state()
    expect(after.containers!.length).toBe(before.containers!.length)
    const posts = after.media!.filter((m) => m.caption === 'Killed before publish')
    expect(posts).toHaveLength(1)
    expect(after.containers!.find((c) => c.id === progress!.container).mediaId).toBe(posts[0].id)
    expect(after.violations).toEqual([])
  }, 60_000)

  it('killed after media_publish was sent: the lookup resolves the target and a retry never posts twice', async () => {
    const real = h.app.adapters.instagram!
    const target = await claimedTarget('Killed after publish', 'worker-c')
    const since = Date.now()
    await fetch(`${meta()}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'media_publish', action: 'drop_after' }),
    })
    await h.app.store.db
      .updateTable('targets')
      .set({ attempt_started_at: since })
      .where('id', '=', target.id)
      .execute()
    const lost = await sendTarget(
      deps(real),
      { ...target, attempt_started_at: since },
      new AbortController().signal,
    )
    // The worker queues a lookup rather than sending again.
    expect(lost.outcome.kind).toBe('check')
    const row = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('id', '=', target.id)
      .executeTakeFirstOrThrow()
    const connection = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', row.connection_id)
      .executeTakeFirstOrThrow()
    const credentials = h.app.vault.openJson<{ accessToken: string }>(connection.credentials)
    const found = await real.findPublished!({
      targetId: row.id,
      profile: {
        profileId: connection.profile_id,
        username: connection.username,
        name: connection.name,
        isOrganization: false,
      },
      credentials,
      content: row.content,
      mediaUrls: JSON.parse(row.media_urls),
      since,
      progress: readProgress(row.progress)!,
      signal: new AbortController().signal,
    })
    const published = (await state()).media!.filter((m) => m.caption === 'Killed after publish')
    expect(published).toHaveLength(1)
    expect(found?.remoteId).toBe(published[0].id)

    // The queued lookup, as the worker runs it: the target carries when the outcome became unknown.
    await h.app.store.db
      .updateTable('targets')
      .set({ unknown_outcome_at: since })
      .where('id', '=', target.id)
      .execute()
    const retried = await claim(target.post_id, 'worker-d')
    const again = await sendTarget(deps(real), retried, new AbortController().signal)
    expect(again.outcome).toMatchObject({ kind: 'published', remoteId: published[0].id })
    expect((await state()).media!.filter((m) => m.caption === 'Killed after publish')).toHaveLength(1)
  }, 60_000)

  it('refuses to record progress once the lease belongs to another worker', async () => {
    const real = h.app.adapters.instagram!
    const target = await claimedTarget('Lease lost', 'worker-e')
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'worker-f' })
      .where('id', '=', target.id)
      .execute()
    const result = await sendTarget(deps(real), target, new AbortController().signal)
    expect(result.outcome.kind).not.toBe('published')
    expect((await state()).media!.filter((m) => m.caption === 'Lease lost')).toHaveLength(0)
  }, 60_000)
})
