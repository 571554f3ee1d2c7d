import { sql } from 'kysely'
import type { Db } from '../../../platform/db/db.js'

/**
 * Unleases this worker's targets `ids` that it claimed but never sent, and takes back what the claim
 * counted: a send attempt or, for a target whose outcome was unknown, a lookup. Returns each released
 * target's post.
 */
export function releaseUnstartedTargets(db: Db, workerId: string, ids: string[], now: number) {
  return db
    .updateTable('targets')
    .set({
      lease_owner: null,
      lease_expires_at: null,
      attempts: sql`attempts - CASE WHEN unknown_outcome_at IS NULL THEN 1 ELSE 0 END`,
      lookups: sql`lookups - CASE WHEN unknown_outcome_at IS NULL THEN 0 ELSE 1 END`,
      updated_at: now,
    })
    .where('id', 'in', ids)
    .where('lease_owner', '=', workerId)
    .returning('post_id')
    .execute()
}
