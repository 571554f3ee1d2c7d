import { sql } from 'kysely'
import type { Db } from '../../../platform/db/db.js'

/** Postgres: locks the post's targets, by position (the order every writer takes them in). */
export async function lockTargetsOfPost(db: Db, postId: string) {
  await sql`SELECT id FROM targets WHERE post_id = ${postId} ORDER BY position FOR UPDATE`.execute(db)
}
