import type { RawBuilder } from 'kysely'
import type { Db } from '../../../platform/db/db.js'
import type { TargetRow } from '../../../platform/db/statements/posts.js'

/**
 * Writes a step of the target's chain (its post live, its items as they stand), only while `leaseOwner`
 * holds a lease unexpired at `leaseTime` (the lease clock's now, in SQL). False when the lease was lost.
 */
export async function writeChainStep(
  db: Db,
  target: { id: string; leaseOwner: string },
  changes: Partial<TargetRow>,
  now: number,
  leaseTime: RawBuilder<number>,
): Promise<boolean> {
  const updated = await db
    .updateTable('targets')
    .set({ ...changes, updated_at: now })
    .where('id', '=', target.id)
    .where('lease_owner', '=', target.leaseOwner)
    .where('lease_expires_at', '>', leaseTime)
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) !== 0
}
