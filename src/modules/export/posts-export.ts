import { once } from 'node:events'
import type { Writable } from 'node:stream'
import type { Db } from '../../platform/db/db.js'
import { latestPostReadings, type ReadingRow } from '../../platform/db/statements/analytics.js'
import { type PostFilter, pageMatchingPostsBefore } from '../../platform/db/statements/post-search.js'
import { targetsOf } from '../../platform/db/statements/posts.js'
import { groupTargets, presentPost } from '../publishing/present.js'
import type { PostView } from '../publishing/schemas.js'
import { csvLine } from './csv.js'

/**
 * A workspace's posts out of Herald, as JSON (the shape the tools answer, each profile's delivery with its
 * latest analytics reading) or CSV (one line per post and profile), narrowed by the filters list_posts takes.
 * Both are written as they are read, a page at a time, so an export of any size runs in bounded memory.
 */

export type ExportFormat = 'csv' | 'json'

export interface LatestAnalytics {
  fetchedAt: string
  views: number | null
  likes: number | null
  comments: number | null
  shares: number | null
  saves: number | null
  clicks: number | null
  engagements: number | null
  /** Why the latest read failed, when it did. */
  error?: string
}

export type ExportedPost = PostView & {
  targets: Array<PostView['targets'][number] & { analytics: LatestAnalytics | null }>
}

const PAGE = 500

const SUMMARY_KEYS = ['views', 'likes', 'comments', 'shares', 'saves', 'clicks', 'engagements'] as const

function analyticsOf(reading: ReadingRow | undefined): LatestAnalytics | null {
  if (!reading) return null
  const summary = JSON.parse(reading.summary) as Record<string, number | null>
  return {
    fetchedAt: new Date(Number(reading.fetched_at)).toISOString(),
    ...(Object.fromEntries(SUMMARY_KEYS.map((k) => [k, summary[k] ?? null])) as Record<
      (typeof SUMMARY_KEYS)[number],
      number | null
    >),
    ...(reading.error ? { error: reading.error } : {}),
  }
}

/** Every matching post, newest first, a page at a time, with its targets and their latest readings. */
export async function* exportedPosts(
  db: Db,
  workspaceId: string,
  filter: PostFilter,
  now: number,
): AsyncGenerator<ExportedPost> {
  let before: string | undefined
  for (;;) {
    const rows = await pageMatchingPostsBefore(db, workspaceId, filter, { before, limit: PAGE })
    if (rows.length === 0) return
    const targetRows = await targetsOf(
      db,
      rows.map((r) => r.id),
    )
    const readings = await latestPostReadings(
      db,
      targetRows.map((t) => t.id),
    )
    const byPost = groupTargets(targetRows)
    for (const row of rows) {
      const targets = byPost.get(row.id) ?? []
      const view = presentPost(row, targets, now)
      yield {
        ...view,
        targets: view.targets.map((t, i) => ({
          ...t,
          analytics: analyticsOf(readings.get(targets[i]?.id ?? '')),
        })),
      }
    }
    if (rows.length < PAGE) return
    before = rows.at(-1)?.id
  }
}

/** The CSV's columns, in order: the post, then the profile's delivery and its latest figures. */
export const CSV_COLUMNS = [
  'post_id',
  'compose_id',
  'status',
  'approval',
  'schedule_date',
  'schedule_time',
  'timezone',
  'due_at',
  'created_at',
  'content',
  'media_urls',
  'platform',
  'profile_id',
  'username',
  'delivery_status',
  'remote_id',
  'remote_url',
  'published_at',
  'error',
  'analytics_fetched_at',
  ...SUMMARY_KEYS,
] as const

function csvRows(post: ExportedPost): Array<Array<string | number | null>> {
  const postCells = [
    post.id,
    post.composeId ?? post.id,
    post.status,
    post.approval?.state ?? '',
    post.scheduleDate,
    post.scheduleTime,
    post.timezone,
    post.dueAt ?? '',
    post.createdAt,
    post.content,
    post.mediaUrls.join(' '),
  ]
  const targets: Array<ExportedPost['targets'][number] | undefined> =
    post.targets.length > 0 ? post.targets : [undefined]
  return targets.map((t) => [
    ...postCells,
    t?.platform ?? '',
    t?.profileId ?? '',
    t?.username ?? '',
    t?.status ?? '',
    t?.postId ?? '',
    t?.url ?? '',
    t?.publishedAt ?? '',
    t?.error ?? '',
    t?.analytics?.fetchedAt ?? '',
    ...SUMMARY_KEYS.map((k) => t?.analytics?.[k] ?? null),
  ])
}

/** Writes to `out`, waiting when it is full. */
async function write(out: Writable, text: string) {
  if (!out.write(text)) await once(out, 'drain')
}

export interface ExportSummary {
  posts: number
  rows: number
}

/** Writes the export to `out` (left open: the caller ends it). */
export async function writeExport(
  out: Writable,
  format: ExportFormat,
  posts: AsyncIterable<ExportedPost>,
  header: { workspace: { id: string; name: string }; exportedAt: string; filter: PostFilter },
): Promise<ExportSummary> {
  let count = 0
  let rows = 0
  if (format === 'csv') {
    // A byte order mark, so spreadsheet programs read the copy as UTF-8.
    await write(out, `\uFEFF${csvLine([...CSV_COLUMNS])}`)
    for await (const post of posts) {
      count++
      for (const row of csvRows(post)) {
        rows++
        await write(out, csvLine(row))
      }
    }
    return { posts: count, rows }
  }
  const head = JSON.stringify({ ...header, filter: header.filter })
  await write(out, `${head.slice(0, -1)},"posts":[`)
  for await (const post of posts) {
    await write(out, `${count === 0 ? '\n' : ',\n'}${JSON.stringify(post)}`)
    count++
  }
  await write(out, '\n]}\n')
  return { posts: count, rows: count }
}
