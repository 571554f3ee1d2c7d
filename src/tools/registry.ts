import { getConnectedAccounts } from './get-connected-accounts.js'
import { getUserInfo } from './get-user-info.js'
import { listWorkspaces } from './list-workspaces.js'
import { multicall } from './multicall.js'
import type { AnyTool } from './tool.js'

/** Every tool Herald serves, in the order the docs list them. A tool joins here when its handler is real. */
export const tools: readonly AnyTool[] = [listWorkspaces, getUserInfo, getConnectedAccounts, multicall]
