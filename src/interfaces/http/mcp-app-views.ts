import type { Caller } from '../../modules/accounts/caller.js'

/**
 * What the MCP server needs of the MCP Apps views (src/interfaces/mcp-apps/), handed to it by the composition
 * root so that HTTP never imports the views (they render with the dashboard's parts, which sit above HTTP).
 * Without it the server serves tools only, as before.
 */
export interface McpAppViews {
  /** The `_meta` a tool carries in tools/list when a view shows its answers. */
  toolMeta(toolName: string): Record<string, unknown> | undefined
  /** resources/list: every view. */
  list(): { resources: Array<Record<string, unknown> & { uri: string; name: string }> }
  /** resources/read of one view for this caller (its buttons follow the caller's scopes); undefined: no such view. */
  read(
    uri: string,
    caller: Caller,
  ): { contents: Array<Record<string, unknown> & { uri: string }> } | undefined
  /**
   * Extra `_meta` on a tool's result that only a view reads (a preview drawn by Herald's own renderer, the
   * queue's free posting times); the result's content and structured content stay what the tool answers
   * everywhere. Asked only after the tool answered for this caller.
   */
  resultMeta(
    toolName: string,
    args: Record<string, unknown>,
    result: unknown,
    caller: Caller,
  ): Promise<Record<string, unknown> | undefined>
}
