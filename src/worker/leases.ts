import { sql } from 'kysely'
import type { Network } from '../domain/networks.js'
import { presentTarget } from '../posts/present.js'
import type { Store } from '../store/db.js'
import { recordEvent } from '../store/events.js'
import type { TargetRow } from '../store/posts.js'
import { STUCK_ACTION } from './settle.js'

/**
 * The queue's statements. The dialect-specific one (the claim) lives here and nowhere else; every other
 * statement carries `lease_owner = <worker>` so that only the lease holder can finish a target.
 */

export interface ClaimInput {
  workerId: string
  now: number
  leaseMs: number
  limit: number
  /** Only these networks (the ones with free send slots in this worker). */
  platforms: Network[]
}

/**
 * Claims up to `limit` due targets with a lease and records the attempt (target and post) before any
 * network is called. Postgres does it in one statement: the rows are picked once in a CTE with
 * `FOR UPDATE SKIP LOCKED` (an IN (subquery) may be re-run per row, which would ignore the LIMIT), so
 * workers claim side by side without ever taking the same row. SQLite has one writer at a time, so a short
 * transaction of UPDATE ... WHERE id IN (SELECT ...) is just as atomic.
 */
/** A claimed target; `onlyTarget` says its post has no other target (Postgres settles those in one statement). */
export type ClaimedTarget = TargetRow & { onlyTarget: boolean }

export async function claimDueTargets(store: Store, input: ClaimInput): Promise<ClaimedTarget[]> {
  if (input.limit <= 0 || input.platforms.length === 0) return []
  const due = sql`
    SELECT id FROM targets
     WHERE lease_owner IS NULL AND status = 'pending' AND run_at <= ${input.now}
       AND platform IN (${sql.join(input.platforms)})
       AND NOT EXISTS (
         SELECT 1 FROM connections c
          WHERE c.id = targets.connection_id AND c.throttled_until > ${input.now})
     ORDER BY run_at
     LIMIT ${input.limit}`
  const lease = sql`
    lease_owner = ${input.workerId},
    lease_expires_at = ${input.now + input.leaseMs},
    attempts = attempts + 1,
    attempt_started_at = CASE WHEN unknown_outcome_at IS NULL THEN ${input.now} ELSE attempt_started_at END,
    updated_at = ${input.now}`
  if (store.dialect === 'postgres') {
    const claimed = await sql<TargetRow & { siblings: number }>`
      WITH due AS (${due} FOR UPDATE SKIP LOCKED),
      claimed AS (
        UPDATE targets SET ${lease} FROM due
         WHERE targets.id = due.id AND targets.lease_owner IS NULL
        RETURNING targets.*),
      per_post AS (SELECT post_id, count(*) AS n FROM claimed GROUP BY post_id),
      touched AS (
        UPDATE posts SET status = 'processing', attempts = posts.attempts + per_post.n, updated_at = ${input.now}
          FROM per_post WHERE posts.id = per_post.post_id)
      SELECT claimed.*, (SELECT count(*) FROM targets s WHERE s.post_id = claimed.post_id) AS siblings
        FROM claimed`.execute(store.db)
    return claimed.rows.map(({ siblings, ...row }) => ({
      ...normalise(row),
      onlyTarget: Number(siblings) === 1,
    }))
  }
  return store.db.transaction().execute(async (tx) => {
    const claimed = await sql<TargetRow>`
      UPDATE targets SET ${lease}
       WHERE id IN (${due}) AND lease_owner IS NULL
      RETURNING *`.execute(tx)
    const rows = claimed.rows.map(normalise)
    const claimsPerPost = new Map<string, number>()
    for (const row of rows) claimsPerPost.set(row.post_id, (claimsPerPost.get(row.post_id) ?? 0) + 1)
    const byCount = new Map<number, string[]>()
    for (const [postId, n] of claimsPerPost) byCount.set(n, [...(byCount.get(n) ?? []), postId])
    for (const [n, postIds] of byCount) {
      await tx
        .updateTable('posts')
        .set({ status: 'processing', attempts: sql`attempts + ${n}`, updated_at: input.now })
        .where('id', 'in', postIds)
        .execute()
    }
    return rows.map((row) => ({ ...row, onlyTarget: false }))
  })
}

/** Raw RETURNING rows skip Kysely's driver conversions on Postgres; int8 already maps to number there. */
function normalise(row: TargetRow): TargetRow {
  return { ...row, attempts: Number(row.attempts), run_at: row.run_at === null ? null : Number(row.run_at) }
}

export async function renewLeases(
  store: Store,
  workerId: string,
  ids: string[],
  until: number,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const renewed = await store.db
    .updateTable('targets')
    .set({ lease_expires_at: until })
    .where('id', 'in', ids)
    .where('lease_owner', '=', workerId)
    .returning('id')
    .execute()
  return new Set(renewed.map((r) => r.id))
}

/** Gives back targets that were claimed but never sent (shutdown): the attempt did not happen. */
export async function releaseUnstarted(store: Store, workerId: string, ids: string[], now: number) {
  if (ids.length === 0) return
  await store.db.transaction().execute(async (tx) => {
    const released = await tx
      .updateTable('targets')
      .set({ lease_owner: null, lease_expires_at: null, attempts: sql`attempts - 1`, updated_at: now })
      .where('id', 'in', ids)
      .where('lease_owner', '=', workerId)
      .returning('post_id')
      .execute()
    for (const postId of new Set(released.map((r) => r.post_id))) {
      const open = await tx
        .selectFrom('targets')
        .select('id')
        .where('post_id', '=', postId)
        .where((eb) => eb.or([eb('lease_owner', 'is not', null), eb('status', '!=', 'pending')]))
        .executeTakeFirst()
      await tx
        .updateTable('posts')
        .set({ attempts: sql`attempts - 1`, ...(open ? {} : { status: 'scheduled' }), updated_at: now })
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
 * Marks targets whose lease ran out as stuck: their worker died mid-send, so the outcome is unknown and
 * they are never claimed again until reset_stuck_post. The worker's sweep calls this.
 */
export async function markStuck(
  store: Store,
  now: number,
  message: string,
): Promise<{ id: string; post_id: string; platform: string }[]> {
  // The mark and its `target.stuck` events commit together (the outbox).
  return store.db.transaction().execute(async (tx) => {
    const fresh = await tx
      .updateTable('targets')
      .set({ stuck_at: now })
      .where('lease_owner', 'is not', null)
      .where('lease_expires_at', '<', now)
      .where('stuck_at', 'is', null)
      .returningAll()
      .execute()
    const postIds = [...new Set(fresh.map((r) => r.post_id))]
    if (postIds.length > 0) {
      await tx
        .updateTable('posts')
        .set({ last_error: message, updated_at: now })
        .where('id', 'in', postIds)
        .execute()
    }
    for (const target of fresh)
      await recordEvent(tx, {
        workspaceId: target.workspace_id,
        type: 'target.stuck',
        orderKey: target.post_id,
        data: {
          postId: target.post_id,
          postStatus: 'processing',
          target: presentTarget(target, now),
          reason: message,
          action: STUCK_ACTION,
        },
        ids: { postId: target.post_id, profileId: target.profile_id, platform: target.platform },
        now,
      })
    return fresh
  })
}

/** Targets stuck now (marked, or with a lease that ran out and no sweep yet): the stuck gauge. A read only. */
export async function countStuck(store: Store, now: number): Promise<number> {
  const row = await store.db
    .selectFrom('targets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('lease_owner', 'is not', null)
    .where((eb) => eb.or([eb('stuck_at', 'is not', null), eb('lease_expires_at', '<', now)]))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
