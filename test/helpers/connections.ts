import type { Network } from '../../src/core/networks.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { upsertConnection } from '../../src/platform/db/statements/connections.js'
import type { Harness } from './harness.js'

/** Connects a profile directly in the store (what the connect flow does), with throwaway sealed tokens. */
export async function connectProfile(
  h: Pick<Harness, 'app' | 'workspaceId'>,
  platform: Network,
  profileId: string,
  username: string,
  options: {
    workspaceId?: string
    status?: 'active' | 'needs_reconnect'
    tokenExpiresAt?: number | null
    isOrganization?: boolean
  } = {},
) {
  const db = h.app.store.db
  const id = await upsertConnection(
    db,
    {
      workspaceId: options.workspaceId ?? h.workspaceId,
      platform,
      profileId,
      username,
      name: `${username} (${platform})`,
      isOrganization: options.isOrganization ?? false,
      sealCredentials: (id) =>
        h.app.vault.sealJson(connectionCredentials(id), {
          accessToken: `access-${platform}-${profileId}`,
          refreshToken: `refresh-${platform}-${profileId}`,
        }),
      tokenExpiresAt: options.tokenExpiresAt ?? null,
    },
    Date.now(),
  )
  if (options.status === 'needs_reconnect') {
    await db
      .updateTable('connections')
      .set({ status: 'needs_reconnect', last_error: 'token revoked' })
      .where('id', '=', id)
      .execute()
  }
  return id
}
