import { z } from 'zod'
import type { Credentials } from '../../adapters/adapter.js'
import {
  assessConnection,
  EXPIRY_WARNING_DAYS,
  type HealthEntry,
  healthMessage,
} from '../../modules/connections/health.js'
import { networkSchema } from '../../modules/publishing/schemas.js'
import { connectionCredentials, VaultError, type VaultRefusal } from '../../platform/crypto/vault.js'
import { listConnections } from '../../platform/db/statements/connections.js'
import { defineTool, toolInput } from './tool.js'

export const accountHealthEntrySchema = z.object({
  platform: networkSchema,
  profileId: z.string().describe('Profile id.'),
  username: z.string().describe('Handle.'),
  needsReconnect: z
    .boolean()
    .describe(
      'True when the authorisation is lost (refresh refused, token revoked) and the owner must reconnect.',
    ),
  expired: z
    .boolean()
    .describe(
      'True when the connection can no longer be used: its token has expired and cannot be refreshed.',
    ),
  daysLeft: z
    .number()
    .int()
    .describe(
      `Whole days until the connection stops working (rounded down); 0 once expired or when it needs reconnecting. Listed when under ${EXPIRY_WARNING_DAYS}.`,
    ),
  reason: z.string().describe('What is wrong and what to do.'),
})

export const getAccountHealth = defineTool({
  name: 'get_account_health',
  title: 'Get account health',
  description: `Find connections that need reconnecting, have expired, or expire within ${EXPIRY_WARNING_DAYS} days. Access tokens that Herald refreshes on its own (X, YouTube, Bluesky) are fine; a connection without a refresh token expires with its access token, and a refresh token with a known expiry counts. A post queued onto a dead connection fails at publish time, not at scheduling time.`,
  access: 'read',
  category: 'Channels',
  input: toolInput({}),
  output: z.object({
    healthy: z.boolean().describe('True when every connection is fine (also when there are none).'),
    message: z.string().describe('A one-sentence summary.'),
    connections: z
      .array(accountHealthEntrySchema)
      .describe('Account health entries for the connections that are not fine.'),
  }),
  async handler(_input, ctx) {
    const { app } = ctx
    const rows = await listConnections(app.store.db, ctx.workspace.id)
    const now = app.clock.now()
    const entries: HealthEntry[] = []
    for (const row of rows) {
      let credentials: Credentials | undefined
      let refusal: VaultRefusal | undefined
      try {
        credentials = app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
      } catch (error) {
        if (error instanceof VaultError) refusal = error.reason
      }
      const entry = assessConnection(
        {
          platform: row.platform,
          profileId: row.profile_id,
          username: row.username,
          status: row.status,
          lastError: row.last_error,
          tokenExpiresAt: row.token_expires_at === null ? null : Number(row.token_expires_at),
          credentials,
          ...(refusal ? { refusal } : {}),
        },
        now,
      )
      if (entry) entries.push(entry)
    }
    return {
      healthy: entries.length === 0,
      message: healthMessage(rows.length, entries),
      connections: entries.map((entry) => ({
        ...entry,
        platform: entry.platform as z.infer<typeof networkSchema>,
      })),
    }
  },
})
