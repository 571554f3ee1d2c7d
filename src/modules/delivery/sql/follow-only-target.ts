import { sql } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled.js'
import type { Db } from '../../../platform/db/db.js'
import type { PostRow, TargetRow } from '../../../platform/db/statements/posts.js'

/**
 * `refreshPostStatus` for a post whose one target has just settled: the post takes the target's
 * status (it stays as it is while the target is still pending), without looking at other targets.
 */
export async function followOnlyTarget(
  db: Db,
  target: TargetRow,
  now: number,
  lastError: string | undefined,
): Promise<PostRow | undefined> {
  const { rows } = await followOnlyTargetQuery(
    db,
    target.status,
    target.published_at,
    lastError ?? null,
    now,
    target.post_id,
  )
  return rows[0]
}

const followOnlyTargetQuery = compiledOnce(
  5,
  (
    db: Db,
    status: string,
    publishedAt: number | null,
    lastError: string | null,
    now: number,
    postId: string,
  ) =>
    db
      .updateTable('posts')
      .set({
        status: sql`CASE WHEN ${status} = 'pending' THEN status ELSE ${status} END`,
        published_at: publishedAt,
        last_error: sql`coalesce(${lastError}, last_error)`,
        updated_at: now,
      })
      .where('id', '=', postId)
      .returningAll(),
)
