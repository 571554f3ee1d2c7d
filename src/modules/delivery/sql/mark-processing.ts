import { sql } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled.js'
import type { Db } from '../../../platform/db/db.js'

/** SQLite: the claimed targets' posts (a JSON array of ids), each claimed `n` times, are being sent. */
export const markProcessing = compiledOnce(3, (db: Db, n, now, postIds) =>
  db
    .updateTable('posts')
    .set({ status: 'processing', attempts: sql`attempts + ${n}`, updated_at: now as number })
    .where('id', 'in', sql<string>`(SELECT value FROM json_each(${postIds}))`),
)
