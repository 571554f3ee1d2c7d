import { sql } from 'kysely'
import { STUCK_REASONS } from '../../../core/post-status.js'
import { readItems } from '../../../core/thread-items.js'
import type { Db } from '../db.js'
import type { TargetRow } from './posts.js'

/**
 * The writes of the tools that change a post, each run inside the caller's write transaction on rows it
 * has locked (`lockPostForChange`): the tools decide, these statements carry the decision out.
 */

export async function deleteTargets(tx: Db, ids: string[]) {
  if (ids.length === 0) return
  await tx.deleteFrom('targets').where('id', 'in', ids).execute()
}

export async function insertTarget(tx: Db, row: TargetRow) {
  await tx.insertInto('targets').values(row).execute()
}

/**
 * A kept target's new copy and queue position; `retry` gives a failed target another go. `settles` marks a
 * target whose post is live and has nothing left to send published: it is on the network, and nothing
 * re-arms it.
 */
export async function rewriteTarget(
  tx: Db,
  target: TargetRow,
  change: {
    content: string
    mediaUrls: string[]
    youtube: unknown
    /** The target's thread items and first comment (the live and in-doubt ones kept as they are). */
    items: readonly unknown[]
    runAt: number | null
    retry: boolean
    settles?: boolean
    now: number
  },
) {
  const status = change.settles
    ? { status: 'published', error: null, run_at: null, unknown_outcome_at: null }
    : change.retry
      ? // A re-armed failed target starts a fresh attempt budget.
        { status: 'pending', error: null, attempts: 0, run_at: change.runAt }
      : { run_at: target.status === 'pending' ? change.runAt : null }
  await tx
    .updateTable('targets')
    .set({
      content: change.content,
      media_urls: JSON.stringify(change.mediaUrls),
      youtube: change.youtube ? JSON.stringify(change.youtube) : null,
      items: change.items.length > 0 ? JSON.stringify(change.items) : null,
      ...status,
      updated_at: change.now,
    })
    .where('id', '=', target.id)
    .where('lease_owner', 'is', null)
    .execute()
}

/**
 * Releases stuck targets as failed with `reason`. The send may have reached the network, so they are
 * marked for a lookup (`unknown_outcome_at`, from when the attempt began) before any re-send, except where
 * a lookup already read the profile and could not decide (`ambiguous`): the person who resets it has
 * checked the posts the lookup named, and a re-send is their decision. The same holds for the thread item
 * or first comment whose lookup was the ambiguous one: it is released (`releasedAt`) for the next attempt
 * to send, its in-flight mark kept (without this its lookup would decide nothing again, and every
 * publish_post_now would leave the post stuck once more).
 */
export async function releaseStuckTargets(tx: Db, ids: string[], reason: string, now: number) {
  if (ids.length === 0) return
  await releaseAmbiguousItems(tx, ids, now)
  await tx
    .updateTable('targets')
    .set({
      status: 'failed',
      error: reason,
      lease_owner: null,
      lease_expires_at: null,
      run_at: null,
      stuck_at: null,
      stuck_reason: null,
      lookups: 0,
      lookup_failed_at: null,
      unknown_outcome_at: sql`CASE WHEN stuck_reason = ${STUCK_REASONS.ambiguous} THEN NULL ELSE coalesce(attempt_started_at, ${now}) END`,
      updated_at: now,
    })
    .where('id', 'in', ids)
    .execute()
}

/** Marks released the items in doubt of the targets among `ids` that a lookup left stuck as ambiguous. */
async function releaseAmbiguousItems(tx: Db, ids: string[], now: number) {
  const ambiguous = await tx
    .selectFrom('targets')
    .select(['id', 'items'])
    .where('id', 'in', ids)
    .where('stuck_reason', '=', STUCK_REASONS.ambiguous)
    .where('items', 'is not', null)
    .execute()
  for (const target of ambiguous) {
    const items = readItems(target.items)
    const inDoubt = items.filter((item) => item.startedAt !== undefined && item.status !== 'published')
    if (inDoubt.length === 0) continue
    for (const item of inDoubt) item.releasedAt = now
    await tx
      .updateTable('targets')
      .set({ items: JSON.stringify(items) })
      .where('id', '=', target.id)
      .execute()
  }
}

/** The statuses of a post's targets as they stand in the caller's transaction. */
export async function targetStatuses(tx: Db, postId: string) {
  return tx.selectFrom('targets').select('status').where('post_id', '=', postId).execute()
}
