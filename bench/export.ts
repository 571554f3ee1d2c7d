import { Writable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import { sql } from 'kysely'
import { type ExportFormat, exportedPosts, writeExport } from '../src/modules/export/posts-export.js'
import { insertReading } from '../src/platform/db/statements/analytics.js'
import { type Backend, backends } from '../test/helpers/backends.js'
import { connectProfile } from '../test/helpers/connections.js'
import { startHarness } from '../test/helpers/harness.js'
import { seedScheduledPosts } from '../test/helpers/seed.js'
import { round } from './stats.js'

/**
 * The export of a workspace holding 10,000 posts (each with its target, half of them with an analytics
 * reading), as CSV and as JSON, written to a sink that only counts the bytes: the figure is Herald's own
 * reading and writing, a page of 500 posts at a time, without the network or a disk in it.
 */

export interface ExportRow {
  backend: string
  format: ExportFormat
  posts: number
  seconds: number
  megabytes: number
}

const POSTS = 10_000

class CountingSink extends Writable {
  bytes = 0
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.bytes += chunk.length
    done()
  }
}

export async function benchExport(backend: Backend): Promise<ExportRow[]> {
  const h = await startHarness({ backend })
  try {
    const connectionId = await connectProfile(h, 'twitter', 'tw-1', 'acme')
    const ids = await seedScheduledPosts(h.app.store, {
      workspaceId: h.workspaceId,
      authorId: h.userId,
      connectionId,
      count: POSTS,
      contentOf: (i) => `Post ${i}, about the "spring" launch\nwith a second line, and =formula-looking copy`,
    })
    const targets = await h.app.store.db.selectFrom('targets').select('id').execute()
    for (const [i, target] of targets.entries())
      if (i % 2 === 0)
        await insertReading(h.app.store.db, {
          workspaceId: h.workspaceId,
          kind: 'post',
          targetId: target.id,
          connectionId,
          fetchedAt: Date.now(),
          summary: { views: i, likes: 3, comments: 1, shares: 0, saves: null, clicks: null, engagements: 4 },
          metrics: {},
          window: null,
          source: 'bench',
          error: '',
          unavailable: false,
        })
    if (backend.name === 'postgres') await sql`ANALYZE`.execute(h.app.store.db)
    const rows: ExportRow[] = []
    for (const format of ['csv', 'json'] as const) {
      const sink = new CountingSink()
      const started = performance.now()
      const posts = exportedPosts(h.app.store.db, h.workspaceId, {}, Date.now())
      const header = {
        workspace: { id: h.workspaceId, name: 'Acme' },
        exportedAt: new Date().toISOString(),
        filter: {},
      }
      const summary = await writeExport(sink, format, posts, header)
      const seconds = (performance.now() - started) / 1000
      if (summary.posts !== ids.length) throw new Error(`exported ${summary.posts} of ${ids.length} posts`)
      rows.push({
        backend: backend.name,
        format,
        posts: summary.posts,
        seconds: round(seconds, 2),
        megabytes: round(sink.bytes / 1_048_576),
      })
    }
    return rows
  } finally {
    await h.close()
  }
}

export async function benchExports(): Promise<ExportRow[]> {
  const rows: ExportRow[] = []
  for (const backend of backends) rows.push(...(await benchExport(backend)))
  return rows
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const row of await benchExports()) process.stdout.write(`${JSON.stringify(row)}\n`)
  process.exit(0)
}
