import type { Network } from '../../core/networks.js'
import type { Store } from '../../platform/db/db.js'
import { recordEvent } from '../../platform/db/statements/events.js'
import type { TargetRow } from '../../platform/db/statements/posts.js'
import { recordHistory, sameEntry } from '../../platform/db/statements/target-history.js'
import { targetEvent } from '../outbox/settle-events.js'
import { postgresClaim } from './sql/claim-postgres.js'
import { sqliteClaim } from './sql/claim-sqlite.js'
import { countLookups } from './sql/count-lookups.js'
import { giveBackPostAttempts } from './sql/give-back-post-attempts.js'
import { markLostWorkersStuck } from './sql/mark-lost-workers-stuck.js'
import { markProcessing } from './sql/mark-processing.js'
import { postHasOpenTarget } from './sql/post-has-open-target.js'
import { releaseUnstartedTargets } from './sql/release-unstarted-targets.js'
import { setPostsLastError } from './sql/set-posts-last-error.js'
import { countStuckByReason } from './sql/stuck-by-reason.js'
import { sweepToLookups } from './sql/sweep-to-lookups.js'

export { queueDepth } from './sql/queue-depth.js'
export { renewLeases } from './sql/renew-leases.js'

/**
 * The queue: claim, release, sweep and gauges, each with its decisions and transactions. The statements
 * live in ./sql, one a file; the dialect-specific ones are the claim's (claim-postgres.ts, claim-sqlite.ts)
 * and nowhere else. Every statement that finishes a target carries `lease_owner = <worker>` so that only the
 * lease holder can finish it.
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
 * A claimed target; `onlyTarget` says its post has no other target (its settle need not look at siblings).
 * `dueClockOffset` is how far the lease clock (the database's) ran ahead of the worker's clock at the claim.
 * The send reads its times through it: due times are compared on the lease clock, and a lookup searches the
 * network from when the call began, so a worker whose own clock is off neither looks before a network's
 * lists show the post nor searches from a moment after it was made.
 */
export type ClaimedTarget = TargetRow & { onlyTarget: boolean; dueClockOffset: number }

/**
 * Claims up to `limit` due targets with a lease and records the attempt (target and post) before any
 * network is called. Due targets are taken in turns across workspaces (each workspace's earliest first).
 * Postgres does it in one statement (sql/claim-postgres.ts), ranking four times the limit so a worker racing
 * another still finds unlocked ones. SQLite has one writer at a time, so a short transaction of its claim
 * (sql/claim-sqlite.ts) and the posts' mark is just as atomic.
 */
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
 * Gives back targets that were claimed but never sent (shutdown): what the claim counted did not happen, a
 * send attempt or, for a target whose outcome was unknown, a lookup. A post left with no target held or
 * settled goes back to `scheduled`, unless part of it is on the network already (a live post whose thread
 * or first comment was to be retried): that one never returns to the queue, and stays `processing`.
 */
export async function releaseUnstarted(store: Store, workerId: string, ids: string[], now: number) {
  if (ids.length === 0) return
  await store.db.transaction().execute(async (tx) => {
    const released = await releaseUnstartedTargets(tx, workerId, ids, now)
    const perPost = new Map<string, number>()
    for (const { post_id } of released) perPost.set(post_id, (perPost.get(post_id) ?? 0) + 1)
    for (const [postId, n] of perPost) {
      const open = await postHasOpenTarget(tx, postId)
      await giveBackPostAttempts(tx, postId, n, !open, now)
    }
  })
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
  const lookups: { id: string; post_id: string; platform: string }[] = []
  for (const platform of lookupPlatforms) {
    const error = messages.lookup(platform)
    // Each turned target's history says so, in the transaction that turns it.
    const turned = await store.db.transaction().execute(async (tx) => {
      const rows = await sweepToLookups(tx, store.dialect, { platform, error, now, lookupDelayMs, leaseAt })
      const entry = { kind: 'interrupted', result: 'check', detail: error } as const
      await recordHistory(tx, now, sameEntry(ids(rows), entry))
      return rows
    })
    lookups.push(...turned)
  }
  // The stuck mark, its history and its `target.stuck` events commit together (the outbox).
  const fresh = await store.db.transaction().execute(async (tx) => {
    const marked = await markLostWorkersStuck(tx, store.dialect, now, leaseAt)
    const postIds = [...new Set(marked.map((r) => r.post_id))]
    if (postIds.length > 0) await setPostsLastError(tx, postIds, messages.stuck, now)
    const entry = { kind: 'interrupted', result: 'stuck', detail: messages.stuck } as const
    await recordHistory(tx, now, sameEntry(ids(marked), entry))
    for (const target of marked)
      await recordEvent(
        tx,
        targetEvent(target, 'processing', { type: 'target.stuck', now, stuckReason: messages.stuck }),
      )
    return marked.map((t) => ({ id: t.id, post_id: t.post_id, platform: t.platform }))
  })
  return { stuck: fresh, lookups }
}

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id)

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
  const lookups = await countLookups(store.db)
  return { stuck, lookupsPending: lookups.pending, lookupsFailed: lookups.failed }
}
