import { z } from 'zod'
import { networks } from '../../core/networks.js'
import { listConnections } from '../../platform/db/statements/connections.js'
import { defineTool, toolInput } from './tool.js'

export const connectedAccountSchema = z.object({
  platform: z.enum(networks).describe('Network value.'),
  username: z.string().describe('Handle on the network.'),
  name: z.string().describe('Display name on the network.'),
  profileId: z.string().describe('Network-side profile id: the value for targetAccounts[].profileId.'),
  isOrganization: z.boolean().describe('True for a company page, organization or channel.'),
})

export const getConnectedAccounts = defineTool({
  name: 'get_connected_accounts',
  title: 'Get connected accounts',
  description:
    'List the profiles connected in the workspace that have a live authorisation. Call it before create_post so a post reaches the intended profile.',
  access: 'read',
  category: 'Channels',
  input: toolInput({}),
  output: z.array(connectedAccountSchema).describe('Live connected profiles.'),
  async handler(_input, ctx) {
    const rows = await listConnections(ctx.app.store.db, ctx.workspace.id)
    return rows
      .filter((row) => row.status === 'active')
      .map((row) => ({
        platform: row.platform as (typeof networks)[number],
        username: row.username,
        name: row.name,
        profileId: row.profile_id,
        isOrganization: row.is_organization === 1,
      }))
  },
})
