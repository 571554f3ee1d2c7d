import { z } from 'zod'
import { postView, postViewWithHistory } from '../../modules/publishing/load.js'
import { postViewSchema } from '../../modules/publishing/schemas.js'
import { defineTool, toolInput } from './tool.js'

export const postIdField = z.string().min(1).max(64).describe('Post id, from create_post or list_posts.')

export const getPost = defineTool({
  name: 'get_post',
  title: 'Get post',
  description:
    'One post with per-profile delivery: each target with its status, live URL or error, plus attempts and lastError. With history: true, each target also carries its history (every attempt, lookup, reset and retry).',
  access: 'read',
  category: 'Publishing',
  input: toolInput({
    id: postIdField,
    history: z
      .boolean()
      .optional()
      .describe(
        "Optional (an addition to the spec): true adds each target's history, oldest first. Left out, the post is answered as before, in the shape webhooks carry it.",
      ),
  }),
  output: postViewSchema,
  handler: (input, ctx) =>
    (input.history ? postViewWithHistory : postView)(
      ctx.app.store.db,
      ctx.workspace.id,
      input.id,
      ctx.app.clock.now(),
    ),
})
