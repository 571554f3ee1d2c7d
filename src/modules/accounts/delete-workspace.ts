import type { NetworkAdapter } from '../../adapters/adapter.js'
import type { Clock } from '../../platform/clock.js'
import type { Vault } from '../../platform/crypto/vault.js'
import type { Store } from '../../platform/db/db.js'
import {
  deleteWorkspaceRows,
  workspaceBeforeDeletion,
} from '../../platform/db/statements/workspace-deletion.js'
import { AppError } from '../../platform/errors.js'
import type { Logger } from '../../platform/logger.js'
import type { MediaStorage } from '../media/storage.js'
import { type ConnectionRevocation, type REVOKE_TIMEOUT_MS, revokeConnections } from './revoke-access.js'

/**
 * An owner deletes a workspace with its data (the dashboard's Workspace page, `herald workspaces delete`),
 * confirming by typing its name. First Herald withdraws its access at each connection's network where the
 * network allows it (afterwards the tokens are gone and nothing could be withdrawn); a network that refuses
 * or fails stops nothing and is reported. Then the rows go in one transaction, and the hosted files after it
 * commits (a file left behind by a failure is bytes no row names).
 */

export interface WorkspaceDeletion {
  workspaceId: string
  posts: number
  /** Each connected profile and what became of Herald's access at its network. */
  connections: ConnectionRevocation[]
  mediaFiles: number
}

export interface DeleteWorkspaceDeps {
  store: Store
  clock: Clock
  storage: MediaStorage
  vault: Vault
  logger: Logger
  /** The network's adapter as it is now; undefined for a network this build does not reach. */
  adapterFor(network: string): Promise<NetworkAdapter | undefined>
  /** How long each network is given to confirm a revocation; default {@link REVOKE_TIMEOUT_MS}. */
  timeoutMs?: number
}

export async function deleteWorkspace(
  deps: DeleteWorkspaceDeps,
  input: { workspaceId: string; confirmName: string },
): Promise<WorkspaceDeletion> {
  const workspace = await confirmedWorkspace(deps.store, input)
  const before = await workspaceBeforeDeletion(deps.store.db, workspace.id, deps.clock.now())
  // Refused before any network is called: tokens revoked for a deletion that then does not happen would
  // leave the workspace with profiles that all need reconnecting.
  if (before.sending > 0) throw sendingRefusal(before.sending)
  const revocations = await revokeConnections(deps, before.connections)
  const result = await deleteWorkspaceRows(deps.store, workspace.id, deps.clock.now())
  if (!result.deleted)
    throw result.reason === 'sending'
      ? sendingRefusal(result.sending ?? 1)
      : new AppError('not_found', `No workspace ${input.workspaceId}`)
  for (const key of result.mediaKeys) await deps.storage.delete(key)
  return {
    workspaceId: workspace.id,
    posts: result.posts,
    connections: [...revocations, ...connectedMeanwhile(result.connections, revocations)],
    mediaFiles: result.mediaKeys.length,
  }
}

async function confirmedWorkspace(store: Store, input: { workspaceId: string; confirmName: string }) {
  const workspace = await store.db
    .selectFrom('workspaces')
    .select(['id', 'name'])
    .where('id', '=', input.workspaceId)
    .executeTakeFirst()
  if (!workspace) throw new AppError('not_found', `No workspace ${input.workspaceId}`)
  if (input.confirmName.trim() !== workspace.name)
    throw new AppError(
      'invalid_request',
      `Type the workspace's name, ${workspace.name}, to confirm; nothing was deleted.`,
    )
  return workspace
}

const sendingRefusal = (sending: number) =>
  new AppError(
    'conflict',
    `${sending} of its posts are being sent right now; nothing was deleted. Try again in a minute.`,
  )

/** Profiles connected while the revocations ran: deleted with the rest, their access not withdrawn. */
function connectedMeanwhile(
  deleted: ReadonlyArray<{ id: string; platform: string; username: string }>,
  revoked: readonly ConnectionRevocation[],
): ConnectionRevocation[] {
  const seen = new Set(revoked.map((r) => r.connectionId))
  return deleted
    .filter((c) => !seen.has(c.id))
    .map((c) => ({
      connectionId: c.id,
      platform: c.platform,
      username: c.username,
      outcome: 'failed',
      reason: 'Connected while the workspace was being deleted; remove Herald in the network settings.',
    }))
}
