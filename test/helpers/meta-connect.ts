import { createHash, randomBytes } from 'node:crypto'
import type { GrantProfile } from '../../src/adapters/adapter.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { upsertConnection } from '../../src/platform/db/statements/connections.js'
import type { Harness } from './harness.js'

/**
 * Facebook Login against the Meta simulator mounted in a sandbox-mode harness (the dialog posted as a
 * browser would, the code exchanged by the real adapter), then every profile of the grant stored as a
 * connection, as the choose-profiles page does for the ticked ones. Returns the grant's profiles.
 */
export async function connectMetaGrant(h: Harness, username: string): Promise<GrantProfile[]> {
  const oauth = h.app.adapters.facebook!.oauth!
  const codeVerifier = randomBytes(32).toString('base64url')
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url')
  const redirectUri = `${h.baseUrl}/connect/facebook/callback`
  const authorize = oauth.authorizeUrl({ state: 'test', codeChallenge, redirectUri })
  const form = new URLSearchParams(new URL(authorize).searchParams)
  form.set('username', username)
  form.set('decision', 'authorize')
  for (const scope of oauth.scopes) form.append('granted_scope', scope)
  const consent = await fetch(authorize.split('?')[0]!, { method: 'POST', body: form, redirect: 'manual' })
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!
  const { credentials } = await oauth.exchangeCode({ code, codeVerifier, redirectUri })
  const profiles = await oauth.listProfiles!(credentials)
  for (const grant of profiles)
    await upsertConnection(
      h.app.store.db,
      {
        workspaceId: h.workspaceId,
        platform: grant.network,
        profileId: grant.profile.profileId,
        username: grant.profile.username,
        name: grant.profile.name,
        isOrganization: grant.profile.isOrganization,
        avatarUrl: null,
        sealCredentials: (id) => h.app.vault.sealJson(connectionCredentials(id), grant.credentials),
        scopes: [...oauth.scopes],
        tokenExpiresAt: grant.credentials.expiresAt ?? null,
      },
      Date.now(),
    )
  return profiles
}
