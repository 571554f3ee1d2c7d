import { sql } from 'kysely'
import type { Db, Store } from '../store/db.js'

/**
 * How a claimed target ends an attempt. Every statement requires `lease_owner = <worker>`: a worker that
 * lost its lease (it was too slow, and the target was reset) can no longer write the outcome.
 */
export type Outcome =
  | { kind: 'published'; remoteId: string; url: string; uploadError?: string | undefined }
  | { kind: 'failed'; error: string }
  | { kind: 'retry'; error: string; runAt: number }
  /** The network may or may not have the post: keep the lease, expire it, and let a person decide. */
  | { kind: 'unknown'; error: string }

/** Records an attempt's outcome and re-derives the post's status. Returns false when the lease was lost. */
export async function settleTarget(
  store: Store,
  input: { targetId: string; postId: string; workerId: string; now: number; outcome: Outcome },
): Promise<boolean> {
  const { targetId, postId, workerId, now, outcome } = input
  return store.db.transaction().execute(async (tx) => {
    // Targets of one post settle one at a time, so the last one sees every sibling's outcome and the post
    // status is derived from all of them (under READ COMMITTED two racing settles would each miss the other).
    if (store.dialect === 'postgres')
      await sql`SELECT id FROM posts WHERE id = ${postId} FOR UPDATE`.execute(tx)
    const owned = tx.updateTable('targets').where('id', '=', targetId).where('lease_owner', '=', workerId)
    let result: { numUpdatedRows: bigint }
    switch (outcome.kind) {
      case 'published':
        result = await owned
          .set({
            status: 'published',
            remote_id: outcome.remoteId,
            url: outcome.url,
            upload_error: outcome.uploadError ?? null,
            error: null,
            published_at: now,
            run_at: null,
            lease_owner: null,
            lease_expires_at: null,
            updated_at: now,
          })
          .executeTakeFirst()
        break
      case 'failed':
        result = await owned
          .set({
            status: 'failed',
            error: outcome.error,
            run_at: null,
            lease_owner: null,
            lease_expires_at: null,
            updated_at: now,
          })
          .executeTakeFirst()
        break
      case 'retry':
        result = await owned
          .set({
            error: outcome.error,
            run_at: outcome.runAt,
            lease_owner: null,
            lease_expires_at: null,
            updated_at: now,
          })
          .executeTakeFirst()
        break
      case 'unknown':
        result = await owned
          .set({ error: outcome.error, stuck_at: now, lease_expires_at: now - 1, updated_at: now })
          .executeTakeFirst()
        break
    }
    if (Number(result.numUpdatedRows) === 0) return false
    await refreshPostStatus(tx, postId, now, outcome.kind === 'published' ? undefined : outcome.error)
    return true
  })
}

/**
 * A post follows its targets: published or failed once all settled, processing while any is still open.
 * Derived in the UPDATE itself, from the targets as they stand inside the caller's transaction.
 */
export async function refreshPostStatus(db: Db, postId: string, now: number, lastError?: string) {
  await sql`
    UPDATE posts SET
      status = CASE
        WHEN EXISTS (SELECT 1 FROM targets WHERE post_id = ${postId} AND status = 'pending') THEN status
        WHEN EXISTS (SELECT 1 FROM targets WHERE post_id = ${postId} AND status = 'published') THEN 'published'
        ELSE 'failed' END,
      published_at = (SELECT min(published_at) FROM targets WHERE post_id = ${postId}),
      last_error = ${lastError === undefined ? sql`last_error` : sql`${lastError}`},
      updated_at = ${now}
    WHERE id = ${postId}`.execute(db)
}

/** Pushes a throttled profile's other waiting targets past its rate-limit reset. */
export async function deferProfile(db: Db, connectionId: string, until: number, now: number) {
  await db
    .updateTable('targets')
    .set({ run_at: until, updated_at: now })
    .where('connection_id', '=', connectionId)
    .where('status', '=', 'pending')
    .where('lease_owner', 'is', null)
    .where('run_at', '<', until)
    .execute()
  await db
    .updateTable('connections')
    .set({ throttled_until: until, updated_at: now })
    .where('id', '=', connectionId)
    .execute()
}
