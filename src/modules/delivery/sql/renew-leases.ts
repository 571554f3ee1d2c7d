import { sql } from 'kysely'
import type { Store } from '../../../platform/db/db.js'
import { leaseNow } from '../../../platform/db/lease-clock.js'

/**
 * Extends this worker's leases on `ids` to `leaseMs` from now on the lease clock (`leaseNow`, null for the
 * database's). Only a lease that is still this worker's, has not run out by then and is not marked stuck is
 * renewed: a worker that stalled past its lease has lost the target (the sweep may have handed it to a
 * lookup or marked it stuck) and must not revive it. Returns the ids renewed.
 */
export async function renewLeases(
  store: Store,
  workerId: string,
  ids: string[],
  lease: { leaseNow: number | null; leaseMs: number },
): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const now = leaseNow(store.dialect, lease.leaseNow)
  const renewed = await store.db
    .updateTable('targets')
    .set({ lease_expires_at: sql<number>`${now} + ${lease.leaseMs}` })
    .where('id', 'in', ids)
    .where('lease_owner', '=', workerId)
    .where('lease_expires_at', '>=', now)
    .where('stuck_at', 'is', null)
    .returning('id')
    .execute()
  return new Set(renewed.map((r) => r.id))
}
