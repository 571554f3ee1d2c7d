import { z } from 'zod'
import { conflict } from '../errors.js'
import { requirePost } from '../posts/load.js'
import { resolveSlot } from '../posts/schedule-input.js'
import { dateSchema, timeSchema, timezoneSchema } from '../posts/schemas.js'
import { requeueTargets, updatePostRow } from '../store/posts.js'
import { postIdField } from './get-post.js'
import { defineTool, toolInput } from './tool.js'

export const reschedulePost = defineTool({
  name: 'reschedule_post',
  title: 'Reschedule post',
  description:
    'Change only when a post fires; copy and targets are kept. A draft or failed post is re-armed as scheduled; profiles that already received it are not sent to again. Refused (409) for published posts and posts being published.',
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
    const { db } = ctx.app.store
    const now = ctx.app.clock.now()
    const post = await requirePost(db, ctx.workspace.id, input.id)
    if (post.status === 'published' || post.status === 'processing') {
      throw conflict(
        `A ${post.status === 'processing' ? 'post being published' : 'published post'} cannot be rescheduled`,
        { status: post.status },
      )
    }
    const slot = resolveSlot(
      { date: input.scheduleDate, time: input.scheduleTime, timezone: input.timezone ?? post.timezone },
      now,
    )
    await db.transaction().execute(async (tx) => {
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
    })
    if (slot.dueAt <= now) ctx.app.queue.wake()
    return {
      success: true,
      message: `Rescheduled for ${slot.date} ${slot.time} ${slot.timezone}`,
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
