import type { Clock } from '../../platform/clock.js'
import type { Store } from '../../platform/db/db.js'
import { deleteWorkspaceRows } from '../../platform/db/statements/workspace-deletion.js'
import { AppError } from '../../platform/errors.js'
import type { MediaStorage } from '../media/storage.js'

/**
 * An owner deletes a workspace with its data (the dashboard's Workspace page, `herald workspaces delete`),
 * confirming by typing its name. The rows go in one transaction; the hosted files after it commits (a file
 * left behind by a failure is bytes no row names). The connections' tokens are deleted with their rows:
 * Herald calls no network to revoke them, so the answer lists them for the person to remove Herald's access
 * in each network's settings as well.
 */

export interface WorkspaceDeletion {
  workspaceId: string
  posts: number
  /** The profiles whose tokens were deleted; Herald's access is removed at the network in its settings. */
  connections: Array<{ platform: string; username: string }>
  mediaFiles: number
}

export async function deleteWorkspace(
  deps: { store: Store; clock: Clock; storage: MediaStorage },
  input: { workspaceId: string; confirmName: string },
): Promise<WorkspaceDeletion> {
  const db = deps.store.db
  const workspace = await db
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
  const result = await deleteWorkspaceRows(deps.store, workspace.id, deps.clock.now())
  if (!result.deleted)
    throw result.reason === 'sending'
      ? new AppError(
          'conflict',
          `${result.sending} of its posts are being sent right now; nothing was deleted. Try again in a minute.`,
        )
      : new AppError('not_found', `No workspace ${input.workspaceId}`)
  for (const key of result.mediaKeys) await deps.storage.delete(key)
  return {
    workspaceId: workspace.id,
    posts: result.posts,
    connections: result.connections,
    mediaFiles: result.mediaKeys.length,
  }
}
