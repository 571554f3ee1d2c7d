import { z } from 'zod'
import { deletableStatuses } from '../domain/post-status.js'
import { conflict } from '../errors.js'
import { requirePost } from '../posts/load.js'
import { deletePostRow } from '../store/posts.js'
import { postIdField } from './get-post.js'
import { defineTool, toolInput } from './tool.js'

export const deletePost = defineTool({
  name: 'delete_post',
  title: 'Delete post',
  description:
    'Remove a scheduled or draft post from the queue for good. Failed, publishing and published posts are kept (409). Credits are not refunded.',
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
    const { db } = ctx.app.store
    const post = await requirePost(db, ctx.workspace.id, input.id)
    if (!deletableStatuses.includes(post.status as never)) {
      throw conflict(`Only scheduled and draft posts can be deleted; this one is ${post.status}`, {
        status: post.status,
      })
    }
    // The queue is the targets table itself: deleting the rows is what takes the post out of it, and a
    // worker that claimed a target a moment earlier holds a lease, which makes this delete a no-op for it.
    const deleted = await db.transaction().execute(async (tx) => {
      const leased = await tx
        .selectFrom('targets')
        .select('id')
        .where('post_id', '=', post.id)
        .where('lease_owner', 'is not', null)
        .executeTakeFirst()
      if (leased) return false
      await deletePostRow(tx, post.id)
      return true
    })
    if (!deleted)
      throw conflict('The post started publishing; it can no longer be deleted', { status: 'processing' })
    return { success: true, message: 'Post deleted', id: post.id }
  },
})
