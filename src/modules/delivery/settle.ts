import { type SendTrail, settleHistory } from '../../core/target-history.js'
import { type Outcome, type TargetChanges, targetChanges } from '../../core/target-lifecycle.js'
import { postSettledEvent } from '../../core/webhook-events.js'
import type { Db, Store } from '../../platform/db/db.js'
import { recordEvent, subscribersOf } from '../../platform/db/statements/events.js'
import type { PostRow, TargetRow } from '../../platform/db/statements/posts.js'
import { recordHistory } from '../../platform/db/statements/target-history.js'
import { settleEvents, type TargetEventType } from '../outbox/settle-events.js'
import { deferProfileTargets } from './sql/defer-profile-targets.js'
import { followOnlyTarget } from './sql/follow-only-target.js'
import { lockPost } from './sql/lock-post.js'
import { lockTargetsOfPost } from './sql/lock-targets-of-post.js'
import { postById } from './sql/post-by-id.js'
import { refreshPostStatus } from './sql/refresh-post-status.js'
import { settleOnlyTarget } from './sql/settle-only-target.js'
import { type OnlyTargetEvents, settleOnlyTargetWithEvents } from './sql/settle-only-target-with-events.js'
import { targetsOfPost } from './sql/targets-of-post.js'
import { throttleConnection } from './sql/throttle-connection.js'
import { updateLeasedTarget } from './sql/update-leased-target.js'

export type { Outcome }
export { refreshPostStatus }

/**
 * A target's settle: what an attempt's outcome writes, in one statement where no sibling can race (Postgres,
 * a post's only target) and in a transaction otherwise, with the events it reports and the target's history
 * of it. The statements live in ./sql, one a file.
 */

export interface SettleInput {
  targetId: string
  postId: string
  workerId: string
  now: number
  outcome: Outcome
  /** True when the post has no other target (known at claim time; a post's targets cannot change while one is leased). */
  onlyTarget?: boolean
  /**
   * Added to the target's send attempts: +1 for a send the claim did not count (it was claimed for a
   * lookup that answered absent), -1 for a claim that turned out to be a rate-limit wait, not an attempt.
   */
  attemptsDelta?: number
  /** What the send saw on its way, for the target's history (none: the attempt's end alone is recorded). */
  trail?: SendTrail
}

/** Records an attempt's outcome and re-derives the post's status. Returns false when the lease was lost. */
export async function settleTarget(store: Store, input: SettleInput): Promise<boolean> {
  const { targetId, postId, workerId, now, outcome } = input
  const changes = targetChanges(outcome, now)
  const lastError = outcome.kind === 'published' ? undefined : outcome.error
  const history = settleHistory(outcome, input.trail)
  // The one-statement path writes no event: only outcomes that keep the target pending take it.
  const quiet = outcome.kind === 'retry' || outcome.kind === 'check'
  if (store.pgPool && input.onlyTarget) {
    // One statement settles the target, its post, its history and (where an endpoint wants them) its
    // events. When it changes nothing (the lease was lost), the general transaction below decides.
    if (quiet) return settleOnlyTarget(store, input, changes, lastError, history)
    const events = onlyTargetEvents(input, changes)
    if (await settleOnlyTargetWithEvents(store, input, changes, lastError, events, history)) return true
  }
  return store.db.transaction().execute(async (tx) => {
    // Targets of one post settle one at a time, so the last one sees every sibling's outcome and the post
    // status is derived from all of them (under READ COMMITTED two racing settles would each miss the other).
    // Locks are taken in the one order every writer uses (the post's targets by position, then the post),
    // so a settle and a tool changing the same post wait for each other instead of deadlocking.
    // A post's only target has no sibling to race: its update and the post's, in that order, take the
    // same locks in the same order.
    if (store.dialect === 'postgres' && !input.onlyTarget) {
      await lockTargetsOfPost(tx, postId)
      await lockPost(tx, postId)
    }
    const target = await updateLeasedTarget(tx, targetId, workerId, changes, input.attemptsDelta ?? 0)
    if (!target) return false
    await recordHistory(
      tx,
      now,
      history.map((entry) => ({ targetId, entry })),
    )
    let post: PostRow | undefined
    if (input.onlyTarget) post = await followOnlyTarget(tx, target, now, lastError)
    else await refreshPostStatus(tx, postId, now, lastError)
    if (!quiet) await recordSettleEvents(tx, target, input, post)
    return true
  })
}

/**
 * The events of a settled attempt, in the transaction that records it: the target's own event, then the
 * post's once its last target has settled (so a receiver sees them in that order). None for a workspace
 * with no enabled endpoint: an endpoint hears of the changes made while it is there.
 */
async function recordSettleEvents(tx: Db, target: TargetRow, input: SettleInput, settledPost?: PostRow) {
  const subscribers = await subscribersOf(tx, target.workspace_id)
  if (subscribers.length === 0) return
  const post = settledPost ?? (await postById(tx, target.post_id)).rows[0]
  if (!post) throw new Error(`Post ${target.post_id} of a settled target is missing`)
  const targets =
    targetEventType(input.outcome) === 'target.stuck'
      ? []
      : input.onlyTarget
        ? [target]
        : await targetsOfPost(tx, post.id)
  for (const event of settleEvents(target, post, targets, eventsInput(input)))
    await recordEvent(tx, event, subscribers)
}

const targetEventType = (outcome: Outcome): TargetEventType =>
  outcome.kind === 'published'
    ? 'target.published'
    : outcome.kind === 'failed'
      ? 'target.failed'
      : 'target.stuck'

/** The events input of a settle: its target's event, its time, and why a stuck target is stuck. */
const eventsInput = ({ outcome, now }: SettleInput) => ({
  type: targetEventType(outcome),
  now,
  stuckReason: outcome.kind === 'unknown' ? outcome.error : undefined,
})

/** The events of a post's only target settled in one statement: a post's only target decides the post. */
function onlyTargetEvents(input: SettleInput, changes: TargetChanges): OnlyTargetEvents {
  const { type, stuckReason } = eventsInput(input)
  // Published or failed with it; a stuck one reports only itself.
  const postEvent = type === 'target.stuck' ? undefined : postSettledEvent([String(changes.status)])
  return { type, stuckReason, postEvent }
}

/** Pushes a throttled profile's other waiting targets past its rate-limit reset. */
export async function deferProfile(db: Db, connectionId: string, until: number, now: number) {
  await deferProfileTargets(db, connectionId, until, now)
  await throttleConnection(db, connectionId, until, now)
}
