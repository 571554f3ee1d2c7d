import type { Db } from '../../../platform/db/db.js'
import type { TargetRow } from '../../../platform/db/statements/posts.js'

/** The post's targets, by position. */
export function targetsOfPost(db: Db, postId: string): Promise<TargetRow[]> {
  return db.selectFrom('targets').selectAll().where('post_id', '=', postId).orderBy('position').execute()
}
