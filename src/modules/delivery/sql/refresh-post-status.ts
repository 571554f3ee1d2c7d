import { type RawBuilder, sql } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled.js'
import type { Db } from '../../../platform/db/db.js'

/**
 * A post follows its targets: published or failed once all settled, processing while any is still open.
 * Derived in the UPDATE itself, from the targets as they stand inside the caller's transaction.
 */
export async function refreshPostStatus(db: Db, postId: string, now: number, lastError?: string) {
  if (lastError === undefined) await refreshKeepingError(db, postId, now)
  else await refreshWithError(db, postId, now, lastError)
}

const postStatusUpdate = (postId: unknown, now: unknown, lastError: RawBuilder<unknown>) => sql`
    UPDATE posts SET
      status = CASE
        WHEN EXISTS (SELECT 1 FROM targets WHERE post_id = ${postId} AND status = 'pending') THEN status
        WHEN EXISTS (SELECT 1 FROM targets WHERE post_id = ${postId} AND status = 'published') THEN 'published'
        ELSE 'failed' END,
      published_at = (SELECT min(published_at) FROM targets WHERE post_id = ${postId}),
      last_error = ${lastError},
      updated_at = ${now}
    WHERE id = ${postId}`
const refreshKeepingError = compiledOnce(2, (db: Db, postId: string, now: number) => ({
  compile: () => postStatusUpdate(postId, now, sql`last_error`).compile(db),
}))
const refreshWithError = compiledOnce(3, (db: Db, postId: string, now: number, lastError: string) => ({
  compile: () => postStatusUpdate(postId, now, sql`${lastError}`).compile(db),
}))
