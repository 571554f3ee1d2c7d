import { z } from 'zod'
import { findUserById } from '../../platform/db/statements/accounts.js'
import { currentBalance } from '../../platform/db/statements/credits.js'
import { notFound } from '../../platform/errors.js'
import { defineTool, toolInput } from './tool.js'

export const getUserInfo = defineTool({
  name: 'get_user_info',
  title: 'Get user info',
  description:
    "The caller's identity, the selected workspace with their role in it, its plan tier and credit balance.",
  access: 'read',
  category: 'Account',
  input: toolInput({}),
  output: z.object({
    id: z.string().describe('User id.'),
    email: z.string().describe('Email address.'),
    name: z.string().describe('Display name.'),
    plan: z.string().describe("Plan tier of the selected workspace (its owner's plan)."),
    workspace: z
      .object({
        id: z.string().describe('Workspace id.'),
        name: z.string().describe('Workspace name.'),
        role: z.enum(['owner', 'editor']).describe("The caller's role in it."),
      })
      .describe('The selected workspace.'),
    credits: z
      .object({ balance: z.number().int().describe('Credits left in the workspace.') })
      .describe('Credit balance.'),
  }),
  async handler(_input, ctx) {
    const db = ctx.app.store.db
    const user = await findUserById(db, ctx.caller.userId)
    if (!user) throw notFound('User not found')
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      plan: ctx.workspace.plan,
      workspace: { id: ctx.workspace.id, name: ctx.workspace.name, role: ctx.workspace.role },
      credits: { balance: await currentBalance(db, ctx.workspace.id) },
    }
  },
})
