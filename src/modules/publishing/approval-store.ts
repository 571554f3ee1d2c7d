import type { Role } from '../../core/approval.js'
import type { Db } from '../../platform/db/db.js'

/** Whether posts by editors wait for an owner's approval in this workspace (read in the caller's transaction). */
export async function requiresApproval(db: Db, workspaceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('workspaces')
    .select('requires_approval')
    .where('id', '=', workspaceId)
    .executeTakeFirst()
  return Number(row?.requires_approval ?? 0) === 1
}

/**
 * Whether what this member sends out waits for an owner (the rule of `mustAskApproval`), read in the
 * caller's transaction: an owner never waits, so the setting is read only for an editor.
 */
export async function waitsForApproval(
  db: Db,
  member: { workspaceId: string; role: Role },
): Promise<boolean> {
  return member.role === 'editor' && (await requiresApproval(db, member.workspaceId))
}

export async function setRequiresApproval(db: Db, workspaceId: string, on: boolean) {
  await db
    .updateTable('workspaces')
    .set({ requires_approval: on ? 1 : 0 })
    .where('id', '=', workspaceId)
    .execute()
}

/** Posts waiting for an owner (the navigation's count); read from the approval index. */
export async function countByApproval(
  db: Db,
  workspaceId: string,
  status?: string,
): Promise<Record<string, number>> {
  let query = db
    .selectFrom('posts')
    .select(['approval', (eb) => eb.fn.countAll<number>().as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('approval', 'is not', null)
  if (status) query = query.where('status', '=', status)
  const rows = await query.groupBy('approval').execute()
  return Object.fromEntries(rows.map((r) => [r.approval as string, Number(r.n)]))
}

/**
 * Takes the one-off link surcharge of a create_post call for this post, in the caller's transaction: true
 * for the first post of the call to be paid for, false once another one has been. The insert is the
 * decision, so two approvals of posts of the same call at once pay it once on either backend.
 */
export async function claimSurcharge(
  tx: Db,
  input: { chargeGroup: string; workspaceId: string; postId: string },
  now: number,
): Promise<boolean> {
  const inserted = await tx
    .insertInto('paid_surcharges')
    .values({
      charge_group: input.chargeGroup,
      workspace_id: input.workspaceId,
      post_id: input.postId,
      paid_at: now,
    })
    .onConflict((oc) => oc.column('charge_group').doNothing())
    .returning('charge_group')
    .executeTakeFirst()
  return inserted !== undefined
}

/** Marks every target of a post paid and clears what it owed (it was just charged). */
export async function markPostPaid(tx: Db, postId: string) {
  await tx
    .updateTable('targets')
    .set({ paid: 1 })
    .where('post_id', '=', postId)
    .where('paid', '=', 0)
    .execute()
  await tx.updateTable('posts').set({ charge_group: null }).where('id', '=', postId).execute()
}

/** Targets added to a post that has not been paid for yet are paid with it (when it is approved). */
export async function markTargetsUnpaid(tx: Db, ids: string[]) {
  if (ids.length === 0) return
  await tx.updateTable('targets').set({ paid: 0 }).where('id', 'in', ids).execute()
}

/** Whether the one-off link surcharge of this create_post call was paid already (a read; the claim decides). */
export async function surchargePaid(db: Db, chargeGroup: string): Promise<boolean> {
  const row = await db
    .selectFrom('paid_surcharges')
    .select('charge_group')
    .where('charge_group', '=', chargeGroup)
    .executeTakeFirst()
  return row !== undefined
}
