import { z } from 'zod'
import { deletableStatuses, isInFlight, isLive, outcomeUnknown } from '../../core/post-status.js'
import { networkName, who } from '../../modules/publishing/edit-guards.js'
import { deletePostRow } from '../../platform/db/statements/posts.js'
import { lockPostForChange, writeTransaction } from '../../platform/db/write-transaction.js'
import { conflict } from '../../platform/errors.js'
import { postIdField } from './get-post.js'
import { defineTool, toolInput } from './tool.js'

export const deletePost = defineTool({
  name: 'delete_post',
  title: 'Delete post',
  description:
    'Remove a scheduled or draft post from the queue for good. Failed, publishing and published posts, and any post part of which is live on a network, are kept (409). Credits are not refunded.',
  access: 'write',
  category: 'Publishing',
  destructive: true,
  input: toolInput({ id: postIdField }),
  output: z.object({
    success: z.boolean().describe('True when the post was removed.'),
    message: z.string().describe('What happened.'),
    id: z.string().describe('The id of the removed post.'),
  }),
  async handler(input, ctx) {
    const { store } = ctx.app
    // The queue is the targets table itself: deleting the rows is what takes the post out of it. The check
    // and the delete run on locked rows, so a claim either committed first (and is refused here) or waits.
    const post = await writeTransaction(store, async (tx) => {
      const { post, targets } = await lockPostForChange(tx, store, ctx.workspace.id, input.id)
      if (targets.some(isInFlight))
        throw conflict('The post started publishing; it can no longer be deleted', { status: 'processing' })
      // Herald's record of a post the network holds is the only way to see it, retry what is left of it or
      // read its analytics: whatever the post's status, it stays.
      const live = targets.find(isLive)
      if (live)
        throw conflict(
          `${who(live)} has this post live on ${networkName(live)} already (${live.url ?? live.remote_id}), so it cannot be deleted from Herald; delete it on ${networkName(live)} if it must go`,
          { status: post.status, platform: live.platform, profileId: live.profile_id },
        )
      // A send whose outcome is unknown may have put the post on the network (a reset keeps that mark): deleting
      // would erase the only record of it, so the post stays until a lookup has answered.
      const unknown = targets.find(outcomeUnknown)
      if (unknown)
        throw conflict(
          `${who(unknown)} may have this post on ${networkName(unknown)} already (the outcome of its last send is unknown), so it cannot be deleted from Herald yet. Call publish_post_now: it looks for the post first and sends it only if it is not there.`,
          {
            status: post.status,
            platform: unknown.platform,
            profileId: unknown.profile_id,
            reason: 'outcome_unknown',
          },
        )
      if (!deletableStatuses.includes(post.status as never)) {
        throw conflict(`Only scheduled and draft posts can be deleted; this one is ${post.status}`, {
          status: post.status,
        })
      }
      await deletePostRow(tx, post.id)
      return post
    })
    return { success: true, message: 'Post deleted', id: post.id }
  },
})
