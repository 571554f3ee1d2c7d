import { z } from 'zod'
import { isPending, WAITING_MESSAGE } from '../../core/approval.js'
import { resendPrice } from '../../core/network-rules.js'
import { isInFlight } from '../../core/post-status.js'
import { requiresApproval } from '../../modules/publishing/approval-store.js'
import { refuseBackToQueue } from '../../modules/publishing/edit-guards.js'
import { markPostPaid, owedOnQueueing } from '../../modules/publishing/queueing-charge.js'
import { resolveSlot } from '../../modules/publishing/schedule-input.js'
import { dateSchema, timeSchema, timezoneSchema } from '../../modules/publishing/schemas.js'
import { charge } from '../../platform/db/statements/credits.js'
import { requeueTargets, updatePostRow } from '../../platform/db/statements/posts.js'
import { lockPostForChange, writeTransaction } from '../../platform/db/write-transaction.js'
import { conflict } from '../../platform/errors.js'
import { postIdField } from './get-post.js'
import { defineTool, toolInput } from './tool.js'

export const reschedulePost = defineTool({
  name: 'reschedule_post',
  title: 'Reschedule post',
  description:
    'Change only when a post fires; copy and targets are kept. A draft or failed post is re-armed as scheduled; profiles that already received it are not sent to again; each failed profile re-armed costs its network price again. Refused (409) for published posts, posts being published and posts part of which is live on a network (publish_post_now sends what is left of those). A post waiting for approval moves the slot it asks for and keeps waiting; with approvals on, an editor re-arming a draft or failed post asks for approval instead (nothing charged until approved).',
  access: 'write',
  category: 'Publishing',
  input: toolInput({
    id: postIdField,
    scheduleDate: dateSchema,
    scheduleTime: timeSchema,
    timezone: timezoneSchema
      .optional()
      .describe('IANA zone; omitted keeps the zone the post was scheduled in.'),
  }),
  output: z.object({
    success: z.boolean().describe('True when the post was moved.'),
    message: z.string().describe('The new slot, in a sentence.'),
    post: z
      .object({
        id: z.string().describe('Post id.'),
        scheduleDate: z.string().describe('New slot date.'),
        scheduleTime: z.string().describe('New slot time.'),
        timezone: z.string().describe('Zone of the new slot.'),
        status: z
          .string()
          .describe('Post status after the move: scheduled, or draft while it waits for approval.'),
      })
      .describe('The post after the move.'),
    from: z
      .object({
        scheduleDate: z.string().describe('Old slot date.'),
        scheduleTime: z.string().describe('Old slot time.'),
        timezone: z.string().describe('Old slot zone.'),
      })
      .describe('The slot the post left.'),
  }),
  async handler(input, ctx) {
    const { store } = ctx.app
    const now = ctx.app.clock.now()
    const { post, slot, price, waiting } = await writeTransaction(store, async (tx) => {
      const { post, targets } = await lockPostForChange(tx, store, ctx.workspace.id, input.id)
      if (post.status === 'published' || post.status === 'processing' || targets.some(isInFlight)) {
        throw conflict(
          `A ${post.status === 'published' ? 'published post' : 'post being published'} cannot be rescheduled`,
          { status: post.status },
        )
      }
      // A post part of which is on the network never goes back to the queue: publish_post_now sends the rest.
      refuseBackToQueue(targets, 'scheduled')
      const slot = resolveSlot(
        { date: input.scheduleDate, time: input.scheduleTime, timezone: input.timezone ?? post.timezone },
        now,
      )
      // A post waiting for approval moves the slot it asks for; an editor's re-arming of a draft or failed
      // post asks for approval (src/core/approval.ts). Neither is charged or queued.
      const asks =
        isPending(post) ||
        (ctx.workspace.role === 'editor' &&
          post.status !== 'scheduled' &&
          (await requiresApproval(tx, ctx.workspace.id)))
      if (asks) {
        await updatePostRow(tx, post.id, {
          status: 'draft',
          approval: 'pending',
          schedule_date: slot.date,
          schedule_time: slot.time,
          timezone: slot.timezone,
          due_at: slot.dueAt,
          publish_immediately: 0,
          updated_at: now,
        })
        return { post, slot, price: 0, waiting: true }
      }
      const price = resendPrice(targets) + (await owedOnQueueing(tx, post, targets, now))
      await markPostPaid(tx, post, targets)
      await charge(
        tx,
        { workspaceId: ctx.workspace.id, amount: price, reason: 'reschedule_post', reference: post.id },
        now,
      )
      await updatePostRow(tx, post.id, {
        status: 'scheduled',
        schedule_date: slot.date,
        schedule_time: slot.time,
        timezone: slot.timezone,
        due_at: slot.dueAt,
        last_error: post.status === 'failed' ? '' : post.last_error,
        updated_at: now,
        ...(post.approval === 'rejected' ? { approval: null } : {}),
      })
      await requeueTargets(tx, post.id, slot.dueAt, now, { includeFailed: true, retried: 'rescheduled' })
      return { post, slot, price, waiting: false }
    })
    if (!waiting && slot.dueAt <= now) ctx.app.queue.wake()
    const at = `${slot.date} ${slot.time} ${slot.timezone}`
    return {
      success: true,
      message: waiting
        ? `Asks for ${at}. ${WAITING_MESSAGE}`
        : `Rescheduled for ${at}${price > 0 ? ` (${price} credits for re-sending failed profiles or for the post itself)` : ''}`,
      post: {
        id: post.id,
        scheduleDate: slot.date,
        scheduleTime: slot.time,
        timezone: slot.timezone,
        status: waiting ? 'draft' : 'scheduled',
      },
      from: {
        scheduleDate: post.schedule_date ?? '',
        scheduleTime: post.schedule_time ?? '',
        timezone: post.timezone,
      },
    }
  },
})
