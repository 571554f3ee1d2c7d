import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { sweepHostedMedia } from '../../src/modules/media/media-lifetime.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { mp4File } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * An Instagram reel through the Meta simulator, whose fetcher downloads Herald's hosted copy only after
 * the container is created (mid-publish, while the target is pending). Sweeps that treat every file as
 * long expired run all the while: the copy a pending target needs survives them, then goes once its
 * target has settled and the retention has passed.
 */
describe('a hosted copy outlives its Instagram container processing, then expires', () => {
  let h: Harness
  let worker: Worker
  let sources: TestServer
  const clip = mp4File({ width: 1080, height: 1920, durationMs: 9000, mdatBytes: 48 * 1024 })
  const meta = () => `${h.baseUrl}${sandboxPrefixes.facebook}`

  beforeAll(async () => {
    sources = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(clip.length) }).end(clip)
    })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '30000' },
    })
    worker = createAppWorker(h.app, { id: 'e2e-media-lifetime' })
    worker.start()
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'instagram', username: 'solo.maker' })
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await sources?.close()
  })

  it('is fetched by Meta after the publish call started, survives sweeps while pending, and is removed after the retention', async () => {
    const retentionMs = h.app.config.mediaRetention.retentionMs
    const sweep = (now: number) =>
      sweepHostedMedia({ db: h.app.store.db, storage: h.app.media.storage, now, retentionMs })
    const state = async () =>
      (await (await fetch(`${meta()}/_sandbox/state`)).json()) as { fetches: { url: string; ok: boolean }[] }
    const hostedFetches = async () =>
      (await state()).fetches.filter((f) => f.url.startsWith(`${h.baseUrl}/media/`))
    const targetStatus = async () =>
      (await h.app.store.db.selectFrom('targets').select('status').executeTakeFirst())?.status
    let publishing = true
    const removedWhilePending: string[] = []
    const sweeping = (async () => {
      // Until Meta has fetched the copy: the target is pending (or not created yet) all that time.
      while (publishing && (await hostedFetches()).length === 0) {
        const before = await targetStatus()
        // Any file no pending target needs would be removed by these (a month past every retention).
        const result = await sweep(Date.now() + 30 * 24 * 3_600_000)
        if (before !== 'published' && (await targetStatus()) !== 'published')
          removedWhilePending.push(...result.removed.map((m) => m.id))
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    })()
    const { status, body } = await h.call('create_post', {
      content: 'Latte art',
      targetAccounts: [{ platform: 'instagram', username: 'solo.maker' }],
      mediaUrls: [`${sources.url}/clip.mp4`],
      publishImmediately: true,
    })
    publishing = false
    await sweeping
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.posts[0].status, JSON.stringify(body)).toBe('published')

    const fetched = await hostedFetches()
    expect(fetched.length).toBeGreaterThan(0)
    expect(fetched.every((f) => f.ok)).toBe(true)
    const mediaId = /\/media\/([0-9a-f]{32})\//.exec(fetched[0]!.url)?.[1] as string
    expect(removedWhilePending).not.toContain(mediaId)
    const target = await h.app.store.db
      .selectFrom('targets')
      .select(['id', 'updated_at'])
      .where('post_id', '=', body.posts[0].id)
      .executeTakeFirstOrThrow()
    const link = await h.app.store.db
      .selectFrom('media_uses')
      .selectAll()
      .where('media_id', '=', mediaId)
      .executeTakeFirstOrThrow()
    expect(link.target_id).toBe(target.id)

    const settled = Number(target.updated_at)
    expect((await sweep(settled + retentionMs - 60_000)).removed).toEqual([])
    const removed = await sweep(settled + retentionMs + 60_000)
    expect(removed.removed.map((m) => m.id)).toContain(mediaId)
    expect((await fetch(fetched[0]!.url)).status).toBe(404)
  }, 60_000)
})
