import type { Caller } from '../../modules/accounts/caller.js'
import type { ToolArgs, ToolName, ToolResult } from '../tools/registry.js'
import type { ToolRunner } from '../tools/runner.js'
import type { SignedIn } from './request.js'

/**
 * The person behind a dashboard session as the tool runner knows callers. The session stands in for a key
 * (rate limits and logs name it `session:<id>`), so the dashboard calls the same tools an agent does.
 */
export const callerOf = (who: SignedIn): Caller => ({
  userId: who.user.id,
  apiKeyId: `session:${who.session.id}`,
  defaultWorkspaceId: who.workspace.id,
})

/** The signed-in person as the team-workflow services know who acts (src/modules/publishing/approvals.ts). */
export const actorOf = (who: SignedIn) => ({
  userId: who.user.id,
  workspaceId: who.workspace.id,
  role: who.workspace.role,
})

/**
 * Runs a tool as the signed-in person in the session's workspace, its arguments and its answer typed by the
 * tool's own schemas: a page that asks for a field the tool does not answer does not compile.
 */
export const toolsAs =
  (runner: ToolRunner) =>
  <N extends ToolName>(who: SignedIn, tool: N, args: Omit<ToolArgs<N>, 'workspaceId'>) =>
    runner.run(tool, { ...args, workspaceId: who.workspace.id }, callerOf(who)) as Promise<ToolResult<N>>

/** The typed tool client of one request's handlers. */
export type Tools = ReturnType<typeof toolsAs>
