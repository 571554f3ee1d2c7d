import { z } from 'zod'
import { resendPrice } from '../domain/network-rules.js'
import { isInFlight } from '../domain/post-status.js'
import { conflict } from '../errors.js'
import { resolveSlot } from '../posts/schedule-input.js'
import { dateSchema, timeSchema, timezoneSchema } from '../posts/schemas.js'
import { charge } from '../store/credits.js'
import { requeueTargets, updatePostRow } from '../store/posts.js'
import { lockPostForChange, writeTransaction } from '../store/write-transaction.js'
import { postIdField } from './get-post.js'
import { defineTool, toolInput } from './tool.js'

export const reschedulePost = defineTool({
  name: 'reschedule_post',
  title: 'Reschedule post',
  description:
    'Change only when a post fires; copy and targets are kept. A draft or failed post is re-armed as scheduled; profiles that already received it are not sent to again; each failed profile re-armed costs its network price again. Refused (409) for published posts and posts being published.',
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
        status: z.string().describe('Post status after the move (scheduled).'),
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
    const { post, slot, price } = await writeTransaction(store, async (tx) => {
      const { post, targets } = await lockPostForChange(tx, store, ctx.workspace.id, input.id)
      if (post.status === 'published' || post.status === 'processing' || targets.some(isInFlight)) {
        throw conflict(
          `A ${post.status === 'published' ? 'published post' : 'post being published'} cannot be rescheduled`,
          { status: post.status },
        )
      }
      const slot = resolveSlot(
        { date: input.scheduleDate, time: input.scheduleTime, timezone: input.timezone ?? post.timezone },
        now,
      )
      const price = resendPrice(targets)
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
      })
      await requeueTargets(tx, post.id, slot.dueAt, now, { includeFailed: true })
      return { post, slot, price }
    })
    if (slot.dueAt <= now) ctx.app.queue.wake()
    return {
      success: true,
      message: `Rescheduled for ${slot.date} ${slot.time} ${slot.timezone}${price > 0 ? ` (${price} credits for re-sending failed profiles)` : ''}`,
      post: {
        id: post.id,
        scheduleDate: slot.date,
        scheduleTime: slot.time,
        timezone: slot.timezone,
        status: 'scheduled',
      },
      from: {
        scheduleDate: post.schedule_date ?? '',
        scheduleTime: post.schedule_time ?? '',
        timezone: post.timezone,
      },
    }
  },
})
