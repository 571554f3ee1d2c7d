import type { Db } from '../../platform/db/db.js'
import { latestPostReadings } from '../../platform/db/statements/analytics.js'
import { Avatar, handleOf } from './ui/avatar.js'
import { TableCard } from './ui/parts.js'

/**
 * The published posts with their latest figures, one row per profile's copy, sortable by engagement, views or
 * date on the server (the `sort` query parameter), so the table works without a script.
 */

/** How many of the newest published copies the table reads and sorts. */
const POST_ROWS = 100

export const POST_SORTS = ['engagement', 'views', 'published'] as const
export type PostSort = (typeof POST_SORTS)[number]
export const postSortOf = (value: unknown): PostSort =>
  POST_SORTS.includes(value as PostSort) ? (value as PostSort) : 'engagement'

interface PostFigures {
  postId: string
  platform: string
  username: string
  content: string
  publishedAt: number
  read: boolean
  views: number | null
  likes: number | null
  comments: number | null
  shares: number | null
  engagement: number | null
}

/** Engagement as the network counts it, or the sum of the reactions it reports. */
function engagementOf(summary: Record<string, number | null>): number | null {
  if (typeof summary.engagements === 'number') return summary.engagements
  const parts = [summary.likes, summary.comments, summary.shares, summary.saves].filter(
    (n): n is number => typeof n === 'number',
  )
  return parts.length ? parts.reduce((a, b) => a + b, 0) : null
}

export async function publishedPostFigures(db: Db, workspaceId: string, sort: PostSort) {
  const targets = await db
    .selectFrom('targets')
    .innerJoin('posts', 'posts.id', 'targets.post_id')
    .select([
      'targets.id',
      'targets.post_id',
      'targets.platform',
      'targets.username',
      'targets.content',
      'targets.published_at',
      'posts.content as post_content',
    ])
    .where('targets.workspace_id', '=', workspaceId)
    .where('targets.status', '=', 'published')
    .orderBy('targets.published_at', 'desc')
    .limit(POST_ROWS)
    .execute()
  const readings = await latestPostReadings(
    db,
    targets.map((t) => t.id),
  )
  const rows: PostFigures[] = targets.map((t) => {
    const reading = readings.get(t.id)
    const summary = reading ? (JSON.parse(reading.summary) as Record<string, number | null>) : {}
    return {
      postId: t.post_id,
      platform: t.platform,
      username: t.username,
      content: t.content || t.post_content,
      publishedAt: Number(t.published_at ?? 0),
      read: reading !== undefined && reading.error === '',
      views: summary.views ?? null,
      likes: summary.likes ?? null,
      comments: summary.comments ?? null,
      shares: summary.shares ?? null,
      engagement: engagementOf(summary),
    }
  })
  const key = (r: PostFigures) =>
    sort === 'published' ? r.publishedAt : ((sort === 'views' ? r.views : r.engagement) ?? -1)
  return rows.sort((a, b) => key(b) - key(a) || b.publishedAt - a.publishedAt)
}

const SORT_LABELS: Record<PostSort, string> = {
  engagement: 'Engagement',
  views: 'Views',
  published: 'Published',
}

/** A column head that sorts by it: a link (the current one marked with aria-sort). */
function SortHead({ column, current }: { column: PostSort; current: PostSort }) {
  const label = SORT_LABELS[column]
  if (column === current)
    return (
      <th scope="col" class="figure" aria-sort="descending">
        <span class="sorted">{label} ↓</span>
      </th>
    )
  return (
    <th scope="col" class="figure">
      <a href={`/analytics?sort=${column}#posts`}>{label}</a>
    </th>
  )
}

const Figure = ({ n }: { n: number | null }) => (
  <td class="figure">{n === null ? <span class="muted">–</span> : n.toLocaleString('en-US')}</td>
)

function excerpt(content: string) {
  const line = content.trim().split('\n')[0] ?? ''
  return line.length > 70 ? `${line.slice(0, 67).trimEnd()}…` : line || 'A post without copy'
}

/** The table, or what it will show once posts are published. */
export function PostFiguresTable({ rows, sort }: { rows: PostFigures[]; sort: PostSort }) {
  if (rows.length === 0)
    return (
      <p class="muted">Published posts appear here with their views and engagement, newest and best first.</p>
    )
  return (
    <>
      <p class="muted">A post's figures are read on its page; rows not read yet show a dash.</p>
      <TableCard label={`Posts by ${SORT_LABELS[sort].toLowerCase()}`}>
        <table class="post-figures">
          <thead>
            <tr>
              <th scope="col">Post</th>
              <th scope="col">Profile</th>
              <SortHead column="published" current={sort} />
              <SortHead column="views" current={sort} />
              <th scope="col" class="figure">
                Likes
              </th>
              <th scope="col" class="figure">
                Comments
              </th>
              <th scope="col" class="figure">
                Shares
              </th>
              <SortHead column="engagement" current={sort} />
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr>
                <td>
                  <a href={`/posts/${encodeURIComponent(r.postId)}`}>{excerpt(r.content)}</a>
                </td>
                <td>
                  <span class="profile-line">
                    <Avatar profile={{ platform: r.platform, name: '', username: r.username }} size="small" />
                    <span class="handle">{handleOf(r.username)}</span>
                  </span>
                </td>
                <td class="figure when">{new Date(r.publishedAt).toISOString().slice(0, 10)}</td>
                <Figure n={r.views} />
                <Figure n={r.likes} />
                <Figure n={r.comments} />
                <Figure n={r.shares} />
                <Figure n={r.engagement} />
              </tr>
            ))}
          </tbody>
        </table>
      </TableCard>
    </>
  )
}
