import type { Caller } from '../../modules/accounts/caller.js'
import type { Actor } from '../../modules/publishing/approvals.js'
import type { Db } from '../../platform/db/db.js'
import { findMembership, findUserByEmail, firstOwner } from '../../platform/db/statements/accounts.js'
import { AppError } from '../../platform/errors.js'

/**
 * Who a command acts as: the member named by --email, or the workspace's longest-standing owner (the CLI is
 * the operator's tool, run where the database is).
 */
export async function actAs(
  db: Db,
  v: { workspace: string; email?: string | undefined },
): Promise<{ actor: Actor; caller: Caller }> {
  const workspaceId = v.workspace
  let userId: string | undefined
  if (v.email) {
    userId = (await findUserByEmail(db, v.email))?.id
    if (!userId) throw new AppError('not_found', `No Herald user has the e-mail ${v.email}`)
  } else userId = (await firstOwner(db, workspaceId))?.user_id
  const membership = userId ? await findMembership(db, workspaceId, userId) : undefined
  if (!userId || !membership)
    throw new AppError('not_found', `Workspace ${workspaceId} not found${v.email ? ` for ${v.email}` : ''}`)
  return {
    actor: { userId, workspaceId, role: membership.role },
    caller: { userId, apiKeyId: 'cli', defaultWorkspaceId: workspaceId },
  }
}
