import { type RawBuilder, sql } from 'kysely'
import type { Network } from '../../core/networks.js'
import { STUCK_REASONS } from '../../core/post-status.js'
import { compiledOnce } from '../../platform/db/compiled.js'
import type { Db, Store } from '../../platform/db/db.js'
import { leaseNow } from '../../platform/db/lease-clock.js'
import { recordEvent } from '../../platform/db/statements/events.js'
import type { TargetRow } from '../../platform/db/statements/posts.js'
import { targetEvent } from '../outbox/settle-events.js'

/**
 * The queue's statements. The dialect-specific one (the claim) lives here and nowhere else; every other
 * statement carries `lease_owner = <worker>` so that only the lease holder can finish a target.
 */

export interface ClaimInput {
  workerId: string
  /** The worker's clock: what is due, and when the attempt began. */
  now: number
  /**
   * The lease clock's reading (`LeaseClock`, src/platform/clock.ts): null for the database's own clock; by default
   * `now`. The lease runs out `leaseMs` after it.
   */
  leaseNow?: number | null
  leaseMs: number
  limit: number
  /** Only these networks (the ones with free send slots in this worker). */
  platforms: Network[]
  /**
   * Targets this worker must not take: those it is still sending. A send that outlived its lease (a stall,
   * a slow call) is still running here; claimed again by the same worker, both attempts would write under
   * one `lease_owner`, and the older one's writes (an item's in-flight mark cleared) would pass as the new
   * attempt's. Another worker may take them.
   */
  exclude?: readonly string[]
}

/**
 * Claims up to `limit` due targets with a lease and records the attempt (target and post) before any
 * network is called. Due targets are taken in turns across workspaces (each workspace's earliest first).
 * Postgres does it in one statement: candidates are ranked once in a materialised CTE (four times the
 * limit, so a worker racing another still finds unlocked ones), then locked with `FOR UPDATE SKIP LOCKED`
 * (an IN (subquery) may be re-run per row, which would ignore the LIMIT), so workers claim side by side
 * without ever taking the same row. SQLite has one writer at a time, so a short transaction of
 * UPDATE ... WHERE id IN (SELECT ...) is just as atomic.
 */
/**
 * A claimed target; `onlyTarget` says its post has no other target (its settle need not look at siblings).
 * `dueClockOffset` is how far the lease clock (the database's) ran ahead of the worker's clock at the claim:
 * due times are written and compared on the lease clock, so a worker whose own clock is off still waits the
 * whole delay before a lookup (the time a network's lists take to show a post) and never looks early.
 */
export type ClaimedTarget = TargetRow & { onlyTarget: boolean; dueClockOffset: number }

export async function claimDueTargets(store: Store, input: ClaimInput): Promise<ClaimedTarget[]> {
  if (input.limit <= 0 || input.platforms.length === 0) return []
  const exclude = input.exclude ?? []
  const lease = {
    leaseNow: input.leaseNow === undefined ? input.now : input.leaseNow,
    leaseMs: input.leaseMs,
  }
  if (store.dialect === 'postgres') {
    const claimed = await postgresClaim(
      store.db,
      input.now,
      [...input.platforms],
      [...exclude],
      input.limit * 4,
      input.limit,
      input.workerId,
      lease.leaseNow,
      lease.leaseMs,
    )
    return (claimed.rows as Array<TargetRow & { siblings: number }>).map((row) => claimedTarget(row, input))
  }
  return store.db.transaction().execute(async (tx) => {
    const claimed = await sqliteClaim(
      tx,
      input.now,
      JSON.stringify(input.platforms),
      JSON.stringify(exclude),
      input.limit,
      input.workerId,
      lease.leaseNow,
      lease.leaseMs,
    )
    const rows = (claimed.rows as Array<TargetRow & { siblings: number }>).map((row) =>
      claimedTarget(row, input),
    )
    const claimsPerPost = new Map<string, number>()
    for (const row of rows) claimsPerPost.set(row.post_id, (claimsPerPost.get(row.post_id) ?? 0) + 1)
    const byCount = new Map<number, string[]>()
    for (const [postId, n] of claimsPerPost) byCount.set(n, [...(byCount.get(n) ?? []), postId])
    for (const [n, postIds] of byCount) await markProcessing(tx, n, input.now, JSON.stringify(postIds))
    return rows
  })
}

