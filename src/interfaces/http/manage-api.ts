import { z } from 'zod'
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from '../../modules/publishing/csv-import.js'
import { networkSchema, postViewSchema } from '../../modules/publishing/schemas.js'

/**
 * The team-workflow REST paths (approvals, posting queues, CSV imports) as data: their request schemas,
 * which manage-routes.ts parses requests with, and their answers, which /openapi.json describes beside the
 * tools. A path registered under /api without an entry here fails test/openapi.test.ts.
 */

export const workspaceId = z.string().max(64).optional().describe('Workspace; omitted: the key default.')

export const approvalSettingBody = z.strictObject({
  workspaceId,
  requireApproval: z.boolean().describe('True: posts by editors wait for an owner.'),
})
export const approveBody = z.strictObject({
  workspaceId,
  publishNow: z.boolean().optional().describe('Publish at once instead of at the slot it asked for.'),
  version: z
    .string()
    .max(64)
    .optional()
    .describe(
      "The post's approval.version as you reviewed it: approving is refused (409) when its author changed it since.",
    ),
})
export const rejectBody = z.strictObject({
  workspaceId,
  note: z
    .string()
    .max(10_000)
    .describe('Why it is sent back (at most 2,000 characters); its author sees it.'),
})
export const queueBody = z.strictObject({
  workspaceId,
  platform: networkSchema,
  profile: z.string().min(1).max(200).describe('Profile id or username.'),
  timezone: z.string().max(64).default('UTC').describe('IANA zone of the posting times.'),
  slots: z
    .array(z.string().max(100))
    .max(400)
    .describe('Posting times such as "daily 09:00" or "mon-fri 17:30"; [] removes the queue.'),
})
export const importBody = z.strictObject({
  workspaceId,
  csv: z.string().max(MAX_IMPORT_BYTES).describe('The CSV file as text.'),
  dryRun: z.boolean().default(false).describe('Check every row and create nothing.'),
})
export const workspaceQuery = z.object({ workspaceId })
export const importQuery = z.strictObject({
  workspaceId,
  dryRun: z
    .enum(['1', 'true', 'yes', '0', 'false', 'no'])
    .optional()
    .describe('With a text/csv body: 1, true or yes checks every row and creates nothing.'),
})
const postIdParam = z.strictObject({ id: z.string().describe('Id of the post waiting for approval.') })

const approvalSettingAnswer = z.object({
  requireApproval: z.boolean().describe('Whether posts by editors wait for an owner.'),
  pending: z.number().int().describe('Posts waiting for approval.'),
  rejected: z.number().int().describe('Posts rejected and not yet resubmitted.'),
})
const approveAnswer = z.object({
  success: z.boolean().describe('True when the post was approved.'),
  message: z.string().describe('What happened, with the slot and the credits charged.'),
  post: postViewSchema.describe('The post as it is now (scheduled, or publishing).'),
  credits: z
    .object({
      charged: z.number().int().describe('Credits charged by the approval.'),
      remaining: z.number().int().describe('Workspace balance after it.'),
    })
    .describe('Credits are charged at approval, once.'),
})
const rejectAnswer = z.object({
  success: z.boolean().describe('True when the post was rejected.'),
  message: z.string().describe('What happened.'),
  post: postViewSchema.describe('The post, a draft whose approval.note its author sees.'),
})
const queueView = z.object({
  platform: networkSchema,
  profileId: z.string().describe('Profile id.'),
  username: z.string().describe('Handle.'),
  timezone: z.string().describe('IANA zone of the posting times.'),
  slots: z.array(z.string()).describe('The posting times as written: "daily 09:00", "mon,wed 12:30".'),
  next: z
    .array(
      z.object({
        scheduleDate: z.string().describe('YYYY-MM-DD in the queue zone.'),
        scheduleTime: z.string().describe('HH:MM in the queue zone.'),
        timezone: z.string().describe('The queue zone.'),
        dueAt: z.string().describe('The instant, ISO 8601 UTC.'),
      }),
    )
    .describe('The next free posting times.'),
})
const queuesAnswer = z.array(queueView).describe("The workspace's posting queues.")
const setQueueAnswer = z.object({
  success: z.boolean().describe('True when the queue was saved (or removed).'),
  queues: z.array(queueView).describe("The workspace's posting queues after the change."),
})
const rowProblem = z.object({
  column: z
    .enum(['content', 'profiles', 'date', 'time', 'timezone', 'media URLs', 'first comment', 'queue'])
    .optional()
    .describe('The column the problem is about, when there is one.'),
  message: z.string().describe('What is wrong.'),
})
const importAnswer = z.object({
  dryRun: z.boolean().describe('True: checked only, nothing created.'),
  rows: z
    .array(
      z.object({
        row: z.number().int().describe('The row as a spreadsheet numbers it (the header is row 1).'),
        status: z
          .enum([
            'ready',
            'blocked',
            'repeat',
            'created',
            'waiting for approval',
            'already imported',
            'failed',
          ])
          .describe('What the check or the import made of the row.'),
        content: z.string().describe('The start of its copy.'),
        profiles: z.array(z.string()).describe('The profiles cell, entry by entry.'),
        slot: z.string().describe('When it goes out: "2030-03-30 09:00 Europe/Berlin" or "queue: …".'),
        cost: z.number().int().describe('Credits it costs (at creation, or at approval).'),
        blockers: z.array(rowProblem).describe('Why it is not imported.'),
        warnings: z.array(z.string()).describe('Advice that does not stop it.'),
        postIds: z.array(z.string()).describe('The posts it made (or made in an earlier import).'),
        note: z.string().optional().describe('For a repeat, the row it repeats; for a failure, why.'),
      }),
    )
    .describe('Every row of the file, in its order.'),
  summary: z
    .object({
      rows: z.number().int().describe('Rows read.'),
      ready: z.number().int().describe('Rows that passed the check and were not created (dry run).'),
      blocked: z.number().int().describe('Rows with blockers.'),
      repeats: z.number().int().describe('Rows repeating an earlier row of the file.'),
      created: z.number().int().describe('Rows created (or waiting for approval).'),
      alreadyImported: z.number().int().describe('Rows an earlier import created.'),
      failed: z.number().int().describe('Rows create_post refused at import time.'),
      cost: z.number().int().describe('Credits the ready or created rows cost.'),
      balance: z.number().int().describe('Workspace balance before the import.'),
    })
    .describe('Counts of the rows by what became of them.'),
})

