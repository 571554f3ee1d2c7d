import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import { keyFromHeaders } from '../../modules/accounts/caller.js'
import type { AppContext } from '../../modules/app-context.js'
import { scopeRefusal } from '../../modules/oauth-server/scopes.js'
import {
  type Actor,
  approvalSetting,
  approvePost,
  changeApprovalSetting,
  rejectPost,
} from '../../modules/publishing/approvals.js'
import { importContextFor, importCsv, MAX_IMPORT_BYTES } from '../../modules/publishing/csv-import.js'
import { listQueues, setQueue } from '../../modules/publishing/posting-queues.js'
import { findMembership } from '../../platform/db/statements/accounts.js'
import { AppError, invalid, notFound } from '../../platform/errors.js'
import type { ToolRunner } from '../tools/runner.js'
import { validationDetails, validationSummary } from '../tools/validation-messages.js'
import {
  approvalSettingBody,
  approveBody,
  importBody,
  importQuery,
  queueBody,
  rejectBody,
  workspaceQuery,
} from './manage-api.js'
import { authenticateRequest } from './rest.js'

/**
 * REST paths for the team-workflow management that is not one of the 17 tools (DESIGN.md "Additions beyond
 * the spec"): approvals, posting queues and CSV imports, for scripts. Authenticated like the tools (an API
 * key), the workspace chosen the same way (`workspaceId`, or the key's default). Thin: the services in
 * src/posts decide; a CSV import runs preflight_post and create_post through the tool runner.
 */

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

const READ_APPROVALS = { name: 'approvals', access: 'read' } as const
const CHANGE_APPROVALS = { name: 'approvals', access: 'write' } as const

export function registerManageRoutes(server: FastifyInstance, app: AppContext, runner: ToolRunner) {
  server.register(async (scope) => {
    acceptImportBodies(scope)
    scope.addHook('onRequest', async (request, reply) => {
      await authenticateRequest(app, request, reply, keyFromHeaders(request.headers))
    })
    registerApprovalRoutes(scope, app)
    registerQueueRoutes(scope, app)
    registerImportRoute(scope, app, runner)
  })
}

/** A CSV import also takes the file as it is (text/csv), and its refusals of a body say its own limits. */
function acceptImportBodies(scope: FastifyInstance) {
  scope.addContentTypeParser(
    ['text/csv', 'text/plain'],
    { parseAs: 'buffer', bodyLimit: MAX_IMPORT_BYTES },
    (_request, body, done) => done(null, body),
  )
  // An import's refusals of the body say its own limit and types (the server's say 1 MB and JSON); the
  // AppError thrown here is answered by the server's error handler like any other.
  scope.setErrorHandler((error: FastifyError, request) => {
    if (!request.url.startsWith('/api/imports')) throw error
    const csv = /^text\/(csv|plain)\b/i.test(request.headers['content-type'] ?? '')
    if (error.statusCode === 413 && csv)
      throw new AppError(
        'invalid_request',
        `The file is over the ${MAX_IMPORT_BYTES} bytes an import takes (split it in two)`,
        undefined,
        413,
      )
    if (error.statusCode === 415)
      throw new AppError(
        'invalid_request',
        'Send the CSV file as the body (Content-Type: text/csv or text/plain), or JSON {"csv": "…"}',
        undefined,
        415,
      )
    throw error
  })
}

/** The workspace's approval setting, and an owner's decisions on a waiting post. */
function registerApprovalRoutes(scope: FastifyInstance, app: AppContext) {
  scope.get('/api/approvals', async (request) => {
    const query = parse(workspaceQuery, request.query, 'query')
    return approvalSetting(app, await actorFor(app, request, query.workspaceId, READ_APPROVALS))
  })
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
      { publishNow: body.publishNow, version: body.version },
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
}

/** The posting queues: each profile's weekly posting times. */
function registerQueueRoutes(scope: FastifyInstance, app: AppContext) {
  scope.get('/api/queues', async (request) => {
    const query = parse(workspaceQuery, request.query, 'query')
    const actor = await actorFor(app, request, query.workspaceId, {
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
}

/** A CSV import (or its dry run), with the file as the body or as JSON. */
function registerImportRoute(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  scope.post<{ Querystring: { workspaceId?: string; dryRun?: string } }>('/api/imports', async (request) => {
    const raw = Buffer.isBuffer(request.body)
    // With the file as the body, its options are in the query; `dryRun=on` is refused, never an import.
    const query = raw ? parse(importQuery, request.query, 'import options') : undefined
    const body = query
      ? { csv: request.body as Buffer, workspaceId: query.workspaceId, dryRun: query.dryRun }
      : parse(importBody, request.body, 'import')
    const dryRun = query ? ['1', 'true', 'yes'].includes(query.dryRun ?? '') : Boolean(body.dryRun)
    // A check creates nothing (read); an import creates posts (write).
    const actor = await actorFor(app, request, body.workspaceId, {
      name: 'imports',
      access: dryRun ? 'read' : 'write',
    })
    const ctx = await importContextFor(app, runner, request.caller!, actor)
    return importCsv(ctx, body.csv, { dryRun })
  })
}
