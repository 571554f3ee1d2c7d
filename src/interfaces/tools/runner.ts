import type { ConnectionInfo } from '../../core/post-plan.js'
import type { Caller } from '../../modules/accounts/caller.js'
import { rateLimited } from '../../modules/accounts/request-windows.js'
import type { AppContext } from '../../modules/app-context.js'
import { scopeRefusal } from '../../modules/oauth-server/scopes.js'
import { findMembership } from '../../platform/db/statements/accounts.js'
import { AppError, invalid, notFound } from '../../platform/errors.js'
import type { AnyTool, SelectedWorkspace, ToolContext } from './tool.js'
import { nearestName, validationDetails, validationSummary } from './validation-messages.js'

export interface RunOptions {
  idempotencyKey?: string | undefined
  nested?: boolean
  /** See {@link ToolContext.knownConnections}. */
  knownConnections?: ConnectionInfo[] | undefined
  /** See {@link ToolContext.importRow}. */
  importRow?: string | undefined
}

export interface ToolRunner {
  has(name: string): boolean
  run(name: string, args: unknown, caller: Caller, options?: RunOptions): Promise<unknown>
  /** The not_found error for a tool name that does not exist, suggesting the nearest real one. */
  unknownTool(name: string): AppError
  /** Whether a tool's arguments include this field in this build (optional additions, e.g. firstComment). */
  acceptsField(name: string, field: string): boolean
  /**
   * Selects the workspace once for many calls of one request (a CSV import runs two tools per row): the
   * caller's membership is checked here, and every call of the answer runs in that workspace with that role.
   */
  inWorkspace(caller: Caller, workspaceId: string): Promise<WorkspaceRun>
}

/** Runs tools in a workspace selected once ({@link ToolRunner.inWorkspace}). */
export type WorkspaceRun = (name: string, args: unknown, options?: RunOptions) => Promise<unknown>

/**
 * The one path every transport takes into a tool: find it, validate the arguments against its schema,
 * select the workspace (a workspace the caller is not a member of does not exist for them), run it.
 */
export function createToolRunner(app: AppContext, tools: readonly AnyTool[]): ToolRunner {
  const byName = new Map(tools.map((tool) => [tool.name, tool]))

  const selectWorkspace = async (
    caller: Caller,
    workspaceId: string | undefined,
  ): Promise<SelectedWorkspace> => {
    const id = workspaceId ?? caller.defaultWorkspaceId
    // An OAuth token acts in the workspace chosen when it was granted; any other does not exist for it.
    if (caller.grant && id !== caller.grant.workspaceId) throw notFound(`Workspace ${id} not found`)
    const membership = await findMembership(app.store.db, id, caller.userId)
    if (!membership) throw notFound(`Workspace ${id} not found`)
    return { id: membership.id, name: membership.name, plan: membership.plan, role: membership.role }
  }

  const run = async (
    name: string,
    args: unknown,
    caller: Caller,
    options: RunOptions = {},
    selected?: SelectedWorkspace,
  ): Promise<unknown> => {
    const tool = byName.get(name)
    if (!tool) throw unknownTool(name)
    const refusal = scopeRefusal(caller, tool, args)
    if (refusal) throw refusal
    const parsed = tool.input.safeParse(args === undefined ? {} : args)
    if (!parsed.success) {
      const details = validationDetails(parsed.error)
      throw invalid(`Invalid arguments for ${name}: ${validationSummary(details)}`, details)
    }
    const asked = parsed.data.workspaceId as string | undefined
    const workspace =
      selected && (asked === undefined || asked === selected.id)
        ? selected
        : await selectWorkspace(caller, asked)
    const ctx: ToolContext = {
      app,
      caller,
      workspace,
      idempotencyKey: options.idempotencyKey,
      nested: options.nested ?? false,
      knownConnections: options.knownConnections,
      importRow: options.importRow,
      runTool: (childName, childArgs, childOptions) => {
        // Each call inside a batch counts against the key's limit as if it had come on its own.
        const counted = app.rateLimiter.count(caller.apiKeyId)
        if (counted.current > app.rateLimiter.perMinute)
          throw rateLimited(app.rateLimiter.perMinute, counted.ttl)
        return run(childName, childArgs, caller, {
          idempotencyKey: childOptions?.idempotencyKey,
          nested: true,
        })
      },
    }
    try {
      return await tool.handler(parsed.data, ctx)
    } catch (error) {
      if (!(error instanceof AppError)) app.logger.error({ err: error, tool: name }, 'tool failed')
      throw error
    }
  }

  const unknownTool = (name: string) => {
    const nearest = nearestName(name, [...byName.keys()])
    return notFound(`Unknown tool: ${name}.${nearest ? ` Did you mean ${nearest}?` : ''}`)
  }

  return {
    has: (name) => byName.has(name),
    run,
    unknownTool,
    acceptsField: (name, field) => field in (byName.get(name)?.input.shape ?? {}),
    async inWorkspace(caller, workspaceId) {
      const workspace = await selectWorkspace(caller, workspaceId)
      return (name, args, options) => run(name, args, caller, options, workspace)
    },
  }
}
