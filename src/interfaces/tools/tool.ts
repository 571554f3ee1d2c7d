import { z } from 'zod'
import type { ConnectionInfo } from '../../core/post-plan.js'
import type { Caller } from '../../modules/accounts/caller.js'
import type { AppContext } from '../../modules/app-context.js'
import type { MemberRole } from '../../platform/db/statements/accounts.js'

export type Access = 'read' | 'write'
export type Category = 'Account' | 'Channels' | 'Publishing' | 'Analytics' | 'Media' | 'Batching'

export interface SelectedWorkspace {
  id: string
  name: string
  plan: string
  role: MemberRole
}

export interface ToolContext {
  app: AppContext
  caller: Caller
  workspace: SelectedWorkspace
  /** create_post only: the caller's idempotency key (REST header, or the argument on MCP and multicall). */
  idempotencyKey: string | undefined
  /** multicall only: runs another tool as this caller, with the same validation and workspace rules. */
  runTool(name: string, args: unknown, options?: { idempotencyKey?: string }): Promise<unknown>
  /** True when this call runs inside a multicall (batches cannot nest). */
  nested: boolean
  /**
   * preflight_post only: the workspace's connections as the request read them a moment ago (a CSV import
   * checks a thousand rows against the connections it read once); a check changes nothing, and create_post
   * always reads them itself.
   */
  knownConnections?: ConnectionInfo[] | undefined
  /**
   * create_post only: the key of the CSV row this call imports. It is recorded in the transaction that
   * creates the row's posts, so no crash can leave the posts without the record that the row was imported.
   */
  importRow?: string | undefined
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every input and output type.
export type AnyTool = Tool<z.ZodObject<any>, z.ZodType>

export interface Tool<I extends z.ZodObject, O extends z.ZodType> {
  name: string
  title: string
  description: string
  access: Access
  category: Category
  input: I
  output: O
  /** Marks tools that delete data, for MCP's destructiveHint. */
  destructive?: boolean
  /**
   * A read tool whose call spends credits with some arguments (analytics `refresh: true`): names those
   * arguments as sent, and is undefined for any other call. Such a call needs write access (an OAuth token's
   * `posts:write`), so a token granted only `posts:read` never spends credits.
   */
  spendsWith?: (args: Readonly<Record<string, unknown>>) => string | undefined
  handler(input: z.output<I>, ctx: ToolContext): Promise<z.input<O>>
}

export function defineTool<I extends z.ZodObject, O extends z.ZodType>(tool: Tool<I, O>): Tool<I, O> {
  return tool
}

export const workspaceIdField = z
  .string()
  .max(64)
  .optional()
  .describe('Workspace to act in, from list_workspaces. Omitted: the default workspace of the API key.')

/** A tool's arguments: the given fields plus `workspaceId`; unknown fields are refused. */
export function toolInput<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject({ ...shape, workspaceId: workspaceIdField })
}

export const creditsCharged = z
  .object({
    charged: z.number().int().describe('Credits this call took.'),
    remaining: z.number().int().describe('Workspace balance after the call.'),
  })
  .describe('What the call cost.')
