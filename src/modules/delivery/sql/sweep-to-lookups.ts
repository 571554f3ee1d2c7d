import { sql } from 'kysely'
import type { Db } from '../../../platform/db/db.js'
import type { Dialect } from '../../../platform/db/dialect.js'
import { leaseNow } from '../../../platform/db/lease-clock.js'

/**
 * Turns the `platform` targets whose lease ran out by the lease clock's `leaseAt` (null: the database's)
 * into lookups: unleased, due `lookupDelayMs` later, marked unknown since their attempt began (a lookup
 * already under way keeps its count), with `error` saying so. Returns the targets it turned.
 */
export function sweepToLookups(
  db: Db,
  dialect: Dialect,
  sweep: { platform: string; error: string; now: number; lookupDelayMs: number; leaseAt: number | null },
) {
  const { platform, now } = sweep
  const expiredBy = leaseNow(dialect, sweep.leaseAt)
  return db
    .updateTable('targets')
    .set({
      lease_owner: null,
      lease_expires_at: null,
      unknown_outcome_at: sql`coalesce(unknown_outcome_at, attempt_started_at, ${now})`,
      lookups: sql`CASE WHEN unknown_outcome_at IS NULL THEN 0 ELSE lookups END`,
      // Due on the lease clock, like every due time the claim compares.
      run_at: sql<number>`${expiredBy} + ${sweep.lookupDelayMs}`,
      error: sweep.error,
      updated_at: now,
    })
    .where('platform', '=', platform)
    .where('status', '=', 'pending')
    .where('lease_owner', 'is not', null)
    .where('lease_expires_at', '<', expiredBy)
    .where('stuck_at', 'is', null)
    .returning(['id', 'post_id', 'platform'])
    .execute()
}
