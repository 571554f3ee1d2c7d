import { z } from 'zod'
import { approvalStates } from '../../core/approval.js'
import { postStatuses } from '../../core/post-status.js'
import { countByApproval } from '../../modules/publishing/approval-store.js'
import { groupTargets, presentPost } from '../../modules/publishing/present.js'
import { postViewSchema } from '../../modules/publishing/schemas.js'
import { countPosts, pagePosts, targetsOf } from '../../platform/db/statements/posts.js'
import { defineTool, toolInput } from './tool.js'

/** `all: true` returns every match, up to this many (a guard against unbounded responses). */
export const LIST_ALL_CAP = 5_000

export const listPosts = defineTool({
  name: 'list_posts',
  title: 'List posts',
  description: 'Read the queue, newest first, with per-profile delivery and counts by status.',
  access: 'read',
  category: 'Publishing',
  input: toolInput({
    status: z
      .enum(['all', ...postStatuses])
      .default('all')
      .describe('Filter: all (default), scheduled, published, draft, failed or processing.'),
    page: z.number().int().min(1).max(1_000_000).default(1).describe('1-based page number. Default 1.'),
    limit: z.number().int().min(1).max(100).default(9).describe('Posts per page, 1 to 100. Default 9.'),
    all: z
      .boolean()
      .default(false)
      .describe(`Return every matching post in one response (up to ${LIST_ALL_CAP}), ignoring pagination.`),
    approval: z
      .enum(approvalStates)
      .optional()
      .describe(
        'Optional: only posts in this approval state (pending: waiting for an owner; rejected; approved). An addition to the spec.',
      ),
  }),
  output: z.object({
    posts: z.array(postViewSchema).describe('The page of posts, newest first.'),
    pagination: z
      .object({
        page: z.number().int().describe('This page.'),
        limit: z.number().int().describe('Posts per page.'),
        totalPosts: z.number().int().describe('Posts matching the filter.'),
        totalPages: z.number().int().describe('Pages at this limit.'),
      })
      .describe('Where this page sits.'),
    counts: z
      .object({
        all: z.number().int().describe('All posts.'),
        scheduled: z.number().int().describe('Scheduled posts.'),
        published: z.number().int().describe('Published posts.'),
        failed: z.number().int().describe('Failed posts.'),
        draft: z.number().int().describe('Drafts.'),
        processing: z.number().int().describe('Posts being sent.'),
      })
      .describe('Posts per status in the workspace.'),
    approvals: z
      .object({
        pending: z.number().int().describe("Posts waiting for an owner's approval."),
        rejected: z.number().int().describe('Posts an owner sent back with a note.'),
      })
      .optional()
      .describe('Posts per approval state, when any post has one (an addition to the spec).'),
  }),
  async handler(input, ctx) {
    const { db } = ctx.app.store
    const { byStatus, byApproval } = await countPosts(db, ctx.workspace.id)
    const count = (s: string) => byStatus[s] ?? 0
    const counts = {
      all: postStatuses.reduce((sum, s) => sum + count(s), 0),
      scheduled: count('scheduled'),
      published: count('published'),
      failed: count('failed'),
      draft: count('draft'),
      processing: count('processing'),
    }
    const status = input.status === 'all' ? undefined : input.status
    const approvals =
      Object.keys(byApproval).length > 0
        ? { pending: byApproval.pending ?? 0, rejected: byApproval.rejected ?? 0 }
        : undefined
    const totalPosts = input.approval
      ? ((status ? await countByApproval(db, ctx.workspace.id, status) : byApproval)[input.approval] ?? 0)
      : status
        ? counts[status]
        : counts.all
    const limit = input.all ? Math.min(Math.max(totalPosts, 1), LIST_ALL_CAP) : input.limit
    const page = input.all ? 1 : input.page
    const rows = await pagePosts(db, ctx.workspace.id, status, limit, (page - 1) * limit, input.approval)
    const targets = groupTargets(
      await targetsOf(
        db,
        rows.map((r) => r.id),
      ),
    )
    const now = ctx.app.clock.now()
    return {
      posts: rows.map((row) => presentPost(row, targets.get(row.id) ?? [], now)),
      pagination: { page, limit, totalPosts, totalPages: Math.ceil(totalPosts / limit) },
      counts,
      ...(approvals ? { approvals } : {}),
    }
  },
})
