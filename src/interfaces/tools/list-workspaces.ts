import { z } from 'zod'
import { listWorkspacesForUser } from '../../platform/db/statements/accounts.js'
import { defineTool, toolInput } from './tool.js'

export const workspaceSchema = z.object({
  id: z.string().describe('Workspace id: the value for workspaceId.'),
  name: z.string().describe('Workspace name.'),
  role: z.enum(['owner', 'editor']).describe("The caller's role in it."),
  isOwner: z.boolean().describe('True when the caller owns it.'),
  connectedPlatforms: z.array(z.string()).describe('Networks with at least one live connection in it.'),
  memberCount: z.number().int().describe('How many people belong to it.'),
})

export const listWorkspaces = defineTool({
  name: 'list_workspaces',
  title: 'List workspaces',
  description: 'List every workspace the caller belongs to, owned and shared, with their role in each.',
  access: 'read',
  category: 'Account',
  input: toolInput({}),
  output: z.array(workspaceSchema).describe('The workspaces, oldest first.'),
  handler: async (_input, ctx) => {
    const all = await listWorkspacesForUser(ctx.app.store.db, ctx.caller.userId)
    // An OAuth token acts in one workspace only: the others are not its to list.
    const grant = ctx.caller.grant
    return grant ? all.filter((w) => w.id === grant.workspaceId) : all
  },
})
