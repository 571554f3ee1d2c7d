import { sql } from 'kysely'
import type { Db } from '../db.js'

/**
 * Herald's own ledger of network quotas that belong to the app rather than a profile (YouTube's daily
 * Data API quota): one `quota_usage` row per (key, day) holding the units spent. The day is whatever the
 * network's quota day is (YouTube: the Pacific date), computed by the caller.
 */

export interface QuotaSlot {
  key: string
  day: string
}

/**
 * Takes `units` from the (key, day) quota when `used + units <= limit`, atomically; returns false and
 * takes nothing otherwise. One conditional upsert: the insert covers the first use of the day, the
 * `ON CONFLICT ... DO UPDATE ... WHERE` adds to an existing row only within the limit, and `RETURNING`
 * says whether a row was written. Concurrent reservations serialise on the row (Postgres row lock,
 * SQLite's single writer), and the WHERE is evaluated against the latest committed units, so parallel
 * workers can never overshoot the limit.
 */
export async function reserveQuota(
  db: Db,
  input: QuotaSlot & { units: number; limit: number },
): Promise<boolean> {
  const { key, day, units, limit } = input
  if (!Number.isInteger(units) || units < 0) throw new RangeError('units must be a non-negative integer')
  if (units > limit) return false
  const row = await db
    .insertInto('quota_usage')
    .values({ key, day, units })
    .onConflict((conflict) =>
      conflict
        .columns(['key', 'day'])
        .doUpdateSet({ units: sql<number>`quota_usage.units + excluded.units` })
        .where(sql<number>`quota_usage.units + excluded.units`, '<=', limit),
    )
    .returning('units')
    .executeTakeFirst()
  return row !== undefined
}

/** Gives back units reserved for a publish that never reached the network; never below zero. */
export async function releaseQuota(db: Db, input: QuotaSlot & { units: number }): Promise<void> {
  await db
    .updateTable('quota_usage')
    .set({
      units: sql<number>`case when units > ${input.units} then units - ${input.units} else 0 end`,
    })
    .where('key', '=', input.key)
    .where('day', '=', input.day)
    .execute()
}

/** Units spent on (key, day); 0 when nothing was reserved that day. */
export async function quotaUsed(db: Db, slot: QuotaSlot): Promise<number> {
  const row = await db
    .selectFrom('quota_usage')
    .select('units')
    .where('key', '=', slot.key)
    .where('day', '=', slot.day)
    .executeTakeFirst()
  return Number(row?.units ?? 0)
}
