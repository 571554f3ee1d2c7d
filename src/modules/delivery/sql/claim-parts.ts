import { type RawBuilder, sql } from 'kysely'
import { leaseNow } from '../../../platform/db/lease-clock.js'

/**
 * The claim's SQL depends on nothing but the dialect (lists are bound as one array or JSON value), so each
 * dialect's is compiled once and SQLite prepares it once: a busy worker claims many times a second.
 */
export interface ClaimSql {
  now: unknown
  /** Postgres: a text[]; SQLite: a JSON array. */
  platforms: unknown
  exclude: unknown
  workerId: unknown
  /** The lease clock's reading, or null for the database's (see {@link leaseNow}). */
  leaseNow: unknown
  leaseMs: unknown
}

/**
 * The fragments both dialects' claims share: what makes a target claimable, the due candidates in fair turns,
 * and the lease a claim writes.
 */
export function claimParts(dialect: 'sqlite' | 'postgres', a: ClaimSql) {
  const inList = (column: RawBuilder<unknown>, list: unknown) =>
    dialect === 'postgres'
      ? sql`${column} = ANY (${list}::text[])`
      : sql`${column} IN (SELECT value FROM json_each(${list}))`
  // Fair across workspaces: first the earliest due target of every workspace that has one (turn 0, by
  // due time), then the rest by due time (turn 1). One workspace's backlog of thousands never delays another
  // workspace's single post. Each workspace's earliest is one seek on `targets_claimable_by_workspace`.
  const claimable = (t: string) => sql`
    ${sql.ref(`${t}.lease_owner`)} IS NULL AND ${sql.ref(`${t}.status`)} = 'pending'
    AND ${sql.ref(`${t}.run_at`)} <= ${leaseNow(dialect, a.leaseNow)}
    AND ${inList(sql.ref(`${t}.platform`), a.platforms)}
    AND NOT (${inList(sql.ref(`${t}.id`), a.exclude)})
    AND NOT EXISTS (
      SELECT 1 FROM connections c
       WHERE c.id = ${sql.ref(`${t}.connection_id`)} AND c.throttled_until > ${a.now})`
  const earliestOf = (column: 'id' | 'run_at') => sql`(
    SELECT ${sql.ref(`t.${column}`)} FROM targets t
     WHERE t.workspace_id = w.id AND ${claimable('t')}
     ORDER BY t.run_at LIMIT 1)`
  const due = (limit: unknown) => sql`
    SELECT id, min(turn) AS turn, min(run_at) AS run_at FROM (
      SELECT id, 0 AS turn, run_at FROM (
        SELECT ${earliestOf('id')} AS id, ${earliestOf('run_at')} AS run_at FROM workspaces w
      ) firsts WHERE id IS NOT NULL
      UNION ALL
      SELECT id, 1 AS turn, run_at FROM (
        SELECT id, run_at FROM targets WHERE ${claimable('targets')} ORDER BY run_at LIMIT ${limit}
      ) rest
    ) candidates
    GROUP BY id
    ORDER BY min(turn), min(run_at)
    LIMIT ${limit}`
  const lease = sql`
    lease_owner = ${a.workerId},
    lease_expires_at = ${leaseNow(dialect, a.leaseNow)} + ${a.leaseMs},
    attempts = attempts + CASE WHEN unknown_outcome_at IS NULL THEN 1 ELSE 0 END,
    lookups = lookups + CASE WHEN unknown_outcome_at IS NULL THEN 0 ELSE 1 END,
    stuck_at = NULL,
    stuck_reason = NULL,
    attempt_started_at = CASE WHEN unknown_outcome_at IS NULL THEN ${a.now} ELSE attempt_started_at END,
    updated_at = ${a.now}`
  return { claimable, due, lease }
}