/**
 * The claim's SQL depends on nothing but the dialect (lists are bound as one array or JSON value), so each
 * dialect's is compiled once and SQLite prepares it once: a busy worker claims many times a second.
 */
interface ClaimSql {
  now: unknown
  /** Postgres: a text[]; SQLite: a JSON array. */
  platforms: unknown
  exclude: unknown
  workerId: unknown
  /** The lease clock's reading, or null for the database's (see {@link leaseNow}). */
  leaseNow: unknown
  leaseMs: unknown
}

function claimParts(dialect: 'sqlite' | 'postgres', a: ClaimSql) {
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

const postgresClaim = compiledOnce(
  8,
  (db: Db, now, platforms, exclude, candidates, limit, workerId, leaseAt, leaseMs) => {
    const { claimable, due, lease } = claimParts('postgres', {
      now,
      platforms,
      exclude,
      workerId,
      leaseNow: leaseAt,
      leaseMs,
    })
    // `picked` ranks four times the limit, so a worker racing another still finds unlocked ones. It reads the
    // statement's snapshot, which may be older than the lock: a target another worker claimed, sent and
    // settled meanwhile looks unleased there. So candidates are locked one by one, by primary key, in rank
    // order until the limit, and the claimable test is applied to what the lock returns, the row's latest
    // version. A join, or the test inside the locking subquery (its LIMIT keeps the test out), lets the
    // planner pick a claim index scan per candidate when its statistics are stale, as they are right after a
    // large schedule lands; the update finds its rows by primary key for the same reason.
    return {
      compile: () =>
        sql`
      WITH picked AS MATERIALIZED (${due(candidates)}),
      due AS (
        SELECT locked.id FROM (SELECT id, turn, run_at FROM picked ORDER BY turn, run_at) p
          CROSS JOIN LATERAL (
            SELECT t.id, t.lease_owner, t.status, t.run_at, t.platform, t.connection_id
              FROM targets t WHERE t.id = p.id LIMIT 1
            FOR UPDATE OF t SKIP LOCKED) locked
         WHERE ${claimable('locked')}
         LIMIT ${limit}),
      claimed AS (
        UPDATE targets SET ${lease}
         WHERE targets.id = ANY (ARRAY(SELECT id FROM due))
        RETURNING targets.*),
      per_post AS (SELECT post_id, count(*) AS n FROM claimed GROUP BY post_id),
      touched AS (
        UPDATE posts SET status = 'processing', attempts = posts.attempts + per_post.n, updated_at = ${now}
          FROM per_post WHERE posts.id = per_post.post_id)
      SELECT claimed.*, (SELECT count(*) FROM targets s WHERE s.post_id = claimed.post_id) AS siblings
        FROM claimed`.compile(db),
    }
  },
)

/** SQLite has one writer at a time, so a short transaction of UPDATE ... WHERE id IN (SELECT ...) is just as atomic. */
const sqliteClaim = compiledOnce(7, (db: Db, now, platforms, exclude, limit, workerId, leaseAt, leaseMs) => {
  const { due, lease } = claimParts('sqlite', {
    now,
    platforms,
    exclude,
    workerId,
    leaseNow: leaseAt,
    leaseMs,
  })
  return {
    compile: () =>
      sql`
      UPDATE targets SET ${lease}
       WHERE id IN (SELECT id FROM (${due(limit)}) due) AND lease_owner IS NULL
      RETURNING *, (SELECT count(*) FROM targets s WHERE s.post_id = targets.post_id) AS siblings`.compile(
        db,
      ),
  }
})

/** SQLite: the claimed targets' posts (a JSON array of ids), each claimed `n` times, are being sent. */
const markProcessing = compiledOnce(3, (db: Db, n, now, postIds) =>
  db
    .updateTable('posts')
    .set({ status: 'processing', attempts: sql`attempts + ${n}`, updated_at: now as number })
    .where('id', 'in', sql<string>`(SELECT value FROM json_each(${postIds}))`),
)

/** A claimed row as the worker holds it: its siblings counted, the lease clock's offset read off its lease. */
function claimedTarget(
  { siblings, ...row }: TargetRow & { siblings: number },
  input: ClaimInput,
): ClaimedTarget {
  const target = normalise(row)
  const leaseStart = Number(target.lease_expires_at) - input.leaseMs
  return {
    ...target,
    onlyTarget: Number(siblings) === 1,
    dueClockOffset: Number.isFinite(leaseStart) ? leaseStart - input.now : 0,
  }
}

/** Raw RETURNING rows skip Kysely's driver conversions on Postgres; int8 already maps to number there. */
function normalise(row: TargetRow): TargetRow {
  return { ...row, attempts: Number(row.attempts), run_at: row.run_at === null ? null : Number(row.run_at) }
}

/**
 * Extends this worker's leases on `ids` to `leaseMs` from now on the lease clock (`leaseNow`, null for the
 * database's). Only a lease that is still this worker's, has not run out by then and is not marked stuck is
 * renewed: a worker that stalled past its lease has lost the target (the sweep may have handed it to a
 * lookup or marked it stuck) and must not revive it.
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

/**
 * Gives back targets that were claimed but never sent (shutdown): what the claim counted did not happen, a
 * send attempt or, for a target whose outcome was unknown, a lookup. A post left with no target held or
 * settled goes back to `scheduled`, unless part of it is on the network already (a live post whose thread
 * or first comment was to be retried): that one never returns to the queue, and stays `processing`.
 */
export async function releaseUnstarted(store: Store, workerId: string, ids: string[], now: number) {
  if (ids.length === 0) return
  await store.db.transaction().execute(async (tx) => {
    const released = await tx
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
    const perPost = new Map<string, number>()
    for (const { post_id } of released) perPost.set(post_id, (perPost.get(post_id) ?? 0) + 1)
    for (const [postId, n] of perPost) {
      const open = await tx
        .selectFrom('targets')
        .select('id')
        .where('post_id', '=', postId)
        .where((eb) =>
          eb.or([
            eb('lease_owner', 'is not', null),
            eb('status', '!=', 'pending'),
            eb('remote_id', 'is not', null),
          ]),
        )
        .executeTakeFirst()
      // The claim counted each of the post's claimed targets once.
      await tx
        .updateTable('posts')
        .set({ attempts: sql`attempts - ${n}`, ...(open ? {} : { status: 'scheduled' }), updated_at: now })
        .where('id', '=', postId)
        .execute()
    }
  })
}

/** Due targets nobody holds: the queue depth gauge. */
export async function queueDepth(store: Store, now: number): Promise<number> {
  const row = await store.db
    .selectFrom('targets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('lease_owner', 'is', null)
    .where('status', '=', 'pending')
    .where('run_at', '<=', now)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * What the sweep does with leases that ran out (their worker died or stalled mid-send, so the outcome is
 * unknown). On a network Herald can ask (`lookupPlatforms`), the target becomes a lookup: unleased, due
 * `lookupDelayMs` from now (the delay every unknown outcome waits before its first lookup, so the network's
 * lists have caught up with a post the dead worker's call made), marked unknown since its attempt began, so
 * the next claim asks the network before any send. Elsewhere it is marked stuck (`worker_lost`) and never
 * claimed again until reset_stuck_post. The worker's sweep calls this.
 */
export async function sweepExpiredLeases(
  store: Store,
  now: number,
  lookupPlatforms: readonly string[],
  messages: { stuck: string; lookup: (platform: string) => string },
  lookupDelayMs: number,
  /** The lease clock's reading (null: the database's); by default `now`. */
  leaseAt: number | null = now,
): Promise<{
  stuck: { id: string; post_id: string; platform: string }[]
  lookups: { id: string; post_id: string; platform: string }[]
}> {
  const expiredBy = leaseNow(store.dialect, leaseAt)
  const lookups: { id: string; post_id: string; platform: string }[] = []
  for (const platform of lookupPlatforms) {
    const rows = await store.db
      .updateTable('targets')
      .set({
        lease_owner: null,
        lease_expires_at: null,
        unknown_outcome_at: sql`coalesce(unknown_outcome_at, attempt_started_at, ${now})`,
        lookups: sql`CASE WHEN unknown_outcome_at IS NULL THEN 0 ELSE lookups END`,
        // Due on the lease clock, like every due time the claim compares.
        run_at: sql<number>`${expiredBy} + ${lookupDelayMs}`,
        error: messages.lookup(platform),
        updated_at: now,
      })
      .where('platform', '=', platform)
      .where('status', '=', 'pending')
      .where('lease_owner', 'is not', null)
      .where('lease_expires_at', '<', expiredBy)
      .where('stuck_at', 'is', null)
      .returning(['id', 'post_id', 'platform'])
      .execute()
    lookups.push(...rows)
  }
  // The stuck mark and its `target.stuck` events commit together (the outbox).
  const fresh = await store.db.transaction().execute(async (tx) => {
    const marked = await tx
      .updateTable('targets')
      .set({ stuck_at: now, stuck_reason: STUCK_REASONS.worker_lost })
      .where('lease_owner', 'is not', null)
      .where('lease_expires_at', '<', expiredBy)
      .where('stuck_at', 'is', null)
      .returningAll()
      .execute()
    const postIds = [...new Set(marked.map((r) => r.post_id))]
    if (postIds.length > 0) {
      await tx
        .updateTable('posts')
        .set({ last_error: messages.stuck, updated_at: now })
        .where('id', 'in', postIds)
        .execute()
    }
    for (const target of marked)
      await recordEvent(
        tx,
        targetEvent(target, 'processing', { type: 'target.stuck', now, stuckReason: messages.stuck }),
      )
    return marked.map((t) => ({ id: t.id, post_id: t.post_id, platform: t.platform }))
  })
  return { stuck: fresh, lookups }
}

/** Marks every lease that ran out as stuck (`worker_lost`), whatever its network: the sweep without lookups. */
export async function markStuck(store: Store, now: number, message: string) {
  return (await sweepExpiredLeases(store, now, [], { stuck: message, lookup: () => message }, 0)).stuck
}

/**
 * Stuck targets by reason (a STUCK_REASONS code; `lease_expired` for a lease that ran out and that no sweep
 * has looked at yet), and the lookups: due or waiting (`pending`), and of those, the ones whose latest
 * lookup could not ask the network (`failed`). Reads only; `/metrics` shows them.
 */
export async function lookupAndStuckGauges(
  store: Store,
  /** The lease clock's reading (null: the database's). */
  leaseAt: number | null,
): Promise<{ stuck: Record<string, number>; lookupsPending: number; lookupsFailed: number }> {
  const stuck = await countStuckByReason(store, leaseAt)
  const row = await store.db
    .selectFrom('targets')
    .select((eb) => [
      eb.fn.countAll<number>().as('pending'),
      eb.fn.count<number>('lookup_failed_at').as('failed'),
    ])
    .where('status', '=', 'pending')
    .where('unknown_outcome_at', 'is not', null)
    .where('stuck_at', 'is', null)
    .executeTakeFirstOrThrow()
  return { stuck, lookupsPending: Number(row.pending), lookupsFailed: Number(row.failed) }
}

async function countStuckByReason(store: Store, leaseAt: number | null): Promise<Record<string, number>> {
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
