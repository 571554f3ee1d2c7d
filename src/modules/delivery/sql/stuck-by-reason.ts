import { sql } from 'kysely'
import type { Store } from '../../../platform/db/db.js'
import { leaseNow } from '../../../platform/db/lease-clock.js'

/**
 * Held targets that are stuck, counted by reason (a STUCK_REASONS code; `lease_expired` for a lease that ran
 * out by the lease clock's `leaseAt`, null for the database's, and that no sweep has looked at yet).
 */
export async function countStuckByReason(
  store: Store,
  leaseAt: number | null,
): Promise<Record<string, number>> {
  const rows = await store.db
    .selectFrom('targets')
    .select((eb) => [
      sql<string>`CASE WHEN stuck_at IS NULL THEN 'lease_expired' ELSE coalesce(stuck_reason, 'worker_lost') END`.as(
        'reason',
      ),
      eb.fn.countAll<number>().as('n'),
    ])
    .where('lease_owner', 'is not', null)
    .where((eb) =>
      eb.or([eb('stuck_at', 'is not', null), eb('lease_expires_at', '<', leaseNow(store.dialect, leaseAt))]),
    )
    .groupBy(
      sql`CASE WHEN stuck_at IS NULL THEN 'lease_expired' ELSE coalesce(stuck_reason, 'worker_lost') END`,
    )
    .execute()
  return Object.fromEntries(rows.map((r) => [r.reason, Number(r.n)]))
}
