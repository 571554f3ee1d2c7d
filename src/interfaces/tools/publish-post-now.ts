import { z } from 'zod'
import { isPending, PENDING_PUBLISH_MESSAGE, WAITING_MESSAGE } from '../../core/approval.js'
import { resendPrice } from '../../core/network-rules.js'
import { isInFlight, isLive, rearmedStatus } from '../../core/post-status.js'
import { requiresApproval } from '../../modules/publishing/approval-store.js'
import { postView } from '../../modules/publishing/load.js'
import { markPostPaid, owedOnQueueing } from '../../modules/publishing/queueing-charge.js'
import { postViewSchema } from '../../modules/publishing/schemas.js'
import { charge, currentBalance } from '../../platform/db/statements/credits.js'
import {
  type PostRow,
  requeueTargets,
  type TargetRow,
  updatePostRow,
} from '../../platform/db/statements/posts.js'
import { lockPostForChange, writeTransaction } from '../../platform/db/write-transaction.js'
import { conflict } from '../../platform/errors.js'
import { postIdField } from './get-post.js'
import { creditsCharged, defineTool, toolInput } from './tool.js'

export const publishPostNow = defineTool({
  name: 'publish_post_now',
  title: 'Publish post now',
  description:
    "Send a scheduled or draft post now, ahead of its slot (free: it was paid at creation), or retry the failed profiles of a failed or published post (each re-sent profile costs its network price again). Published profiles are never sent again. A post waiting for an owner's approval is refused (409): an owner approves it. With approvals on, an editor's publish now of a draft or failed post asks for approval instead (success true, approval.state pending, nothing charged).",
  access: 'write',
  category: 'Publishing',
  input: toolInput({ id: postIdField }),
  output: z.object({
    success: z.boolean().describe('True when the post went out (or is going out).'),
    message: z.string().describe('What happened.'),
    post: postViewSchema.describe('The post after the send (or while still sending).'),
    credits: creditsCharged,
  }),
  async handler(input, ctx) {
    const { store } = ctx.app
    const { db } = store
    const now = ctx.app.clock.now()
    // Read, check, price and write in one transaction on locked rows: two calls at once charge once.
    const { postId, price, remaining, waiting, lookingUp } = await writeTransaction(store, async (tx) => {
      const { post, targets } = await lockPostForChange(tx, store, ctx.workspace.id, input.id)
      // A post whose only unsettled profiles wait for their lookup (after a reset, or a worker that died) is
      // going out already: the lookup runs when the network's lists have caught up, then sends what is
      // not there. Bringing it forward could miss a post the lists do not show yet.
      if (waitsForLookups(post, targets))
        return {
          postId: post.id,
          price: 0,
          remaining: await currentBalance(tx, ctx.workspace.id),
          waiting: false,
          lookingUp: true,
        }
      if (post.status === 'processing' || targets.some(isInFlight))
        throw conflict('The post is being published already', { status: post.status })
      // Approvals (src/core/approval.ts): nothing publishes a pending post but its approval; an editor's
      // "publish now" of a draft or failed post asks for approval to publish it as soon as it is approved.
      if (isPending(post)) throw conflict(PENDING_PUBLISH_MESSAGE, { approval: 'pending' })
      if (
        ctx.workspace.role === 'editor' &&
        (post.status === 'draft' || post.status === 'failed') &&
        (await requiresApproval(tx, ctx.workspace.id))
      ) {
        // A post part of which is on the network waits in the status it has: it never goes back to draft.
        await updatePostRow(tx, post.id, {
          status: targets.some(isLive) ? post.status : 'draft',
          approval: 'pending',
          publish_immediately: 1,
          due_at: now,
          updated_at: now,
        })
        return {
          postId: post.id,
          price: 0,
          remaining: await currentBalance(tx, ctx.workspace.id),
          waiting: true,
          lookingUp: false,
        }
      }
      const retrying = post.status === 'failed' || post.status === 'published'
      const unsent = targets.filter((t) => t.status === 'pending')
      const failed = targets.filter((t) => t.status === 'failed')
      if (retrying && failed.length === 0 && unsent.length === 0)
        throw conflict('Every profile of this post has it already; nothing to send', { status: post.status })
      const price = resendPrice(targets) + (await owedOnQueueing(tx, post, targets, now))
      await markPostPaid(tx, post, targets)
      const remaining = await charge(
        tx,
        { workspaceId: ctx.workspace.id, amount: price, reason: 'publish_post_now', reference: post.id },
        now,
      )
      await updatePostRow(tx, post.id, {
        status: rearmedStatus(targets),
        due_at: now,
        last_error: '',
        updated_at: now,
        ...(post.approval === 'rejected' ? { approval: null } : {}),
      })
      await requeueTargets(tx, post.id, now, now, { includeFailed: true, retried: 'now' })
      return { postId: post.id, price, remaining, waiting: false, lookingUp: false }
    })
    if (waiting)
      return {
        success: true,
        message: `${WAITING_MESSAGE}; it is published as soon as it is approved`,
        post: await postView(db, ctx.workspace.id, postId, now),
        credits: { charged: 0, remaining },
      }
    if (lookingUp)
      return {
        success: true,
        message:
          'Going out: Herald first looks for it on the network (the last send was interrupted), then sends only what is not there',
        post: await postView(db, ctx.workspace.id, postId, now),
        credits: { charged: 0, remaining },
      }
    ctx.app.queue.wake()
    await ctx.app.queue.waitForSettled(db, [postId], ctx.app.config.immediateWaitMs)
    const view = await postView(db, ctx.workspace.id, postId, ctx.app.clock.now())
    return {
      success: view.status !== 'failed',
      message:
        view.status === 'published'
          ? 'Published'
          : view.status === 'failed'
            ? 'Sending failed; see the targets'
            : 'Sending now',
      post: view,
      credits: { charged: price, remaining },
    }
  },
})

/** Every unsettled target of a processing post waits for a lookup nobody holds yet. */
function waitsForLookups(post: PostRow, targets: readonly TargetRow[]): boolean {
  const unsettled = targets.filter((t) => t.status === 'pending')
  return (
    post.status === 'processing' &&
    unsettled.length > 0 &&
    unsettled.every((t) => t.lease_owner === null && t.unknown_outcome_at !== null)
  )
}
