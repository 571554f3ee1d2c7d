import { sql } from 'kysely'
import type { Db } from '../../../platform/db/db.js'

/** Postgres: locks the post's row (after its targets: the order every writer takes them in). */
export async function lockPost(db: Db, postId: string) {
  await sql`SELECT id FROM posts WHERE id = ${postId} FOR UPDATE`.execute(db)
}
