import type { z } from 'zod'
import type { AppContext } from '../app-context.js'
import type { Caller } from '../auth/caller.js'
import { AppError, invalid, notFound } from '../errors.js'
import { findMembership } from '../store/accounts.js'
import type { AnyTool, SelectedWorkspace, ToolContext } from './tool.js'

export interface RunOptions {
  idempotencyKey?: string | undefined
  nested?: boolean
}

export interface ToolRunner {
  has(name: string): boolean
  run(name: string, args: unknown, caller: Caller, options?: RunOptions): Promise<unknown>
}

/** zod issues as plain `{path, message}` records for the error body's `details`. */
export function describeIssues(error: z.ZodError) {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }))
}

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
    const membership = await findMembership(app.store.db, id, caller.userId)
    if (!membership) throw notFound(`Workspace ${id} not found`)
    return { id: membership.id, name: membership.name, plan: membership.plan, role: membership.role }
  }

  const run = async (
    name: string,
    args: unknown,
    caller: Caller,
    options: RunOptions = {},
  ): Promise<unknown> => {
    const tool = byName.get(name)
    if (!tool) throw notFound(`Unknown tool: ${name}`)
    const parsed = tool.input.safeParse(args === undefined ? {} : args)
    if (!parsed.success) {
      throw invalid(
        `Invalid arguments for ${name}: ${parsed.error.issues[0]?.message ?? 'invalid input'}`,
        describeIssues(parsed.error),
      )
    }
    const workspace = await selectWorkspace(caller, parsed.data.workspaceId as string | undefined)
    const ctx: ToolContext = {
      app,
      caller,
      workspace,
      idempotencyKey: options.idempotencyKey,
      nested: options.nested ?? false,
      runTool: (childName, childArgs, childOptions) =>
        run(childName, childArgs, caller, { idempotencyKey: childOptions?.idempotencyKey, nested: true }),
    }
    try {
      return await tool.handler(parsed.data, ctx)
    } catch (error) {
      if (!(error instanceof AppError)) app.logger.error({ err: error, tool: name }, 'tool failed')
      throw error
    }
  }

  return { has: (name) => byName.has(name), run }
}
