import type { Db } from '../db.js'

export interface RecentCopy {
  postId: string
  connectionId: string
  content: string
  /** When it went out (published) or is due to (scheduled, being sent, waiting for approval). */
  at: number
  published: boolean
}

/**
 * What a workspace's profiles published, or have queued, around [from, to]: the copy of each target with
 * its moment. A published target counts at its publishing time, an unsent one at its post's slot; drafts
 * and failed targets do not count. Read through the (workspace, due_at) index, widened by `lookBackMs`
 * because a post goes out after its slot (retries), never before.
 */
export async function recentCopies(
  db: Db,
  workspaceId: string,
  connectionIds: string[],
  window: { from: number; to: number; lookBackMs: number },
): Promise<RecentCopy[]> {
  if (connectionIds.length === 0) return []
  const rows = await db
    .selectFrom('posts')
    .innerJoin('targets', 'targets.post_id', 'posts.id')
    .select([
      'posts.id as post_id',
      'posts.status as post_status',
      'posts.approval',
      'posts.due_at',
      'targets.connection_id',
      'targets.content',
      'targets.status',
      'targets.published_at',
    ])
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.due_at', '>=', window.from - window.lookBackMs)
    .where('posts.due_at', '<=', window.to)
    .where('targets.connection_id', 'in', connectionIds)
    .execute()
  const copies: RecentCopy[] = []
  for (const row of rows) {
    const published = row.status === 'published'
    const queued =
      row.status === 'pending' &&
      (row.post_status === 'scheduled' || row.post_status === 'processing' || row.approval === 'pending')
    if (!published && !queued) continue
    const at = Number(published ? (row.published_at ?? row.due_at) : row.due_at)
    if (at < window.from || at > window.to) continue
    copies.push({ postId: row.post_id, connectionId: row.connection_id, content: row.content, at, published })
  }
  return copies
}
