import { sql } from 'kysely'
import type { Db } from '../../../platform/db/db.js'

/**
 * Takes back the `n` attempts the claim counted on a post (it counted each of the post's claimed targets
 * once), and returns the post to `scheduled` when `reschedule` says none of its targets is open.
 */
export async function giveBackPostAttempts(
  db: Db,
  postId: string,
  n: number,
  reschedule: boolean,
  now: number,
) {
  await db
    .updateTable('posts')
    .set({ attempts: sql`attempts - ${n}`, ...(reschedule ? { status: 'scheduled' } : {}), updated_at: now })
    .where('id', '=', postId)
    .execute()
}
