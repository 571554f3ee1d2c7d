import { STUCK_MESSAGE } from '../../core/post-status.js'
import { type EventType, postSettledEvent } from '../../core/webhook-events.js'
import type { Db } from '../../platform/db/db.js'
import {
  type EventInput,
  eventBody,
  recordEvent,
  subscribersOf,
} from '../../platform/db/statements/events.js'
import type { PostRow, TargetRow } from '../../platform/db/statements/posts.js'
import { presentPost, presentTarget } from '../publishing/present.js'

/** What a person does about a stuck target (sent with `target.stuck`). */
export const STUCK_ACTION =
  'Check the profile on the network. If the post is there, nothing to do; if not, call reset_stuck_post and then publish_post_now.'

export type TargetEventType = 'target.published' | 'target.failed' | 'target.stuck'

export interface SettleEventsInput {
  /** The target's event: what its settle did. */
  type: TargetEventType
  now: number
  /** Why a stuck target is stuck (the default: it may or may not be on the network). */
  stuckReason?: string | undefined
}

/**
 * What a settle reports: the target's event, then the post's when `targets` (the post's targets, as they
 * stand after the settle) are all settled. A stuck target reports only itself.
 */
export function settleEvents(
  target: TargetRow,
  post: PostRow,
  targets: TargetRow[],
  input: SettleEventsInput,
): EventInput[] {
  const { type, now } = input
  const events = [targetEvent(target, post.status, input)]
  const settled = type === 'target.stuck' ? undefined : postSettledEvent(targets.map((t) => t.status))
  if (settled) {
    const view = presentPost(post, targets, now)
    events.push({
      workspaceId: post.workspace_id,
      type: settled,
      orderKey: post.id,
      data: { post: view },
      ids: { postId: post.id },
      // Cut down, the post keeps its place (`post.id`) and its outcome.
      kept: {
        post: {
          id: view.id,
          status: view.status,
          ...(view.publishedAt ? { publishedAt: view.publishedAt } : {}),
          ...(view.lastError ? { lastError: view.lastError } : {}),
        },
      },
      now,
    })
  }
  return events
}

/**
 * One target's event. Cut down (a long thread or first comment can pass 20 KB), it keeps the target
 * without its items, the post's status and, when stuck, the reason and what to do.
 */
export function targetEvent(target: TargetRow, postStatus: string, input: SettleEventsInput): EventInput {
  const { type, now } = input
  const view = presentTarget(target, now)
  const stuck =
    type === 'target.stuck' ? { reason: input.stuckReason ?? STUCK_MESSAGE, action: STUCK_ACTION } : {}
  const { items: _items, ...withoutItems } = view
  return {
    workspaceId: target.workspace_id,
    type,
    orderKey: target.post_id,
    data: { postId: target.post_id, postStatus, target: view, ...stuck },
    ids: { postId: target.post_id, profileId: target.profile_id, platform: target.platform },
    kept: { postStatus, target: withoutItems, ...stuck },
    now,
  }
}

/** The rows a post's only target settled with, kept with its events (`events.snapshot`, migration 019). */
export interface SettleSnapshot {
  target: TargetRow
  post: PostRow
  targetEvent: TargetEventType
  stuckReason: string | null
}

/**
 * The body of an event written as a snapshot: exactly what {@link settleEvents} makes of the snapshot's
 * rows at the event's time, so every attempt of a delivery sends the same bytes.
 */
export function renderSnapshot(event: {
  id: string
  type: string
  createdAt: number
  snapshot: string
}): string {
  const snapshot = JSON.parse(event.snapshot) as SettleSnapshot
  const input = {
    type: snapshot.targetEvent,
    now: event.createdAt,
    stuckReason: snapshot.stuckReason ?? undefined,
  }
  const rendered = settleEvents(snapshot.target, snapshot.post, [snapshot.target], input).find(
    (candidate) => candidate.type === (event.type as EventType),
  )
  if (!rendered) throw new Error(`Event ${event.id} (${event.type}) is not among its snapshot's events`)
  return eventBody(event.id, rendered)
}

/**
 * What a tool that settles targets by hand reports (reset_stuck_post releasing stuck ones as failed,
 * update_post publishing a live one with nothing left to send), in the transaction that makes the change:
 * `type` for each of `settled`, then the post's event when it leaves every target settled, as a settle
 * would have.
 */
export async function recordToolSettleEvents(
  tx: Db,
  postId: string,
  settled: string[],
  type: 'target.published' | 'target.failed',
  now: number,
) {
  if (settled.length === 0) return
  const post = await tx.selectFrom('posts').selectAll().where('id', '=', postId).executeTakeFirstOrThrow()
  const subscribers = await subscribersOf(tx, post.workspace_id)
  if (subscribers.length === 0) return
  const targets = await tx
    .selectFrom('targets')
    .selectAll()
    .where('post_id', '=', postId)
    .orderBy('position')
    .execute()
  const input = { type, now }
  const events = targets
    .filter((target) => settled.includes(target.id))
    .map((target) => targetEvent(target, post.status, input))
  // The post's event once, after the last target's (settleEvents adds it only when every target is settled).
  const last = targets.findLast((target) => settled.includes(target.id))
  if (last) events.push(...settleEvents(last, post, targets, input).slice(1))
  for (const event of events) await recordEvent(tx, event, subscribers)
}
