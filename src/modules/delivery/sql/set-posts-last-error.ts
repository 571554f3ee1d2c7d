import type { Db } from '../../../platform/db/db.js'

/** Writes `message` as the last error of the posts `postIds` (a non-empty list). */
export async function setPostsLastError(db: Db, postIds: string[], message: string, now: number) {
  await db
    .updateTable('posts')
    .set({ last_error: message, updated_at: now })
    .where('id', 'in', postIds)
    .execute()
}
