import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sweepAppMedia } from '../../src/modules/media/app-media-sweep.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import { startPostHarness } from '../posts/post-harness.js'
import { solidImage } from './fixtures.js'
import { startServer, type TestServer } from './servers.js'

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789'

const HOUR = 3_600_000
const RETENTION = 168 * HOUR
const slot = { scheduleDate: '2031-02-01', scheduleTime: '09:30' }

describe.each(backends)('hosted media lifetime on $name', (backend) => {
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12))
  let h: Harness
  let sources: TestServer
  let png: Buffer

  beforeAll(async () => {
    png = await solidImage(2000, 600, 'png')
    sources = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) }).end(png)
    })
    h = await startPostHarness(backend, { clock, env: { HERALD_METRICS_TOKEN: METRICS_TOKEN } })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'instagram', 'ig-1', 'harbourcafe')
  })
  afterAll(async () => {
    await h.close()
    await sources.close()
  })

  const stored = (key: string) => {
    const media = h.app.config.media
    return media.driver === 'local' && existsSync(path.join(media.dir, key))
  }
  const removedIds = async () => (await sweepAppMedia(h.app)).removed.map((m) => m.id)
  const upload = async (name: string) => {
    const staged = await h.app.media.stage({
      bytes: png,
      contentType: 'image/png',
      name,
      workspaceId: h.workspaceId,
    })
    await staged.commit(h.app.store.db)
    return staged
  }
  const schedule = async (platform: string, mediaUrl: string) => {
    const { status, body } = await h.call('create_post', {
      content: 'Later',
      platforms: [platform],
      mediaUrl,
      ...slot,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const target = await h.app.store.db
      .selectFrom('targets')
      .select(['id', 'status'])
      .where('post_id', '=', body.posts[0].id)
      .executeTakeFirstOrThrow()
    expect(target.status).toBe('pending')
    return target.id
  }

  it('keeps an upload a pending post names, and removes one nobody uses once its retention is over', async () => {
    const used = await upload('used.png')
    const unused = await upload('unused.png')
    await schedule('twitter', used.url)

    clock.advance(RETENTION - HOUR)
    expect(await removedIds()).toEqual([])
    clock.advance(2 * HOUR)
    expect(await removedIds()).toEqual([unused.record.id])
    expect(stored(unused.record.storageKey)).toBe(false)
    expect((await fetch(unused.url.replace(h.app.config.publicBaseUrl, h.baseUrl))).status).toBe(404)
    expect(stored(used.record.storageKey)).toBe(true)
  })

  it('keeps a converted copy while its target is pending, then for the retention after the target settles', async () => {
    const targetId = await schedule('instagram', `${sources.url}/wide.png`)
    const prepared = await h.app.media.prepare(`${sources.url}/wide.png`, { network: 'instagram', targetId })
    await prepared.dispose()
    const id = /\/media\/([0-9a-f]{32})\//.exec(prepared.publicUrl ?? '')?.[1] as string
    const row = await h.app.store.db
      .selectFrom('media')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()

    // Meta fetches asynchronously: however long the target stays pending, its copy stays.
    clock.advance(3 * RETENTION)
    expect(await removedIds()).not.toContain(id)
    await h.app.store.db
      .updateTable('targets')
      .set({ status: 'published', updated_at: clock.now() })
      .where('id', '=', targetId)
      .execute()
    clock.advance(RETENTION - HOUR)
    expect(await removedIds()).not.toContain(id)
    expect(stored(row.storage_key)).toBe(true)
    clock.advance(2 * HOUR)
    expect(await removedIds()).toContain(id)
    expect(stored(row.storage_key)).toBe(false)
    expect(
      await h.app.store.db.selectFrom('media_uses').selectAll().where('media_id', '=', id).execute(),
    ).toEqual([])
  })

  it('hosts a copy anew when the one with the same bytes was swept, and a use restarts the retention', async () => {
    const first = await h.app.media.prepare(`${sources.url}/wide.png`, { network: 'instagram' })
    await first.dispose()
    clock.advance(RETENTION - HOUR)
    // Sending it again (its own hosted URL) is a use.
    await (await h.app.media.prepare(first.publicUrl as string, { network: 'twitter' })).dispose()
    clock.advance(2 * HOUR)
    const firstId = /\/media\/([0-9a-f]{32})\//.exec(first.publicUrl ?? '')?.[1] as string
    expect(await removedIds()).not.toContain(firstId)
    clock.advance(RETENTION)
    expect(await removedIds()).toContain(firstId)
    const again = await h.app.media.prepare(`${sources.url}/wide.png`, { network: 'instagram' })
    await again.dispose()
    expect(again.publicUrl).not.toBe(first.publicUrl)
    expect((await fetch(again.publicUrl!.replace(h.app.config.publicBaseUrl, h.baseUrl))).status).toBe(200)
  })

  it('shows the space hosted media and the fetch cache use in /metrics', async () => {
    const rows = await h.app.store.db.selectFrom('media').select(['size']).execute()
    const text = await (
      await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text()
    expect(text).toContain(`herald_hosted_media_files ${rows.length}`)
    expect(text).toContain(`herald_hosted_media_bytes ${rows.reduce((sum, r) => sum + Number(r.size), 0)}`)
    const cache = await h.app.media.cache.usage()
    expect(text).toContain(`herald_media_cache_bytes ${cache.bytes}`)
    expect(text).toContain(`herald_media_cache_files ${cache.count}`)
  })

  it('is swept by the worker process on its timer', async () => {
    const unused = await upload('forgotten.png')
    clock.advance(RETENTION + HOUR)
    const worker = createAppWorker(h.app, { id: `sweeper-${backend.name}`, mediaSweepMs: 20 })
    worker.start()
    try {
      const row = () =>
        h.app.store.db.selectFrom('media').select('id').where('id', '=', unused.record.id).executeTakeFirst()
      // The row goes first, then the stored object.
      for (let i = 0; i < 250 && ((await row()) || stored(unused.record.storageKey)); i++)
        await new Promise((resolve) => setTimeout(resolve, 20))
      expect(await row()).toBeUndefined()
      expect(stored(unused.record.storageKey)).toBe(false)
    } finally {
      await worker.stop()
    }
  })
})
