import { z } from 'zod'
import { approvalStates } from '../../core/approval.js'
import { postStatuses } from '../../core/post-status.js'
import { countByApproval } from '../../modules/publishing/approval-store.js'
import { groupTargets, presentPost } from '../../modules/publishing/present.js'
import { networkSchema, postViewSchema } from '../../modules/publishing/schemas.js'
import {
  countMatching,
  type PostFilter,
  pageMatchingComposes,
  pageMatchingPosts,
} from '../../platform/db/statements/post-search.js'
import { countPosts, pagePosts, targetsOf } from '../../platform/db/statements/posts.js'
import { defineTool, type ToolContext, toolInput } from './tool.js'

const dayField = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')

/** `all: true` returns every match, up to this many (a guard against unbounded responses). */
export const LIST_ALL_CAP = 5_000

const listPostsInput = toolInput({
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
  network: networkSchema
    .optional()
    .describe('Optional (an addition to the spec): only posts to this network, e.g. "twitter".'),
  profileId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'Optional (an addition to the spec): only posts to this profile id, from get_connected_accounts.',
    ),
  from: dayField
    .optional()
    .describe(
      "Optional (an addition to the spec): only slots on or after this date, YYYY-MM-DD, in each slot's own zone.",
    ),
  to: dayField
    .optional()
    .describe(
      "Optional (an addition to the spec): only slots on or before this date, YYYY-MM-DD, in each slot's own zone.",
    ),
  search: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'Optional (an addition to the spec): only posts whose copy holds these words, in any case. Example: "spring launch".',
    ),
  composeId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "Optional (an addition to the spec): only the posts of this compose (a post's composeId): every post one create_post made.",
    ),
  byCompose: z
    .boolean()
    .default(false)
    .describe(
      "Optional (an addition to the spec): page by compose instead of by post. page and limit then count composes, totalPages is pages of composes, pagination.totalComposes is added, and posts holds every post of each compose on the page (matching the filters or not), newest compose first, each compose's posts in the order they were made. Default false.",
    ),
})

export const listPosts = defineTool({
  name: 'list_posts',
  title: 'List posts',
  description: 'Read the queue, newest first, with per-profile delivery and counts by status.',
  access: 'read',
  category: 'Publishing',
  input: listPostsInput,
  output: z.object({
    posts: z.array(postViewSchema).describe('The page of posts, newest first.'),
    pagination: z
      .object({
        page: z.number().int().describe('This page.'),
        limit: z.number().int().describe('Posts per page.'),
        totalPosts: z.number().int().describe('Posts matching the filter.'),
        totalPages: z.number().int().describe('Pages at this limit.'),
        totalComposes: z
          .number()
          .int()
          .optional()
          .describe('With byCompose: composes with a matching post (an addition to the spec).'),
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
    if (narrowed(input))
      return { ...(await listMatching(ctx, input)), counts, ...(approvals ? { approvals } : {}) }
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

type ListInput = z.output<typeof listPostsInput>

/** Whether a filter beyond status and approval (or paging by compose) was asked for. */
const narrowed = (input: ListInput) =>
  input.byCompose ||
  [input.network, input.profileId, input.from, input.to, input.search, input.composeId].some(
    (value) => value !== undefined,
  )

/** The filtered page: of posts, or of composes with every post of each. */
async function listMatching(ctx: ToolContext, input: ListInput) {
  const { db } = ctx.app.store
  const filter: PostFilter = {
    status: input.status === 'all' ? undefined : input.status,
    approval: input.approval,
    network: input.network,
    profileId: input.profileId,
    from: input.from,
    to: input.to,
    search: input.search,
    composeId: input.composeId,
  }
  const totals = await countMatching(db, ctx.workspace.id, filter)
  const total = input.byCompose ? totals.composes : totals.posts
  const limit = input.all ? Math.min(Math.max(total, 1), LIST_ALL_CAP) : input.limit
  const page = input.all ? 1 : input.page
  const window = { limit, offset: (page - 1) * limit }
  const rows = input.byCompose
    ? await pageMatchingComposes(db, ctx.workspace.id, filter, window)
    : await pageMatchingPosts(db, ctx.workspace.id, filter, window)
  const targets = groupTargets(
    await targetsOf(
      db,
      rows.map((r) => r.id),
    ),
  )
  const now = ctx.app.clock.now()
  return {
    posts: rows.map((row) => presentPost(row, targets.get(row.id) ?? [], now)),
    pagination: {
      page,
      limit,
      totalPosts: totals.posts,
      totalPages: Math.ceil(total / limit),
      ...(input.byCompose ? { totalComposes: totals.composes } : {}),
    },
  }
}
