import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import { createMediaService } from '../src/modules/media/media-service.js'
import { probeFile } from '../src/modules/media/probe.js'
import { loadConfig } from '../src/platform/config.js'
import { openStore } from '../src/platform/db/db.js'
import { createSafeFetcher } from '../src/platform/egress/safe-fetch.js'
import { createLogger } from '../src/platform/logger.js'
import { bigMp4, type RangeServer, startRangeServer } from '../test/media/range-server.js'

/**
 * Preflight of a large video URL (what preflight_post and create_post run for each media URL): before,
 * the whole file was downloaded and probed; now the prober reads it with range requests, and a server that
 * ignores ranges costs one download that the fetch-once cache keeps (the next check is a 304).
 * Everything runs on 127.0.0.1; the file is virtual (a header, a filler mdat, the moov at the end).
 */

const MB = 1024 * 1024

export interface PreflightRow {
  name: string
  bytesFetched: number
  seconds: number
}

export async function benchPreflight(sizeMb = 200): Promise<{ sizeMb: number; rows: PreflightRow[] }> {
  const file = bigMp4(sizeMb * MB, 'end')
  const ranged = await startRangeServer({ '/video.mp4': file }, { ranges: true, etag: '"v1"' })
  const ignoring = await startRangeServer({ '/video.mp4': file }, { ranges: false, etag: '"v1"' })
  const dir = await mkdtemp(path.join(tmpdir(), 'herald-bench-preflight-'))
  const store = await openStore({ sqlitePath: ':memory:' })
  const media = createMediaService({
    config: loadConfig({ HERALD_DATA_DIR: dir, HERALD_ALLOW_PRIVATE_MEDIA: '1' }),
    db: store.db,
    logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
    now: () => Date.now(),
  })
  const rows: PreflightRow[] = []
  const measure = async (name: string, server: RangeServer, run: () => Promise<unknown>) => {
    const before = server.bytesSent()
    const started = performance.now()
    await run()
    rows.push({
      name,
      bytesFetched: server.bytesSent() - before,
      seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
    })
  }
  try {
    // The old inspect: the whole file through the guarded fetcher to a temporary file, probed, deleted.
    const fetcher = createSafeFetcher({ allowPrivate: true, tempDir: dir })
    await measure('before: whole download, then probe', ranged, async () => {
      const fetched = await fetcher.fetchToFile(`${ranged.url}/video.mp4`, { maxBytes: 256 * 1024 * MB })
      await probeFile(fetched)
      await fetched.dispose()
    })
    await measure('after: range probe', ranged, () =>
      media.inspect(`${ranged.url}/video.mp4`, { network: 'youtube' }),
    )
    await measure('after, server ignores ranges: first check (download kept)', ignoring, () =>
      media.inspect(`${ignoring.url}/video.mp4`, { network: 'youtube' }),
    )
    await measure('after, server ignores ranges: next check (304)', ignoring, () =>
      media.inspect(`${ignoring.url}/video.mp4`, { network: 'youtube' }),
    )
  } finally {
    await ranged.close()
    await ignoring.close()
    await store.destroy()
    await rm(dir, { recursive: true, force: true })
  }
  return { sizeMb, rows }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await benchPreflight()
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
}
