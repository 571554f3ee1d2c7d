import type { Db } from '../store/db.js'

/**
 * Whether this person administers the Herald instance itself (its network apps), as opposed to owning a
 * workspace in it. The one place that decides it: the first person of the instance (the one `herald
 * bootstrap` created when it was set up); every other person, workspace owners included, is not.
 */
export async function isInstanceAdministrator(db: Db, userId: string): Promise<boolean> {
  const first = await db
    .selectFrom('users')
    .select('id')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  return first?.id === userId
}
