import { z } from 'zod'
import { postView } from '../../modules/publishing/load.js'
import { postViewSchema } from '../../modules/publishing/schemas.js'
import { defineTool, toolInput } from './tool.js'

export const postIdField = z.string().min(1).max(64).describe('Post id, from create_post or list_posts.')

export const getPost = defineTool({
  name: 'get_post',
  title: 'Get post',
  description:
    'One post with per-profile delivery: each target with its status, live URL or error, plus attempts and lastError.',
  access: 'read',
  category: 'Publishing',
  input: toolInput({ id: postIdField }),
  output: postViewSchema,
  handler: (input, ctx) => postView(ctx.app.store.db, ctx.workspace.id, input.id, ctx.app.clock.now()),
})