export interface ManageOperation {
  method: 'GET' | 'POST'
  /** Fastify's form: `:id` for a path parameter. */
  path: string
  operationId: string
  summary: string
  description: string
  /** Reading needs an OAuth token's posts:read, changing posts:write (an API key may do both). */
  access: 'read' | 'write'
  params?: z.ZodObject
  query?: z.ZodObject
  body?: z.ZodType
  /** Also takes the body as the file itself (text/csv or text/plain), its options in the query. */
  csvBody?: boolean
  answer: z.ZodType
  /** Error statuses this path answers besides those every path may (400, 401, 429, 500). */
  errors: Array<'402' | '403' | '404' | '409' | '413' | '415'>
}

export const manageOperations: ManageOperation[] = [
  {
    method: 'GET',
    path: '/api/approvals',
    operationId: 'get_approval_setting',
    summary: 'Approval setting',
    description:
      'Whether posts by editors wait for an owner, and how many posts are pending or rejected. Any member.',
    access: 'read',
    query: workspaceQuery,
    answer: approvalSettingAnswer,
    errors: ['403', '404'],
  },
  {
    method: 'POST',
    path: '/api/approvals/settings',
    operationId: 'set_approval_setting',
    summary: 'Change the approval setting',
    description:
      'Turns "posts by editors need approval" on or off. Owners only (an editor gets 403). Posts already waiting keep waiting either way.',
    access: 'write',
    body: approvalSettingBody,
    answer: approvalSettingAnswer,
    errors: ['403', '404', '415'],
  },
  {
    method: 'POST',
    path: '/api/approvals/:id/approve',
    operationId: 'approve_post',
    summary: 'Approve a post',
    description:
      'Owners only. Send the approval.version you reviewed: a post its author changed since is a 409. The post takes the slot it asked for (or publishes now when it asked for that, or with publishNow); its credits are charged now, once: a second approval, even a concurrent one, is a 409. A slot that passed while it waited is a 409 (publish now or move it), except a queued post, which takes its profile next free slot. 402 when the balance cannot pay.',
    access: 'write',
    params: postIdParam,
    body: approveBody,
    answer: approveAnswer,
    errors: ['402', '403', '404', '409', '415'],
  },
  {
    method: 'POST',
    path: '/api/approvals/:id/reject',
    operationId: 'reject_post',
    summary: 'Reject a post',
    description:
      'Owners only. Sends a pending post back to its author with a note (required, at most 2,000 characters); nothing was charged.',
    access: 'write',
    params: postIdParam,
    body: rejectBody,
    answer: rejectAnswer,
    errors: ['403', '404', '409', '415'],
  },
  {
    method: 'GET',
    path: '/api/queues',
    operationId: 'list_queues',
    summary: 'Posting queues',
    description:
      "Each profile's weekly posting times in its zone, with its next five free times. Editors and owners.",
    access: 'read',
    query: workspaceQuery,
    answer: queuesAnswer,
    errors: ['403', '404'],
  },
  {
    method: 'POST',
    path: '/api/queues',
    operationId: 'set_queue',
    summary: 'Set a posting queue',
    description:
      "Replaces one profile's weekly posting times (at most 200 a week; a time given twice for a day, or one that does not parse, is a 400 naming it); an empty list removes the queue. Editors and owners.",
    access: 'write',
    body: queueBody,
    answer: setQueueAnswer,
    errors: ['403', '404', '415'],
  },
  {
    method: 'POST',
    path: '/api/imports',
    operationId: 'import_csv',
    summary: 'Import posts from a CSV file',
    description: `Checks every row of a CSV (columns: content, profiles, date, time, timezone, media URLs, first comment, queue; at most ${MAX_IMPORT_ROWS} rows) as preflight_post does and, unless dryRun, creates the rows that pass with create_post; each row is imported once, so the same file again creates nothing. The body is the file (text/csv, options in the query) or JSON. A file that cannot be read (not UTF-8, not CSV, unknown columns, too many rows) is a 400 and nothing is created. An OAuth token needs posts:read for a dry run and posts:write to import.`,
    access: 'write',
    query: importQuery,
    body: importBody,
    csvBody: true,
    answer: importAnswer,
    errors: ['403', '404', '413', '415'],
  },
]

/** The OpenAPI path of a Fastify route path: `/api/approvals/:id/approve` → `/api/approvals/{id}/approve`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')
