import { STUCK_REASONS } from '../../../core/post-status.js'
import type { Db } from '../../../platform/db/db.js'
import type { Dialect } from '../../../platform/db/dialect.js'
import { leaseNow } from '../../../platform/db/lease-clock.js'

/**
 * Marks every target whose lease ran out by the lease clock's `leaseAt` (null: the database's), and that is
 * not stuck already, stuck with `worker_lost`: its worker died or stalled mid-send. Returns the marked rows.
 */
export function markLostWorkersStuck(db: Db, dialect: Dialect, now: number, leaseAt: number | null) {
  return db
    .updateTable('targets')
    .set({ stuck_at: now, stuck_reason: STUCK_REASONS.worker_lost })
    .where('lease_owner', 'is not', null)
    .where('lease_expires_at', '<', leaseNow(dialect, leaseAt))
    .where('stuck_at', 'is', null)
    .returningAll()
    .execute()
}
