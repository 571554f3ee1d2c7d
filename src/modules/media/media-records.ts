import type { Db } from '../../platform/db/db.js'
import type { MediaTable } from '../../platform/db/schema.js'

/** Rows of the `media` table: every file Herald hosts (generated images, converted files for URL networks). */
export interface MediaRecord {
  id: string
  workspaceId: string | null
  sourceUrl: string | null
  sha256: string
  contentType: string
  size: number
  width: number | null
  height: number | null
  durationMs: number | null
  storageKey: string
  name: string
  createdAt: number
}

const toRow = (record: MediaRecord): MediaTable => ({
  id: record.id,
  workspace_id: record.workspaceId,
  source_url: record.sourceUrl,
  sha256: record.sha256,
  content_type: record.contentType,
  size: record.size,
  width: record.width,
  height: record.height,
  duration_ms: record.durationMs,
  storage_key: record.storageKey,
  name: record.name,
  created_at: record.createdAt,
  last_used_at: record.createdAt,
})

const fromRow = (row: MediaTable): MediaRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  sourceUrl: row.source_url,
  sha256: row.sha256,
  contentType: row.content_type,
  size: Number(row.size),
  width: row.width === null ? null : Number(row.width),
  height: row.height === null ? null : Number(row.height),
  durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  storageKey: row.storage_key,
  name: row.name,
  createdAt: Number(row.created_at),
})

export async function insertMedia(db: Db, record: MediaRecord): Promise<void> {
  await db.insertInto('media').values(toRow(record)).execute()
}

export async function findMedia(db: Db, id: string): Promise<MediaRecord | undefined> {
  const row = await db.selectFrom('media').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? fromRow(row) : undefined
}

/** A file already hosted with exactly these bytes (converted copies of one source are stored once). */
export async function findMediaByContent(
  db: Db,
  sha256: string,
  contentType: string,
): Promise<MediaRecord | undefined> {
  const row = await db
    .selectFrom('media')
    .selectAll()
    .where('sha256', '=', sha256)
    .where('content_type', '=', contentType)
    .orderBy('created_at')
    .executeTakeFirst()
  return row ? fromRow(row) : undefined
}

/**
 * Marks a hosted file used now, and by `targetId` when given (a copy stays while that target is pending).
 * The link is written first, so a sweep never sees the file unused in between. False when the row is gone
 * (swept meanwhile): the caller hosts the file anew.
 */
export async function recordMediaUse(
  db: Db,
  id: string,
  now: number,
  targetId?: string | undefined,
): Promise<boolean> {
  if (targetId) await linkMediaUse(db, id, targetId, now)
  const updated = await db
    .updateTable('media')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .executeTakeFirst()
  if (Number(updated.numUpdatedRows) === 1) return true
  await db.deleteFrom('media_uses').where('media_id', '=', id).execute()
  return false
}

/** Records that `targetId` uses hosted file `id` (see {@link recordMediaUse}). */
export async function linkMediaUse(db: Db, id: string, targetId: string, now: number): Promise<void> {
  await db
    .insertInto('media_uses')
    .values({ media_id: id, target_id: targetId, used_at: now })
    .onConflict((oc) => oc.columns(['media_id', 'target_id']).doUpdateSet({ used_at: now }))
    .execute()
}
