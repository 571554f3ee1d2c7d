import type { RawBuilder } from 'kysely'
import type { Db } from '../../../platform/db/db.js'

/**
 * Writes the target's adapter progress (JSON), only while `leaseOwner` holds a lease unexpired at `leaseTime`
 * (the lease clock's now, in SQL). False when the lease was lost.
 */
export async function writeTargetProgress(
  db: Db,
  target: { id: string; leaseOwner: string },
  progress: string,
  now: number,
  leaseTime: RawBuilder<number>,
): Promise<boolean> {
  const updated = await db
    .updateTable('targets')
    .set({ progress, updated_at: now })
    .where('id', '=', target.id)
    .where('lease_owner', '=', target.leaseOwner)
    .where('lease_expires_at', '>', leaseTime)
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) !== 0
}
