import { newId } from '../../ids.js'
import type { Db } from '../db.js'

/** The CSV rows of these keys already imported into the workspace, with the posts each made. */
export async function importedRows(
  db: Db,
  workspaceId: string,
  keys: string[],
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>()
  const unique = [...new Set(keys)]
  // In chunks: a 1,000-row file is within every backend's parameter limit, but a chunk keeps each IN small.
  for (let start = 0; start < unique.length; start += 500) {
    const rows = await db
      .selectFrom('import_rows')
      .select(['row_key', 'post_ids'])
      .where('workspace_id', '=', workspaceId)
      .where('row_key', 'in', unique.slice(start, start + 500))
      .execute()
    for (const row of rows) found.set(row.row_key, JSON.parse(row.post_ids) as string[])
  }
  return found
}

/**
 * Remembers an imported row for good (create_post's idempotency key covers only 24 hours), in the
 * transaction that creates its posts. Answers the posts of an earlier import when the row was recorded
 * already (two imports of one file, a day apart or at once), and records nothing then.
 */
export async function recordImportedRow(
  tx: Db,
  row: { workspaceId: string; key: string; postIds: string[] },
  now: number,
): Promise<string[] | undefined> {
  const inserted = await tx
    .insertInto('import_rows')
    .values({
      workspace_id: row.workspaceId,
      row_key: row.key,
      post_ids: JSON.stringify(row.postIds),
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'row_key']).doNothing())
    .returning('row_key')
    .executeTakeFirst()
  if (inserted) return undefined
  const earlier = await importedRows(tx, row.workspaceId, [row.key])
  return earlier.get(row.key) ?? []
}

/** How long an uploaded file waits between its check and its import in the dashboard. */
export const UPLOAD_LIFETIME_MS = 24 * 60 * 60 * 1000

/** Keeps an uploaded CSV for its check and import; uploads older than a day are removed on the way. */
export async function saveUpload(
  db: Db,
  input: { workspaceId: string; userId: string; fileName: string; body: string },
  now: number,
): Promise<string> {
  await db
    .deleteFrom('csv_uploads')
    .where('created_at', '<', now - UPLOAD_LIFETIME_MS)
    .execute()
  const id = newId(now)
  await db
    .insertInto('csv_uploads')
    .values({
      id,
      workspace_id: input.workspaceId,
      user_id: input.userId,
      file_name: input.fileName,
      body: input.body,
      created_at: now,
    })
    .execute()
  return id
}

/** An upload of this person in this workspace, or undefined (another person's upload does not exist for them). */
export function findUpload(db: Db, id: string, workspaceId: string, userId: string) {
  return db
    .selectFrom('csv_uploads')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
}
