import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { AppContext } from '../app-context.js'
import { keyFromHeaders } from '../auth/caller.js'
import { AppError, invalid, notFound } from '../errors.js'
import { scopeRefusal } from '../oauth/scopes.js'
import {
  type Actor,
  approvalSetting,
  approvePost,
  changeApprovalSetting,
  rejectPost,
} from '../posts/approvals.js'
import { importContextFor, importCsv, MAX_IMPORT_BYTES } from '../posts/csv-import.js'
import { listQueues, setQueue } from '../posts/posting-queues.js'
import { networkSchema } from '../posts/schemas.js'
import { findMembership } from '../store/accounts.js'
import type { ToolRunner } from '../tools/runner.js'
import { validationDetails, validationSummary } from '../tools/validation-messages.js'
import { authenticateRequest } from './rest.js'

/**
 * REST paths for the team-workflow management that is not one of the 17 tools (DESIGN.md "Additions beyond
 * the spec"): approvals, posting queues and CSV imports, for scripts. Authenticated like the tools (an API
 * key), the workspace chosen the same way (`workspaceId`, or the key's default). Thin: the services in
 * src/posts decide; a CSV import runs preflight_post and create_post through the tool runner.
 */

const workspaceId = z.string().max(64).optional().describe('Workspace; omitted: the key default.')

export function parse<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body ?? {})
  if (!parsed.success) {
    const details = validationDetails(parsed.error)
    throw invalid(`Invalid ${what}: ${validationSummary(details)}`, details)
  }
  return parsed.data
}

/**
 * Who acts, in which workspace: as the tool runner decides it (an OAuth token acts only in the workspace of
 * its grant and within its scopes: reading needs posts:read, changing posts:write).
 */
export async function actorFor(
  app: AppContext,
  request: FastifyRequest,
  asked: string | undefined,
  what: { name: string; access: 'read' | 'write' },
): Promise<Actor> {
  const caller = request.caller
  if (!caller) throw new AppError('unauthorized', 'An API key is required')
  const refusal = scopeRefusal(caller, what)
  if (refusal) throw refusal
  const id = asked ?? caller.defaultWorkspaceId
  if (caller.grant && id !== caller.grant.workspaceId) throw notFound(`Workspace ${id} not found`)
  const membership = await findMembership(app.store.db, id, caller.userId)
  if (!membership) throw notFound(`Workspace ${id} not found`)
  return { userId: caller.userId, workspaceId: membership.id, role: membership.role }
}

const approvalSettingBody = z.strictObject({
  workspaceId,
  requireApproval: z.boolean().describe('True: posts by editors wait for an owner.'),
})
const approveBody = z.strictObject({
  workspaceId,
  publishNow: z.boolean().optional().describe('Publish at once instead of at the slot it asked for.'),
})
const rejectBody = z.strictObject({
  workspaceId,
  note: z.string().max(10_000).describe('Why it is sent back; its author sees it.'),
})
const queueBody = z.strictObject({
  workspaceId,
  platform: networkSchema,
  profile: z.string().min(1).max(200).describe('Profile id or username.'),
  timezone: z.string().max(64).default('UTC').describe('IANA zone of the posting times.'),
  slots: z
    .array(z.string().max(100))
    .max(400)
    .describe('Posting times such as "daily 09:00" or "mon-fri 17:30"; [] removes the queue.'),
})
const importBody = z.strictObject({
  workspaceId,
  csv: z.string().max(MAX_IMPORT_BYTES).describe('The CSV file as text.'),
  dryRun: z.boolean().default(false).describe('Check every row and create nothing.'),
})

const READ_APPROVALS = { name: 'approvals', access: 'read' } as const
const CHANGE_APPROVALS = { name: 'approvals', access: 'write' } as const

export function registerManageRoutes(server: FastifyInstance, app: AppContext, runner: ToolRunner) {
  server.register(async (scope) => {
    // A CSV import also takes the file as it is (text/csv), up to its own limit.
    scope.addContentTypeParser(
      ['text/csv', 'text/plain'],
      { parseAs: 'buffer', bodyLimit: MAX_IMPORT_BYTES },
      (_request, body, done) => done(null, body),
    )
    scope.addHook('onRequest', async (request) => {
      await authenticateRequest(app, request, keyFromHeaders(request.headers))
    })

    scope.get<{ Querystring: { workspaceId?: string } }>('/api/approvals', async (request) =>
      approvalSetting(app, await actorFor(app, request, request.query.workspaceId, READ_APPROVALS)),
    )
    scope.post('/api/approvals/settings', async (request) => {
      const body = parse(approvalSettingBody, request.body, 'approval setting')
      return changeApprovalSetting(
        app,
        await actorFor(app, request, body.workspaceId, CHANGE_APPROVALS),
        body.requireApproval,
      )
    })
    scope.post<{ Params: { id: string } }>('/api/approvals/:id/approve', async (request) => {
      const body = parse(approveBody, request.body, 'approval')
      return approvePost(
        app,
        await actorFor(app, request, body.workspaceId, CHANGE_APPROVALS),
        request.params.id,
        {
          publishNow: body.publishNow,
        },
      )
    })
    scope.post<{ Params: { id: string } }>('/api/approvals/:id/reject', async (request) => {
      const body = parse(rejectBody, request.body, 'rejection')
      return rejectPost(
        app,
        await actorFor(app, request, body.workspaceId, CHANGE_APPROVALS),
        request.params.id,
        body.note,
      )
    })

    scope.get<{ Querystring: { workspaceId?: string } }>('/api/queues', async (request) => {
      const actor = await actorFor(app, request, request.query.workspaceId, {
        name: 'queues',
        access: 'read',
      })
      return listQueues(app.store.db, actor.workspaceId, app.clock.now())
    })
    scope.post('/api/queues', async (request) => {
      const body = parse(queueBody, request.body, 'posting queue')
      const actor = await actorFor(app, request, body.workspaceId, { name: 'queues', access: 'write' })
      await setQueue(app.store.db, actor.workspaceId, body, app.clock.now())
      const queues = await listQueues(app.store.db, actor.workspaceId, app.clock.now())
      return { success: true, queues }
    })

    scope.post<{ Querystring: { workspaceId?: string; dryRun?: string } }>(
      '/api/imports',
      async (request) => {
        const raw = Buffer.isBuffer(request.body)
        const body = raw
          ? {
              csv: request.body as Buffer,
              workspaceId: request.query.workspaceId,
              dryRun: request.query.dryRun,
            }
          : parse(importBody, request.body, 'import')
        const dryRun = raw ? ['1', 'true', 'yes'].includes(String(body.dryRun ?? '')) : Boolean(body.dryRun)
        // A check creates nothing (read); an import creates posts (write).
        const actor = await actorFor(app, request, body.workspaceId, {
          name: 'imports',
          access: dryRun ? 'read' : 'write',
        })
        const ctx = await importContextFor(app, runner, request.caller!, actor)
        return importCsv(ctx, body.csv, { dryRun })
      },
    )
  })
}
