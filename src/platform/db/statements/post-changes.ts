import { type RawBuilder, sql } from 'kysely'
import { confirmItemInDoubt, unsent } from '../../../core/reset-rules.js'
import { readItems } from '../../../core/thread-items.js'
import type { Db } from '../db.js'
import type { TargetRow } from './posts.js'

/**
 * The writes of the tools that change a post, each run inside the caller's write transaction on rows it
 * has locked (`lockPostForChange`): the tools decide, these statements carry the decision out.
 */

export async function deleteTargets(tx: Db, ids: string[]) {
  if (ids.length === 0) return
  await tx.deleteFrom('targets').where('id', 'in', ids).execute()
}

export async function insertTarget(tx: Db, row: TargetRow) {
  await tx.insertInto('targets').values(row).execute()
}

/**
 * A kept target's new copy and queue position; `retry` gives a failed target another go. `settles` marks a
 * target whose post is live and has nothing left to send published: it is on the network, and nothing
 * re-arms it.
 */
export async function rewriteTarget(
  tx: Db,
  target: TargetRow,
  change: {
    content: string
    mediaUrls: string[]
    /** The alt texts of the images it sends, by URL. */
    altTexts: Record<string, string>
    youtube: unknown
    googlebusiness: unknown
    tiktok?: unknown
    pinterest: unknown
    /** A Mastodon target's options (null elsewhere). */
    mastodon?: unknown
    /** The target's thread items and first comment (the live and in-doubt ones kept as they are). */
    items: readonly unknown[]
    runAt: number | null
    retry: boolean
    settles?: boolean
    now: number
  },
) {
  const status = change.settles
    ? { status: 'published', error: null, run_at: null, unknown_outcome_at: null }
    : change.retry
      ? // A re-armed failed target starts a fresh attempt budget.
        { status: 'pending', error: null, attempts: 0, run_at: change.runAt }
      : { run_at: target.status === 'pending' ? change.runAt : null }
  await tx
    .updateTable('targets')
    .set({
      content: change.content,
      media_urls: JSON.stringify(change.mediaUrls),
      media_alt_texts: Object.keys(change.altTexts).length > 0 ? JSON.stringify(change.altTexts) : null,
      youtube: change.youtube ? JSON.stringify(change.youtube) : null,
      googlebusiness: change.googlebusiness ? JSON.stringify(change.googlebusiness) : null,
      tiktok: change.tiktok ? JSON.stringify(change.tiktok) : null,
      pinterest: change.pinterest ? JSON.stringify(change.pinterest) : null,
      mastodon: change.mastodon ? JSON.stringify(change.mastodon) : null,
      items: change.items.length > 0 ? JSON.stringify(change.items) : null,
      ...status,
      updated_at: change.now,
    })
    .where('id', '=', target.id)
    .where('lease_owner', 'is', null)
    .execute()
}

/**
 * Releases stuck targets as failed with `reason`, for publish_post_now to retry. `keepsMark`: the send may
 * have reached the network and nobody has said otherwise, so the targets stay marked for a lookup
 * (`unknown_outcome_at`, from when the attempt began) before any re-send. Without it the person has said the
 * post is not there: the mark goes, and so does an item's in doubt (`releasedAt`: the next attempt sends it
 * without looking again; its in-flight mark stays, so what it sent is still frozen for edits).
 */
export async function releaseStuckTargets(
  tx: Db,
  ids: string[],
  reason: string,
  now: number,
  keepsMark: boolean,
) {
  if (ids.length === 0) return
  if (!keepsMark) await releaseItemsInDoubt(tx, ids, now)
  await tx
    .updateTable('targets')
    .set({
      status: 'failed',
      error: reason,
      lease_owner: null,
      lease_expires_at: null,
      run_at: null,
      stuck_at: null,
      stuck_reason: null,
      lookups: 0,
      lookup_failed_at: null,
      unknown_outcome_at: keepsMark ? sql`coalesce(attempt_started_at, ${now})` : null,
      updated_at: now,
    })
    .where('id', 'in', ids)
    .execute()
}

/** Marks released the items in doubt of the targets among `ids`: a person said they are not on the network. */
async function releaseItemsInDoubt(tx: Db, ids: string[], now: number) {
  const targets = await tx
    .selectFrom('targets')
    .select(['id', 'items'])
    .where('id', 'in', ids)
    .where('items', 'is not', null)
    .execute()
  for (const target of targets) {
    const items = readItems(target.items)
    const inDoubt = items.filter((item) => item.startedAt !== undefined && item.status !== 'published')
    if (inDoubt.length === 0) continue
    for (const item of inDoubt) item.releasedAt = now
    await tx
      .updateTable('targets')
      .set({ items: JSON.stringify(items) })
      .where('id', '=', target.id)
      .execute()
  }
}

/**
 * Puts stuck targets back behind their lookup, as the sweep does with a lease that ran out: unleased, due
 * `delayMs` after `dueFrom` (the lease clock, where the claim compares due times), with a fresh lookup
 * window from now. The lookup sends nothing: found, the target is published; absent, it is sent again.
 */
export async function returnToLookup(
  tx: Db,
  ids: string[],
  change: { message: string; now: number; dueFrom: RawBuilder<number>; delayMs: number },
) {
  if (ids.length === 0) return
  await tx
    .updateTable('targets')
    .set({
      error: change.message,
      lease_owner: null,
      lease_expires_at: null,
      run_at: sql<number>`${change.dueFrom} + ${change.delayMs}`,
      stuck_at: null,
      stuck_reason: null,
      lookups: 0,
      lookup_failed_at: null,
      unknown_outcome_at: change.now,
      updated_at: change.now,
    })
    .where('id', 'in', ids)
    .execute()
}

/**
 * Records what a person saw on the network: the send in doubt is there, under `remoteId`. The post itself
 * (no remote id yet) or its item in doubt becomes live; with items left to send, the target goes back to the
 * worker, which sends only those (a live post is never published again); otherwise it is published.
 */
export async function confirmStuckTarget(
  tx: Db,
  target: TargetRow,
  seen: { remoteId: string; url?: string | undefined; now: number },
): Promise<'published' | 'pending'> {
  const { now } = seen
  const byItem = target.remote_id === null ? null : confirmItemInDoubt(target.items, seen)
  const items = byItem?.items ?? readItems(target.items)
  const remaining = byItem ? byItem.remaining : unsent(items)
  const status = remaining > 0 ? 'pending' : 'published'
  await tx
    .updateTable('targets')
    .set({
      status,
      ...(target.remote_id === null ? { remote_id: seen.remoteId, url: seen.url ?? '' } : {}),
      ...(byItem ? { items: JSON.stringify(items) } : {}),
      error: null,
      lease_owner: null,
      lease_expires_at: null,
      run_at: status === 'pending' ? now : null,
      stuck_at: null,
      stuck_reason: null,
      lookups: 0,
      lookup_failed_at: null,
      unknown_outcome_at: null,
      ...(status === 'pending' ? { attempts: 0 } : { published_at: now }),
      updated_at: now,
    })
    .where('id', '=', target.id)
    .execute()
  return status
}

/** The statuses of a post's targets as they stand in the caller's transaction. */
export async function targetStatuses(tx: Db, postId: string) {
  return tx.selectFrom('targets').select('status').where('post_id', '=', postId).execute()
}
