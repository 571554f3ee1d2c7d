import { type QueryResult, sql } from 'kysely'
import { compiledInsertRows, compiledOnce } from '../compiled.js'
import type { Db } from '../db.js'
import type { PostsTable, TargetsTable } from '../schema.js'
import { recordHistory, sameEntry } from './target-history.js'

export type PostRow = PostsTable
export type TargetRow = TargetsTable

/** One post of one workspace by id: a primary-key lookup, the workspace checked in the same statement. */
export function findPost(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('posts')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst()
}

export async function targetsOf(db: Db, postIds: string[]): Promise<TargetRow[]> {
  if (postIds.length === 0) return []
  let query = targetsOfPosts.get(postIds.length)
  if (!query) {
    query = compiledOnce(postIds.length, (db: Db, ...ids: string[]) =>
      db.selectFrom('targets').selectAll().where('post_id', 'in', ids).orderBy('post_id').orderBy('position'),
    )
    targetsOfPosts.set(postIds.length, query)
  }
  return (await query(db, ...postIds)).rows
}

/** The targets of n posts, compiled once per n (list_posts reads up to 100 posts' at a time). */
const targetsOfPosts = new Map<number, (db: Db, ...ids: string[]) => Promise<QueryResult<TargetRow>>>()

/** A page of posts, newest first (ids are time-ordered); served by (workspace_id[, status], id) indexes. */
export async function pagePosts(
  db: Db,
  workspaceId: string,
  status: string | undefined,
  limit: number,
  offset: number,
  approval?: string,
): Promise<PostRow[]> {
  const shape = `${status ? 'status' : ''}:${approval ? 'approval' : ''}`
  let query = pageQueries.get(shape)
  if (!query) {
    query = compiledOnce(5, (db: Db, workspaceId, status, approval, limit, offset) => {
      let page = db.selectFrom('posts').selectAll().where('workspace_id', '=', workspaceId)
      if (shape.startsWith('status')) page = page.where('status', '=', status)
      if (shape.endsWith('approval')) page = page.where('approval', '=', approval as never)
      return page
        .orderBy('id', 'desc')
        .limit(limit as unknown as number)
        .offset(offset as unknown as number)
    })
    pageQueries.set(shape, query)
  }
  return (await query(db, workspaceId, status ?? '', approval ?? '', limit, offset)).rows
}

const pageQueries = new Map<
  string,
  (
    db: Db,
    workspaceId: string,
    status: string,
    approval: string,
    limit: number,
    offset: number,
  ) => Promise<QueryResult<PostRow>>
>()

/**
 * Posts per status, from the trigger-maintained post_counts table (no scan of the posts), and per
 * approval state (only posts that have one, on their partial index), in one statement.
 */
export async function countPosts(
  db: Db,
  workspaceId: string,
): Promise<{ byStatus: Record<string, number>; byApproval: Record<string, number> }> {
  const { rows } = await workspaceCounts(db, workspaceId)
  const byStatus: Record<string, number> = {}
  const byApproval: Record<string, number> = {}
  for (const row of rows) (row.kind === 'status' ? byStatus : byApproval)[row.name] = Number(row.n)
  return { byStatus, byApproval }
}

const workspaceCounts = compiledOnce(1, (db: Db, workspaceId: string) => ({
  compile: () =>
    sql<{ kind: 'status' | 'approval'; name: string; n: number }>`
      SELECT 'status' AS kind, status AS name, sum(n) AS n FROM post_counts
       WHERE workspace_id = ${workspaceId} GROUP BY status
      UNION ALL
      SELECT 'approval' AS kind, approval AS name, count(*) AS n FROM posts
       WHERE workspace_id = ${workspaceId} AND approval IS NOT NULL GROUP BY approval`.compile(db),
}))

const insertPostRows = compiledInsertRows('posts', [
  'id',
  'workspace_id',
  'author_id',
  'content',
  'media_urls',
  'youtube',
  'googlebusiness',
  'pinterest',
  'variants',
  'status',
  'schedule_date',
  'schedule_time',
  'timezone',
  'due_at',
  'publish_immediately',
  'attempts',
  'last_error',
  'created_at',
  'updated_at',
  'published_at',
  'approval',
  'charge_group',
  'from_queue',
  'items',
  'compose_id',
  'media_alt_texts',
  'tiktok',
  'mastodon',
])

const insertTargetRows = compiledInsertRows('targets', [
  'id',
  'post_id',
  'workspace_id',
  'connection_id',
  'position',
  'platform',
  'profile_id',
  'username',
  'content',
  'media_urls',
  'youtube',
  'googlebusiness',
  'pinterest',
  'status',
  'run_at',
  'lease_owner',
  'lease_expires_at',
  'attempts',
  'remote_id',
  'url',
  'error',
  'upload_error',
  'stuck_at',
  'published_at',
  'created_at',
  'updated_at',
  'paid',
  'items',
  'media_alt_texts',
  'tiktok',
  'mastodon',
])

/**
 * Inserts posts and their targets, in two statements whatever their number; the approval and queue
 * columns default to "none" when not set, and a post without a compose is its own.
 */
export async function insertPosts(db: Db, posts: PostRow[], targets: TargetRow[]) {
  await insertPostRows(
    db,
    posts.map((post) => ({
      approval: null,
      charge_group: null,
      from_queue: 0,
      items: null,
      media_alt_texts: null,
      ...post,
      // A post written without one is its own compose.
      compose_id: post.compose_id ?? post.id,
    })),
  )
  await insertTargetRows(
    db,
    targets.map((target) => ({ paid: 1, items: null, media_alt_texts: null, ...target })),
  )
}

export async function updatePostRow(db: Db, id: string, patch: Partial<PostRow>) {
  await db.updateTable('posts').set(patch).where('id', '=', id).execute()
}

/**
 * Re-arms a post's unsent targets for `runAt` (null takes them out of the queue). Never touches published
 * ones. Failed ones it re-arms are retries: each one's history says so, with why (`retried`), in the
 * caller's transaction, whose lock on the post's targets keeps the ones read here the ones re-armed.
 */
export async function requeueTargets(
  db: Db,
  postId: string,
  runAt: number | null,
  now: number,
  options: { includeFailed: false } | { includeFailed: true; retried: 'now' | 'rescheduled' | 'approved' },
) {
  const statuses = options.includeFailed ? ['pending', 'failed'] : ['pending']
  if (options.includeFailed) {
    const failed = await db
      .selectFrom('targets')
      .select('id')
      .where('post_id', '=', postId)
      .where('status', '=', 'failed')
      .where('lease_owner', 'is', null)
      .execute()
    const entry = { kind: 'retried', result: options.retried } as const
    await recordHistory(
      db,
      now,
      sameEntry(
        failed.map((row) => row.id),
        entry,
      ),
    )
  }
  await db
    .updateTable('targets')
    .set({
      status: 'pending',
      run_at: runAt,
      error: sql<string | null>`case when status = 'failed' then null else error end`,
      // A re-armed failed target starts a fresh attempt budget (a paid re-send gets its retries).
      attempts: sql<number>`case when status = 'failed' then 0 else attempts end`,
      updated_at: now,
    })
    .where('post_id', '=', postId)
    .where('status', 'in', statuses)
    .where('lease_owner', 'is', null)
    .execute()
}

export async function deletePostRow(db: Db, id: string) {
  await db.deleteFrom('targets').where('post_id', '=', id).execute()
  await db.deleteFrom('posts').where('id', '=', id).execute()
}
