import { sql } from 'kysely'
import { notFound } from '../errors.js'
import type { Db, Store } from './db.js'
import type { PostRow, TargetRow } from './statements/posts.js'

/**
 * Runs `unit` as one write transaction whose decisions hold until it commits.
 *
 * SQLite: `BEGIN IMMEDIATE` takes the database's write lock before the first read, so no other process can
 * write between what the unit reads and what it writes (a deferred BEGIN would read a snapshot and fail, or
 * worse, decide on it). Inside one process Kysely's SQLite driver already runs one connection at a time.
 * Postgres: a plain transaction; the unit locks the rows it decides on with {@link lockPostForChange}.
 */
export async function writeTransaction<T>(store: Store, unit: (tx: Db) => Promise<T>): Promise<T> {
  if (store.dialect === 'postgres') return store.db.transaction().execute(unit)
  return store.db.connection().execute(async (conn) => {
    await sql`BEGIN IMMEDIATE`.execute(conn)
    try {
      const result = await unit(conn)
      await sql`COMMIT`.execute(conn)
      return result
    } catch (error) {
      await sql`ROLLBACK`.execute(conn)
      throw error
    }
  })
}

export interface LockedPost {
  post: PostRow
  targets: TargetRow[]
}

/**
 * Reads a post and its targets inside a {@link writeTransaction}, locked until it commits. On Postgres the
 * targets are locked first and the post second, the order the worker's claim takes them (targets, then
 * the post's status), so a tool and a claim wait for each other instead of deadlocking; a claim that
 * committed first is seen here with its lease. A post of another workspace is `not_found`.
 */
export async function lockPostForChange(
  tx: Db,
  store: Store,
  workspaceId: string,
  postId: string,
): Promise<LockedPost> {
  const postgres = store.dialect === 'postgres'
  const owned = await tx
    .selectFrom('posts')
    .select('id')
    .where('id', '=', postId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst()
  if (!owned) throw notFound(`Post ${postId} not found`)
  const lockTargets = () => {
    const query = tx.selectFrom('targets').selectAll().where('post_id', '=', postId).orderBy('position')
    return postgres ? query.forUpdate().execute() : query.execute()
  }
  let targets = await lockTargets()
  let postQuery = tx.selectFrom('posts').selectAll().where('id', '=', postId)
  if (postgres) postQuery = postQuery.forUpdate()
  const post = await postQuery.executeTakeFirst()
  if (!post) throw notFound(`Post ${postId} not found`)
  // Under READ COMMITTED the first statement could not see targets another change inserted while this one
  // waited; every writer of a post's targets holds the post's lock, so a read after taking it is complete.
  if (postgres) targets = await lockTargets()
  return { post, targets }
}
