import type { Db } from '../../platform/db/db.js'

/**
 * Whether this person administers the Herald instance itself (its network apps), as opposed to owning a
 * workspace in it. The one place that decides it: the person's `is_admin` flag, which the first person of
 * the instance gets however they were created (the setup page, `herald bootstrap`, `herald users create`;
 * src/platform/db/statements/accounts.ts `insertUser`); every other person, workspace owners included, is not.
 */
export async function isInstanceAdministrator(db: Db, userId: string): Promise<boolean> {
  const person = await db.selectFrom('users').select('is_admin').where('id', '=', userId).executeTakeFirst()
  return person?.is_admin === 1
}
