import { z } from 'zod'
import { resendPrice } from '../domain/network-rules.js'
import { isInFlight } from '../domain/post-status.js'
import { conflict } from '../errors.js'
import { postView } from '../posts/load.js'
import { postViewSchema } from '../posts/schemas.js'
import { charge } from '../store/credits.js'
import { requeueTargets, updatePostRow } from '../store/posts.js'
import { lockPostForChange, writeTransaction } from '../store/write-transaction.js'
import { postIdField } from './get-post.js'
import { creditsCharged, defineTool, toolInput } from './tool.js'

export const publishPostNow = defineTool({
  name: 'publish_post_now',
  title: 'Publish post now',
  description:
    'Send a scheduled or draft post now, ahead of its slot (free: it was paid at creation), or retry the failed profiles of a failed or published post (each re-sent profile costs its network price again). Published profiles are never sent again.',
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
    const { postId, price, remaining } = await writeTransaction(store, async (tx) => {
      const { post, targets } = await lockPostForChange(tx, store, ctx.workspace.id, input.id)
      if (post.status === 'processing' || targets.some(isInFlight))
        throw conflict('The post is being published already', { status: post.status })
      const retrying = post.status === 'failed' || post.status === 'published'
      const unsent = targets.filter((t) => t.status === 'pending')
      const failed = targets.filter((t) => t.status === 'failed')
      if (retrying && failed.length === 0 && unsent.length === 0)
        throw conflict('Every profile of this post has it already; nothing to send', { status: post.status })
      const price = resendPrice(targets)
      const remaining = await charge(
        tx,
        { workspaceId: ctx.workspace.id, amount: price, reason: 'publish_post_now', reference: post.id },
        now,
      )
      await updatePostRow(tx, post.id, { status: 'scheduled', due_at: now, last_error: '', updated_at: now })
      await requeueTargets(tx, post.id, now, now, { includeFailed: true })
      return { postId: post.id, price, remaining }
    })
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
