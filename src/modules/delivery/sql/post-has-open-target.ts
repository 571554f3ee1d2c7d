import type { Db } from '../../../platform/db/db.js'

/**
 * True when a target of the post is held, settled, or already on the network (a live post whose thread or
 * first comment was to be retried): such a post does not go back to `scheduled`.
 */
export async function postHasOpenTarget(db: Db, postId: string): Promise<boolean> {
  const open = await db
    .selectFrom('targets')
    .select('id')
    .where('post_id', '=', postId)
    .where((eb) =>
      eb.or([
        eb('lease_owner', 'is not', null),
        eb('status', '!=', 'pending'),
        eb('remote_id', 'is not', null),
      ]),
    )
    .executeTakeFirst()
  return open !== undefined
}
