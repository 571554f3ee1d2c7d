import { LINK_SURCHARGE, unpaidPrice } from '../../core/network-rules.js'
import { holdsLink } from '../../core/thread-items.js'
import type { Db } from '../../platform/db/db.js'
import type { PostRow, TargetRow } from '../../platform/db/statements/posts.js'
import { claimSurcharge, markPostPaid as markStoredPostPaid } from './approval-store.js'

/**
 * What a post still owes for its creation when it enters the publishing queue, decided in the caller's
 * transaction: the network price of each target not paid yet (a post that waited for approval was created
 * without a charge), plus the one-off link surcharge of the create_post call it came from, taken by the
 * first post of that call to be paid for. Zero for a post paid when it was created. The caller charges it
 * with whatever else the change costs and then marks the post paid ({@link markPostPaid}).
 */
export async function owedOnQueueing(
  tx: Db,
  post: Pick<PostRow, 'id' | 'workspace_id' | 'charge_group'>,
  targets: Pick<TargetRow, 'platform' | 'paid' | 'content' | 'items'>[],
  now: number,
): Promise<number> {
  let owed = unpaidPrice(targets)
  if (
    post.charge_group &&
    targets.some(holdsLink) &&
    (await claimSurcharge(
      tx,
      { chargeGroup: post.charge_group, workspaceId: post.workspace_id, postId: post.id },
      now,
    ))
  )
    owed += LINK_SURCHARGE
  return owed
}

/**
 * Marks a post paid after the caller charged what it owed: its targets paid, its call's surcharge no longer
 * its concern. Writes nothing for a post that owed nothing (every post paid when it was created).
 */
export async function markPostPaid(
  tx: Db,
  post: Pick<PostRow, 'id' | 'charge_group'>,
  targets: Pick<TargetRow, 'paid'>[],
): Promise<void> {
  if (!post.charge_group && targets.every((t) => t.paid !== 0)) return
  await markStoredPostPaid(tx, post.id)
}
