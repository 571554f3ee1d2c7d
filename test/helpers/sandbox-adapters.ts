import { randomBytes } from 'node:crypto'
import type {
  Credentials,
  LookupAnswer,
  LookupRequest,
  Profile,
  PublishRequest,
  PublishResult,
} from '../../src/adapters/adapter.js'
import type { Network } from '../../src/core/networks.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import type { Harness } from './harness.js'

/** A profile connected to a sandbox-mode harness, with what its adapter is called with. */
export interface SandboxProfile {
  network: Network
  connectionId: string
  profile: Profile
  credentials: Credentials
}

/**
 * Connects `username` on `network` through the whole sandbox connect flow (consent page, callback, profile
 * lookup), and reads back the profile and sealed credentials the worker would hand the adapter.
 */
export async function connectSandboxProfile(
  h: Harness,
  network: Network,
  username: string,
): Promise<SandboxProfile> {
  const connected = await sandboxConnect(h.app, { workspaceId: h.workspaceId, network, username })
  const row = await h.app.store.db
    .selectFrom('connections')
    .selectAll()
    .where('id', '=', connected.connectionId)
    .executeTakeFirstOrThrow()
  return {
    network,
    connectionId: row.id,
    profile: {
      profileId: row.profile_id,
      username: row.username,
      name: row.name,
      isOrganization: row.is_organization === 1,
    },
    credentials: h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials),
  }
}

/** The harness's own adapter for the profile's network publishing `content` (and media) as a new target. */
export function publishAs(
  h: Harness,
  who: SandboxProfile,
  content: string,
  mediaUrls: string[] = [],
  extra: Partial<PublishRequest> = {},
): Promise<PublishResult> {
  const adapter = h.app.adapters[who.network]
  if (!adapter) throw new Error(`no ${who.network} adapter`)
  return adapter.publish({
    targetId: `tgt_${randomBytes(8).toString('hex')}`,
    profile: who.profile,
    credentials: who.credentials,
    content,
    mediaUrls,
    signal: AbortSignal.timeout(60_000),
    saveProgress: async () => {},
    ...extra,
  })
}

/** The harness's own adapter for the profile's network, asked whether an attempt went out. */
export function lookUpAs(
  h: Harness,
  who: SandboxProfile,
  request: Omit<LookupRequest, 'profile' | 'credentials' | 'signal'>,
): Promise<LookupAnswer> {
  const adapter = h.app.adapters[who.network]
  if (!adapter?.findPublished) throw new Error(`no ${who.network} lookup`)
  return adapter.findPublished({
    ...request,
    profile: who.profile,
    credentials: who.credentials,
    signal: AbortSignal.timeout(60_000),
  })
}
