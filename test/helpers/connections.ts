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

/**
 * Gives a connected profile a kept picture, as connecting does when the network names one (a square in
 * `colour` with a lighter band, stored as Herald's hosted media): the screenshots show pictures beside
 * initials.
 */
export async function givePicture(
  h: Pick<Harness, 'app' | 'workspaceId'>,
  connectionId: string,
  colour: string,
) {
  const { default: sharp } = await import('sharp')
  const band = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="160"><rect width="160" height="160" fill="${colour}"/><circle cx="80" cy="62" r="30" fill="#fff" fill-opacity="0.85"/><rect x="30" y="104" width="100" height="56" rx="28" fill="#fff" fill-opacity="0.85"/></svg>`,
  )
  const bytes = await sharp(band).jpeg().toBuffer()
  const staged = await h.app.media.stage({
    bytes,
    contentType: 'image/jpeg',
    name: 'avatar.jpg',
    width: 160,
    height: 160,
    workspaceId: h.workspaceId,
  })
  await staged.commit(h.app.store.db)
  await h.app.store.db
    .updateTable('connections')
    .set({ avatar_media_id: staged.record.id })
    .where('id', '=', connectionId)
    .execute()
}
