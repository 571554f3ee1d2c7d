import { APPROVAL_NOTE_MAX, approvalVersion, type Role } from '../../core/approval.js'
import { LINK_SURCHARGE, resendPrice, unpaidPrice } from '../../core/network-rules.js'
import { rearmedStatus } from '../../core/post-status.js'
import { isPastSlot } from '../../core/schedule.js'
import { holdsLink } from '../../core/thread-items.js'
import { charge } from '../../platform/db/statements/credits.js'
import { lockQueues } from '../../platform/db/statements/posting-queues.js'
import { findPost, requeueTargets, targetsOf, updatePostRow } from '../../platform/db/statements/posts.js'
import { lockPostForChange, writeTransaction } from '../../platform/db/write-transaction.js'
import { AppError, conflict, invalid } from '../../platform/errors.js'
import type { AppContext } from '../app-context.js'
import { countByApproval, requiresApproval, setRequiresApproval, surchargePaid } from './approval-store.js'
import { postView } from './load.js'
import { nextFreeOpening } from './posting-queues.js'
import { markPostPaid, owedOnQueueing } from './queueing-charge.js'

/**
 * Approving and rejecting posts, and the workspace setting: owners only (DESIGN.md "Roles"). Not tools: the
 * dashboard, the CLI and REST paths of their own (`/api/approvals/...`) call these. Each decision is taken in
 * the transaction that writes it, on the post's locked rows; approving charges in that same transaction,
 * so a post approved twice at once is charged once (the second finds it approved and is refused).
 */

/** Who is acting, in which workspace. */
export interface Actor {
  userId: string
  workspaceId: string
  role: Role
}

function ownersOnly(actor: Actor, what: string) {
  if (actor.role !== 'owner')
    throw new AppError('forbidden', `Only an owner of this workspace can ${what}; you are an editor here`)
}

const notWaiting = (approval: string | null | undefined) =>
  conflict(
    approval === 'approved'
      ? 'This post was approved already'
      : approval === 'rejected'
        ? 'This post was rejected; it waits again once its author resubmits it'
        : 'This post is not waiting for approval',
    { approval: approval ?? null },
  )

export async function approvalSetting(app: AppContext, actor: Actor) {
  const db = app.store.db
  const [on, counts] = await Promise.all([
    requiresApproval(db, actor.workspaceId),
    countByApproval(db, actor.workspaceId),
  ])
  return { requireApproval: on, pending: counts.pending ?? 0, rejected: counts.rejected ?? 0 }
}

/** Turns "posts by editors need approval" on or off. Posts already waiting keep waiting either way. */
export async function changeApprovalSetting(app: AppContext, actor: Actor, on: boolean) {
  ownersOnly(actor, 'change whether posts need approval')
  await setRequiresApproval(app.store.db, actor.workspaceId, on)
  return approvalSetting(app, actor)
}

/**
 * Approves a pending post: it takes the slot it asked for (or goes out now when it asked for that, or when
 * `publishNow`), and what it owes is charged now: each profile's network price, the link surcharge of its
 * create_post call once per call, and re-sending failed profiles. A queued post whose slot passed while it
 * waited takes its profile's next free slot; any other slot that passed is a 409 (approve it to publish
 * now, or move it first). Not enough credits is a 402 and changes nothing.
 */
