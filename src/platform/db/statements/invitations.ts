import { randomBytes } from 'node:crypto'
import type { Db } from '../db.js'
import { addMember, findMembership, type MemberRole } from './accounts.js'

/** Open invitations to workspaces: a person joins one only by accepting. */

export interface Invitation {
  id: string
  workspaceId: string
  workspaceName: string
  role: MemberRole
  invitedByEmail: string
}

/** Invites `email` (lowercased) into the workspace; a second invitation to the same e-mail changes nothing. */
export async function invite(
  db: Db,
  input: { workspaceId: string; email: string; role: MemberRole; invitedBy: string },
  now: number,
): Promise<void> {
  await db
    .insertInto('invitations')
    .values({
      id: randomBytes(16).toString('hex'),
      workspace_id: input.workspaceId,
      email: input.email.trim().toLowerCase(),
      role: input.role,
      invited_by: input.invitedBy,
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'email']).doNothing())
    .execute()
}

/** The invitations waiting for this e-mail, oldest first. */
export async function invitationsFor(db: Db, email: string): Promise<Invitation[]> {
  const rows = await db
    .selectFrom('invitations as i')
    .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .select(['i.id', 'i.workspace_id', 'w.name', 'i.role', 'u.email'])
    .where('i.email', '=', email.toLowerCase())
    .orderBy('i.created_at')
    .orderBy('i.id')
    .execute()
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    workspaceName: r.name,
    role: r.role,
    invitedByEmail: r.email ?? '',
  }))
}

/** How many invitations wait for this e-mail (the dashboard's notice). */
export async function countInvitationsFor(db: Db, email: string): Promise<number> {
  const row = await db
    .selectFrom('invitations')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** The e-mails invited into a workspace and not yet answered (the owner's view). */
export async function invitedTo(
  db: Db,
  workspaceId: string,
): Promise<Array<{ email: string; role: string }>> {
  return db
    .selectFrom('invitations')
    .select(['email', 'role'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .execute()
}

/**
 * Answers one of the person's own invitations: accepting makes them a member (an existing membership
 * keeps its role); either way the invitation is gone. Returns the workspace id, or undefined when no such
 * invitation waits for this person.
 */
export async function answerInvitation(
  db: Db,
  input: { id: string; user: { id: string; email: string }; accept: boolean },
  now: number,
): Promise<string | undefined> {
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .selectFrom('invitations')
      .select(['workspace_id', 'role'])
      .where('id', '=', input.id)
      .where('email', '=', input.user.email.toLowerCase())
      .executeTakeFirst()
    if (!row) return undefined
    const deleted = await tx.deleteFrom('invitations').where('id', '=', input.id).executeTakeFirst()
    if (Number(deleted.numDeletedRows) !== 1) return undefined
    if (input.accept && !(await findMembership(tx, row.workspace_id, input.user.id)))
      await addMember(tx, row.workspace_id, input.user.id, row.role, now)
    return row.workspace_id
  })
}
