import { compiledOnce } from '../../../platform/db/compiled.js'
import type { Db } from '../../../platform/db/db.js'

/** The post's row. */
export const postById = compiledOnce(1, (db: Db, id: string) =>
  db.selectFrom('posts').selectAll().where('id', '=', id),
)
