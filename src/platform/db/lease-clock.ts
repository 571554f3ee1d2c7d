import { type RawBuilder, sql } from 'kysely'
import type { Db } from './db.js'
import type { Dialect } from './dialect.js'

/**
 * "Now" in epoch ms as a lease statement writes and compares lease times: `given` when it is a number (a
 * fake clock's reading), else the database's own clock at the start of the statement, so processes on
 * machines whose clocks disagree agree on when a lease runs out. `given` may be a stand-in bound later
 * (a compiled statement): the database's clock is taken whenever the bound value is null.
 */
export function leaseNow(dialect: Dialect, given: unknown): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`coalesce(${given}::bigint, (extract(epoch from statement_timestamp()) * 1000)::bigint)`
    : sql<number>`coalesce(${given}, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))`
}

/** The lease clock's reading (see {@link leaseNow}), for a decision taken in code inside a transaction. */
export async function readLeaseNow(db: Db, dialect: Dialect, given: number | null): Promise<number> {
  const row = await sql<{ now: number | string }>`SELECT ${leaseNow(dialect, given)} AS now`.execute(db)
  return Number(row.rows[0]?.now)
}