export async function approvePost(
  app: AppContext,
  actor: Actor,
  postId: string,
  options: { publishNow?: boolean; version?: string | undefined } = {},
) {
  ownersOnly(actor, 'approve posts')
  const { store } = app
  const now = app.clock.now()
  const outcome = await writeTransaction(store, async (tx) => {
    const { post, targets } = await lockPostForChange(tx, store, actor.workspaceId, postId)
    if (post.approval !== 'pending') throw notWaiting(post.approval)
    const version = approvalVersion(post, targets)
    if (options.version !== undefined && options.version !== version)
      throw conflict(
        'The post changed since you reviewed it (its author edited it while it waited): review it again before approving it',
        { version },
      )
    const slot = {
      date: post.schedule_date ?? '',
      time: post.schedule_time ?? '',
      timezone: post.timezone,
      dueAt: Number(post.due_at ?? now),
    }
    const immediate = options.publishNow === true || post.publish_immediately === 1
    if (immediate) slot.dueAt = now
    else if (isPastSlot(slot.dueAt, now)) {
      const connection = targets[0]?.connection_id
      const queue =
        post.from_queue && connection
          ? (await lockQueues(tx, store, [connection])).get(connection)
          : undefined
      const opening =
        queue && connection
          ? await nextFreeOpening(tx, actor.workspaceId, connection, queue, now + 1)
          : undefined
      if (!opening)
        throw conflict(
          `The slot it asked for, ${slot.date} ${slot.time} ${slot.timezone}, passed while it waited: approve it to publish now, or move it to a new slot first`,
          { scheduleDate: slot.date, scheduleTime: slot.time, timezone: slot.timezone },
        )
      Object.assign(slot, {
        date: opening.date,
        time: opening.time,
        timezone: opening.timezone,
        dueAt: opening.dueAt,
      })
    }
    const price = (await owedOnQueueing(tx, post, targets, now)) + resendPrice(targets)
    const remaining = await charge(
      tx,
      { workspaceId: actor.workspaceId, amount: price, reason: 'approval', reference: post.id },
      now,
    )
    await markPostPaid(tx, post, targets)
    await updatePostRow(tx, post.id, {
      status: rearmedStatus(targets),
      approval: 'approved',
      approval_by: actor.userId,
      approval_at: now,
      schedule_date: slot.date,
      schedule_time: slot.time,
      timezone: slot.timezone,
      due_at: slot.dueAt,
      last_error: '',
      updated_at: now,
    })
    await requeueTargets(tx, post.id, slot.dueAt, now, { includeFailed: true, retried: 'approved' })
    return { price, remaining, slot, immediate }
  })
  if (outcome.slot.dueAt <= now) app.queue.wake()
  const { slot } = outcome
  return {
    success: true,
    message: outcome.immediate
      ? `Approved; publishing now (${outcome.price} credits charged)`
      : `Approved; scheduled for ${slot.date} ${slot.time} ${slot.timezone} (${outcome.price} credits charged)`,
    post: await postView(store.db, actor.workspaceId, postId, app.clock.now()),
    credits: { charged: outcome.price, remaining: outcome.remaining },
  }
}

/**
 * What approving this post would charge now and whether it asks to go out at once, for its review page (a
 * read: approving decides again on locked rows). Undefined when the post is not waiting for approval.
 */
export async function approvalReview(
  app: AppContext,
  actor: Pick<Actor, 'workspaceId'>,
  postId: string,
): Promise<{ price: number; publishImmediately: boolean } | undefined> {
  const db = app.store.db
  const post = await findPost(db, actor.workspaceId, postId)
  if (post?.approval !== 'pending') return undefined
  const targets = await targetsOf(db, [postId])
  const surcharge =
    post.charge_group && targets.some(holdsLink) && !(await surchargePaid(db, post.charge_group))
      ? LINK_SURCHARGE
      : 0
  return {
    price: unpaidPrice(targets) + surcharge + resendPrice(targets),
    publishImmediately: post.publish_immediately === 1,
  }
}

/** Rejects a pending post with a note its author sees; it stays a draft, nothing is charged. */
export async function rejectPost(app: AppContext, actor: Actor, postId: string, note: string) {
  ownersOnly(actor, 'reject posts')
  const text = note.trim()
  if (text === '')
    throw invalid('note: say why the post is sent back, so its author can fix it', [
      { path: 'note', message: 'A note is required' },
    ])
  if (text.length > APPROVAL_NOTE_MAX)
    throw invalid(`note: at most ${APPROVAL_NOTE_MAX} characters (got ${text.length})`, [
      { path: 'note', message: `At most ${APPROVAL_NOTE_MAX} characters` },
    ])
  const { store } = app
  const now = app.clock.now()
  await writeTransaction(store, async (tx) => {
    const { post } = await lockPostForChange(tx, store, actor.workspaceId, postId)
    if (post.approval !== 'pending') throw notWaiting(post.approval)
    await updatePostRow(tx, post.id, {
      approval: 'rejected',
      approval_note: text,
      approval_by: actor.userId,
      approval_at: now,
      updated_at: now,
    })
  })
  return {
    success: true,
    message: 'Rejected; its author sees your note',
    post: await postView(store.db, actor.workspaceId, postId, app.clock.now()),
  }
}
