import type { MemberRole } from '../../../platform/db/statements/accounts.js'
import { MAX_CREDITS, required, UsageError, wholeNumber } from '../arguments.js'
import { type Command, storeCommand } from '../command.js'

const credits = (value: string | undefined, name = 'credits') =>
  wholeNumber(value, name, { min: 0, max: MAX_CREDITS })

export const accountCommands: Command[] = [
  storeCommand({
    name: 'bootstrap',
    usage: [
      'bootstrap --email E --password P --workspace NAME [--name N] [--credits N] [--plan P] [--json]',
      'Create a person, their workspace and an API key for it.',
    ],
    opens: 'store',
    input: (v) => ({
      email: required(v, 'email'),
      password: required(v, 'password'),
      workspace: required(v, 'workspace'),
      name: v.name,
      credits: credits(v.credits),
      plan: v.plan,
    }),
    async run(app, input) {
      const result = await app.accounts.bootstrap(input)
      return {
        json: result,
        text: `Created user ${result.userId} and workspace ${result.workspaceId}.\nAPI key (shown once, keep it safe): ${result.apiKey}`,
      }
    },
  }),
  storeCommand({
    name: 'keys create',
    usage: ['keys create --email E [--workspace ID] [--name N] [--json]'],
    opens: 'store',
    input: (v) => ({ email: required(v, 'email'), workspaceId: v.workspace, name: v.name }),
    async run(app, input) {
      const result = await app.accounts.createKey(input)
      return { json: result, text: `API key ${result.id} (shown once): ${result.apiKey}` }
    },
  }),
  storeCommand({
    name: 'keys list',
    usage: ['keys list --email E [--json]'],
    opens: 'store',
    input: (v) => ({ email: required(v, 'email') }),
    async run(app, input) {
      const keys = await app.accounts.listKeys(input)
      const line = (k: (typeof keys)[number]) =>
        `${k.id}  ${k.prefix}…  ${k.name}  ${k.revoked ? 'revoked' : `last used ${k.lastUsedAt ?? 'never'}`}`
      return { json: keys, text: keys.map(line).join('\n') || 'No keys.' }
    },
  }),
  storeCommand({
    name: 'keys revoke',
    usage: ['keys revoke --id KEY_ID [--json]'],
    opens: 'store',
    input: (v) => ({ id: required(v, 'id') }),
    async run(app, input) {
      const result = await app.accounts.revokeKey(input)
      return { json: result, text: `Revoked API key ${result.id}.` }
    },
  }),
  storeCommand({
    name: 'workspaces create',
    usage: ['workspaces create --name NAME --owner E [--credits N] [--plan P] [--json]'],
    opens: 'store',
    input: (v) => ({
      name: required(v, 'name'),
      ownerEmail: v.owner ?? v.email ?? required(v, 'owner'),
      credits: credits(v.credits),
      plan: v.plan,
    }),
    async run(app, input) {
      const result = await app.accounts.createWorkspace(input)
      return { json: result, text: `Created workspace ${result.workspaceId}.` }
    },
  }),
  storeCommand({
    name: 'users create',
    usage: ['users create --email E --password P [--name N] [--json]'],
    opens: 'store',
    input: (v) => ({ email: required(v, 'email'), password: required(v, 'password'), name: v.name }),
    async run(app, input) {
      const result = await app.accounts.createUser(input)
      return { json: result, text: `Created user ${result.userId}.` }
    },
  }),
  storeCommand({
    name: 'members add',
    usage: ['members add --workspace ID --email E --role owner|editor [--json]'],
    opens: 'store',
    input: (v) => {
      const role = required(v, 'role')
      if (role !== 'owner' && role !== 'editor')
        throw new UsageError(`--role is owner or editor (got "${role}")`)
      return { workspaceId: required(v, 'workspace'), email: required(v, 'email'), role: role as MemberRole }
    },
    async run(app, input) {
      const result = await app.accounts.addMember(input)
      return {
        json: result,
        text: `${input.email} is now ${result.role} of workspace ${result.workspaceId}.`,
      }
    },
  }),
  storeCommand({
    name: 'credits add',
    usage: ['credits add --workspace ID --amount N [--json]'],
    opens: 'store',
    input: (v) => ({
      workspaceId: required(v, 'workspace'),
      amount: wholeNumber(required(v, 'amount'), 'amount', { min: 1, max: MAX_CREDITS }) as number,
    }),
    async run(app, input) {
      const result = await app.accounts.addCredits(input)
      return { json: result, text: `Workspace ${result.workspaceId} now has ${result.balance} credits.` }
    },
  }),
]
