import { type ExpressionBuilder, sql } from 'kysely'
import type { Db } from '../../platform/db/db.js'
import type { Database, MediaTable } from '../../platform/db/schema.js'
import type { Logger } from '../../platform/logger.js'
import type { MediaStorage } from './storage.js'

/**
 * Hosted media with a lifetime. A hosted file (a converted copy for a URL network, an upload, a generated
 * image) stays while a pending target needs it (linked in `media_uses`, or named in a pending target's
 * media URLs) or is the picture of a connected profile, then for the retention period after its last use,
 * then its row and stored object go.
 */

export interface RemovedMedia {
  id: string
  name: string
  size: number
}

export interface SweepResult {
  removed: RemovedMedia[]
  bytes: number
}

export interface SweepDeps {
  db: Db
  storage: MediaStorage
  /** Epoch ms. */
  now: number
  retentionMs: number
  logger?: Logger
  /** Rows read per round; default 200. */
  batch?: number
}

/** Removes every hosted file past its retention that no pending target needs. */
export async function sweepHostedMedia(deps: SweepDeps): Promise<SweepResult> {
  const { db, storage } = deps
  const cutoff = deps.now - deps.retentionMs
  const batch = deps.batch ?? 200
  const removed: RemovedMedia[] = []
  const skipped = new Set<string>()
  for (;;) {
    const rows = await expiredMedia(db, cutoff, batch, [...skipped])
    for (const row of rows) {
      // The conditions again, in the delete: a use or a link made since the read keeps the file.
      const deleted = await db
        .deleteFrom('media as m')
        .where('m.id', '=', row.id)
        .where(expired(cutoff))
        .executeTakeFirst()
      if (Number(deleted.numDeletedRows) !== 1) {
        skipped.add(row.id)
        continue
      }
      await db.deleteFrom('media_uses').where('media_id', '=', row.id).execute()
      try {
        await storage.delete(row.storage_key)
      } catch (error) {
        // The row is gone, so the URL answers 404 already; the object is logged for a manual clean-up.
        deps.logger?.error({ err: error, mediaId: row.id }, 'could not delete an expired media object')
      }
      removed.push({ id: row.id, name: row.name, size: Number(row.size) })
    }
    if (rows.length < batch) break
  }
  if (removed.length > 0)
    deps.logger?.info({ removed: removed.length, bytes: sumSizes(removed) }, 'expired hosted media removed')
  return { removed, bytes: sumSizes(removed) }
}

type MediaScope = ExpressionBuilder<Database & { m: MediaTable }, 'm'>

/** Past its retention, and needed by no pending (or recently settled) target. */
function expired(cutoff: number) {
  return ({ and, not, exists, selectFrom, eb }: MediaScope) =>
    and([
      eb('m.last_used_at', '<', cutoff),
      not(
        exists(
          selectFrom('media_uses as u')
            .innerJoin('targets as t', 't.id', 'u.target_id')
            .select('u.media_id')
            .whereRef('u.media_id', '=', 'm.id')
            .where((t) => t.or([t('t.status', '=', 'pending'), t('t.updated_at', '>=', cutoff)])),
        ),
      ),
      // A profile's picture stays while its connection does.
      not(
        exists(
          selectFrom('connections as c')
            .select('c.id')
            .whereRef('c.avatar_media_id', '=', 'm.id')
            .where('c.status', '!=', 'removed'),
        ),
      ),
      // An upload or generated image named by a post still waiting to go out stays.
      not(
        exists(
          selectFrom('targets as p')
            .select('p.id')
            .where('p.status', '=', 'pending')
            .where('p.media_urls', 'like', sql<string>`'%/media/' || ${sql.ref('m.id')} || '/%'`),
        ),
      ),
    ])
}

function expiredMedia(db: Db, cutoff: number, limit: number, skip: string[]) {
  let query = db
    .selectFrom('media as m')
    .select(['m.id', 'm.name', 'm.size', 'm.storage_key'])
    .where(expired(cutoff))
    .orderBy('m.last_used_at')
    .limit(limit)
  if (skip.length > 0) query = query.where('m.id', 'not in', skip)
  return query.execute()
}

/** Bytes and count of hosted files (the `/metrics` gauges). */
export async function hostedMediaUsage(db: Db): Promise<{ bytes: number; count: number }> {
  const row = await db
    .selectFrom('media')
    .select(({ fn }) => [
      fn.coalesce(fn.sum<number>('size'), sql<number>`0`).as('bytes'),
      fn.countAll<number>().as('count'),
    ])
    .executeTakeFirstOrThrow()
  return { bytes: Number(row.bytes), count: Number(row.count) }
}

const sumSizes = (removed: RemovedMedia[]) => removed.reduce((sum, media) => sum + media.size, 0)
