import { z } from 'zod'
import { RESET_MESSAGE, settledStatus } from '../../core/post-status.js'
import { recordToolSettleEvents } from '../../modules/outbox/settle-events.js'
import { postView } from '../../modules/publishing/load.js'
import { isStuck } from '../../modules/publishing/present.js'
import { postViewSchema } from '../../modules/publishing/schemas.js'
import { readLeaseNow } from '../../platform/db/lease-clock.js'
import { releaseStuckTargets, targetStatuses } from '../../platform/db/statements/post-changes.js'
import { updatePostRow } from '../../platform/db/statements/posts.js'
import { lockPostForChange, writeTransaction } from '../../platform/db/write-transaction.js'
import { conflict } from '../../platform/errors.js'
import { postIdField } from './get-post.js'
import { defineTool, toolInput } from './tool.js'

export const resetStuckPost = defineTool({
  name: 'reset_stuck_post',
  title: 'Reset stuck post',
  description:
    'Release a post stuck mid-publish (its worker stopped during a send, so the outcome is unknown): the stuck profiles are marked failed with that reason, and publish_post_now can then retry them. A post that is not stuck is a 409.',
  access: 'write',
  category: 'Publishing',
  input: toolInput({ id: postIdField }),
  output: z.object({
    success: z.boolean().describe('True when the post was released.'),
    message: z.string().describe('What happened.'),
    post: postViewSchema.describe('The post after the reset.'),
  }),
  async handler(input, ctx) {
    const { store } = ctx.app
    const now = ctx.app.clock.now()
    const post = await writeTransaction(store, async (tx) => {
      const { post, targets } = await lockPostForChange(tx, store, ctx.workspace.id, input.id)
      // Only leases that ran out are released; a live worker's lease is never stolen. Whether one ran out
      // is read on the lease clock (the database's), never this process's.
      const leaseNow = await readLeaseNow(tx, store.dialect, ctx.app.leaseClock())
      const stuck = targets.filter((t) => isStuck(t, leaseNow))
      if (stuck.length === 0)
        throw conflict('The post is not stuck: no send of it was interrupted', { status: post.status })
      await releaseStuckTargets(
        tx,
        stuck.map((t) => t.id),
        RESET_MESSAGE,
        now,
      )
      const after = await targetStatuses(tx, post.id)
      await updatePostRow(tx, post.id, {
        status: settledStatus(after) ?? 'processing',
        last_error: RESET_MESSAGE,
        updated_at: now,
      })
      // A reset reports as a settle would: each released target failed, then the post once all are settled.
      await recordToolSettleEvents(
        tx,
        post.id,
        stuck.map((t) => t.id),
        'target.failed',
        now,
      )
      return post
    })
    return {
      success: true,
      message: 'Released: the interrupted profiles are marked failed; retry them with publish_post_now',
      post: await postView(store.db, ctx.workspace.id, post.id, now),
    }
  },
})
