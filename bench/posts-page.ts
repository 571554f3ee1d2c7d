import { loadavg } from 'node:os'
import { pathToFileURL } from 'node:url'
import { sql } from 'kysely'
import { type Backend, backends } from '../test/helpers/backends.js'
import { createBrowser } from '../test/helpers/browser.js'
import { connectProfile } from '../test/helpers/connections.js'
import { startHarness } from '../test/helpers/harness.js'
import { percentile, round } from './stats.js'

/**
 * The Posts page rendered by the server with 10,000 posts in the workspace: 2,500 composes of four
 * profiles each, made through create_post (so they carry their compose ids, as real ones do). Each view is
 * requested signed in, through Fastify's inject (no socket: the figure is the server's own time, from the
 * session check to the last byte of HTML), after a warm-up; the list and its filters page by compose.
 */

export interface PostsPageRow {
  backend: string
  view: string
  requests: number
  p50Ms: number
  p95Ms: number
  p99Ms: number
  /** Node's own CPU time per request, on average (the database server's is not in it on Postgres). */
  cpuMs: number
  /** The machine's 1-minute load average when the view's requests began and ended. */
  load: [number, number]
}

const PROFILES = [
  { platform: 'twitter', profileId: 'tw-1', username: 'acme' },
  { platform: 'bluesky', profileId: 'bs-1', username: 'acme.bsky.social' },
  { platform: 'threads', profileId: 'th-1', username: 'acme' },
  { platform: 'linkedin', profileId: 'li-1', username: 'Acme Corporation' },
] as const

const WORDS = ['launch', 'harbour', 'spring', 'sale', 'workshop', 'recipe', 'interview', 'release']

export async function benchPostsPage(
  backend: Backend,
  options: { posts?: number; requests?: number } = {},
): Promise<PostsPageRow[]> {
  const posts = options.posts ?? 10_000
  const requests = options.requests ?? 200
  const h = await startHarness({
    backend,
    credits: 10_000_000,
    env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_RATE_LIMIT_PER_MINUTE: '1000000' },
  })
  try {
    for (const p of PROFILES) await connectProfile(h, p.platform, p.profileId, p.username)
    const composes = Math.ceil(posts / PROFILES.length)
    const created: string[] = []
    for (let start = 0; start < composes; start += 16) {
      const batch = Array.from({ length: Math.min(16, composes - start) }, (_, j) => start + j)
      const ids = await Promise.all(
        batch.map(async (i) => {
          const day = String(1 + (i % 28)).padStart(2, '0')
          const res = await h.call('create_post', {
            content: `Post ${i} about the ${WORDS[i % WORDS.length]}\nThe rest of the copy, line two.`,
            targetAccounts: PROFILES.map((p) => ({ platform: p.platform, profileId: p.profileId })),
            scheduleDate: `2031-${String(1 + (i % 12)).padStart(2, '0')}-${day}`,
            scheduleTime: '09:00',
            timezone: 'Europe/Paris',
          })
          if (res.status !== 200)
            throw new Error(`create_post answered ${res.status}: ${JSON.stringify(res.body)}`)
          return res.body.postIds[0] as string
        }),
      )
      created.push(...ids)
    }
    // A Postgres in service has its planner's statistics (autovacuum gathers them); a table filled a moment
    // ago does not yet, and without them the planner sorts the whole workspace instead of walking an index.
    if (backend.name === 'postgres') await sql`ANALYZE`.execute(h.app.store.db)
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    const views: Array<[string, string]> = [
      ['list, first page', '/posts'],
      ['list, page 60', '/posts?page=60'],
      ['list, search in the copy', '/posts?q=harbour'],
      [
        'list, network, status and dates',
        '/posts?network=bluesky&status=scheduled&from=2031-03-01&to=2031-06-30',
      ],
      ['a post page (four profiles)', `/posts/${created[Math.floor(created.length / 2)]}`],
    ]
    const rows: PostsPageRow[] = []
    for (const [view, url] of views) {
      const once = async () => {
        const started = performance.now()
        const res = await h.server.inject({ method: 'GET', url, headers: { cookie } })
        const ms = performance.now() - started
        if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`)
        return ms
      }
      for (let i = 0; i < 20; i++) await once()
      const loadBefore = round(loadavg()[0] ?? 0)
      const times: number[] = []
      const cpu = process.cpuUsage()
      for (let i = 0; i < requests; i++) times.push(await once())
      const used = process.cpuUsage(cpu)
      rows.push({
        backend: backend.name === 'sqlite' ? 'SQLite' : 'Postgres',
        view,
        requests,
        p50Ms: round(percentile(times, 50)),
        p95Ms: round(percentile(times, 95)),
        p99Ms: round(percentile(times, 99)),
        cpuMs: round((used.user + used.system) / 1000 / requests),
        load: [loadBefore, round(loadavg()[0] ?? 0)],
      })
    }
    return rows
  } finally {
    await h.close()
  }
}

export async function benchPostsPages(): Promise<PostsPageRow[]> {
  const rows: PostsPageRow[] = []
  for (const backend of backends) rows.push(...(await benchPostsPage(backend)))
  return rows
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await benchPostsPages(), null, 2)}\n`)
}
