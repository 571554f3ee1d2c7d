import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import { markStuck } from '../../src/modules/delivery/leases.js'
import { readProgress } from '../../src/modules/delivery/progress.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { openStore } from '../../src/platform/db/db.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { connectMetaGrant } from '../helpers/meta-connect.js'
import { waitFor } from '../helpers/worker-processes.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * A real worker process publishing to Instagram (the Meta simulator inside a Herald test server that
 * shares its SQLite file and data folder), SIGKILLed mid-publish. After the stuck target is reset and sent
 * again by another worker: one post, made from the container the killed worker recorded.
 */
describe('a worker process SIGKILLed while publishing to Instagram', () => {
  let dir: string
  let h: Harness
  let images: TestServer
  let second: Worker | undefined
  const children: ChildProcess[] = []
  const meta = () => `${h.baseUrl}${sandboxPrefixes.instagram}`
  const state = async () => (await (await fetch(`${meta()}/_sandbox/state`)).json()) as Record<string, any[]>
  const fault = (op: string, action: string) =>
    fetch(`${meta()}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op, action }),
    })

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'herald-meta-kill-'))
    const photo = await solidImage(1080, 1080, 'jpeg')
    images = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      res.end(photo)
    })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      backend: { name: 'sqlite', open: () => openStore({ sqlitePath: path.join(dir, 'herald.sqlite') }) },
      env: {
        HERALD_DATA_DIR: dir,
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
        HERALD_IMMEDIATE_WAIT_MS: '0',
        // A lookup that cannot ask (the hung status poll) is tried again soon, not in a minute.
        HERALD_UNKNOWN_OUTCOME_CHECK_MS: '200',
      },
    })
    await connectMetaGrant(h, 'Kill Bakery')
  }, 60_000)
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    await second?.stop()
    await h?.close()
    await images?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  async function startWorkerProcess(id: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/meta-worker-process.ts'], {
      env: { ...process.env, WORKER_DATA_DIR: dir, WORKER_PUBLIC_BASE_URL: h.baseUrl, WORKER_ID: id },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    const stderr: string[] = []
    child.stderr?.on('data', (chunk) => stderr.push(chunk.toString()))
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk) => {
        if (chunk.toString().includes('ready')) resolve()
      })
      child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${stderr.join('')}`)))
    })
    return child
  }

  async function kill(child: ChildProcess) {
    const exited = new Promise((resolve) => child.on('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }

  /** After a kill: the sweep marks the target stuck once its lease runs out, reset_stuck_post releases it, publish_post_now re-arms it. */
  async function resendWithAnotherWorker(postId: string) {
    await new Promise((resolve) => setTimeout(resolve, 1_700))
    await markStuck(h.app.store, Date.now(), 'worker died')
    const reset = await h.call('reset_stuck_post', { id: postId })
    expect(reset.status, JSON.stringify(reset.body)).toBe(200)
    second = createAppWorker(h.app, { id: `meta-kill-second-${postId}` })
    second.start()
    try {
      const again = await h.call('publish_post_now', { id: postId })
      expect(again.status, JSON.stringify(again.body)).toBe(200)
      await waitFor(
        async () => (await h.call('get_post', { id: postId })).body.status === 'published',
        60_000,
        'the post to be published by the second worker',
      ).catch(async (error: Error) => {
        // Say where the target stands, so a failure on a loaded machine can be read from the log.
        const row = await target(postId)
        throw new Error(
          `${error.message}; target ${row.status}, lease ${row.lease_owner}, error ${row.error}`,
        )
      })
    } finally {
      // Only the process under test may claim the next post.
      await second.stop()
      second = undefined
    }
  }

  const target = async (postId: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow()

  it('killed after the container exists and before media_publish: the retry publishes one post from that container', async () => {
    // The container status poll never answers: the worker sits after the container was recorded.
    await fault('container_status', 'hang_before')
    const worker = await startWorkerProcess('meta-kill-a')
    const { status, body } = await h.call('create_post', {
      content: 'Killed before media_publish',
      platforms: ['instagram'],
      mediaUrl: `${images.url}/bread.jpg`,
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const postId = body.posts[0].id as string
    await waitFor(
      async () => Boolean(readProgress((await target(postId)).progress)?.container),
      30_000,
      'the container id on the target',
    )
    await kill(worker)
    const container = readProgress((await target(postId)).progress)!.container!
    const before = await state()
    expect(before.media!.filter((m) => m.caption === 'Killed before media_publish')).toHaveLength(0)

    await resendWithAnotherWorker(postId)
    const after = await state()
    const posts = after.media!.filter((m) => m.caption === 'Killed before media_publish')
    expect(posts).toHaveLength(1)
    expect(after.containers!.filter((c) => c.caption === 'Killed before media_publish')).toHaveLength(1)
    expect(after.containers!.find((c) => c.id === container).mediaId).toBe(posts[0].id)
    expect((await target(postId)).remote_id).toBe(posts[0].id)
    expect(after.violations).toEqual([])
  }, 120_000)

  it('killed after media_publish was sent: the lookup resolves the target, and the resend makes no second post', async () => {
    await fault('media_publish', 'hang_after')
    const worker = await startWorkerProcess('meta-kill-b')
    const since = Date.now()
    const { body } = await h.call('create_post', {
      content: 'Killed after media_publish',
      platforms: ['instagram'],
      mediaUrl: `${images.url}/bread.jpg`,
      publishImmediately: true,
    })
    const postId = body.posts[0].id as string
    await waitFor(
      async () => (await state()).media!.some((m) => m.caption === 'Killed after media_publish'),
      30_000,
      'media_publish to reach the simulator',
    )
    await kill(worker)
    const row = await target(postId)
    const connection = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', row.connection_id)
      .executeTakeFirstOrThrow()
    const found = await lookupMatch(h.app.adapters.instagram!)({
      targetId: row.id,
      profile: {
        profileId: connection.profile_id,
        username: connection.username,
        name: connection.name,
        isOrganization: false,
      },
      credentials: h.app.vault.openJson(connectionCredentials(connection.id), connection.credentials),
      content: row.content,
      mediaUrls: JSON.parse(row.media_urls),
      since,
      progress: readProgress(row.progress)!,
      signal: new AbortController().signal,
    })
    const published = (await state()).media!.filter((m) => m.caption === 'Killed after media_publish')
    expect(published).toHaveLength(1)
    expect(found?.remoteId).toBe(published[0].id)

    await resendWithAnotherWorker(postId)
    expect((await state()).media!.filter((m) => m.caption === 'Killed after media_publish')).toHaveLength(1)
    expect((await target(postId)).remote_id).toBe(published[0].id)
  }, 120_000)
})
