import { type ExpressionBuilder, sql } from 'kysely'
import type { Db } from '../db.js'
import type { Database } from '../schema.js'
import type { PostRow } from './posts.js'

/**
 * Posts narrowed by what a manager filters on (status, approval, network, profile, slot dates, words in the
 * copy, compose), and the same posts read as composes: the posts one create_post made together, newest
 * compose first. Every post has a compose id (migration 027 gave each older post its own).
 */

export interface PostFilter {
  status?: string | undefined
  approval?: string | undefined
  network?: string | undefined
  profileId?: string | undefined
  /** Slot dates, YYYY-MM-DD, both ends included (compared with the slot's own date, in its zone). */
  from?: string | undefined
  to?: string | undefined
  /** Words in the copy, matched as written, without regard to case. */
  search?: string | undefined
  composeId?: string | undefined
}

/** `%` and `_` in the search are the manager's words, not wildcards. */
const likePattern = (words: string) => `%${words.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

function matching(db: Db, workspaceId: string, filter: PostFilter) {
  let query = db.selectFrom('posts').where('posts.workspace_id', '=', workspaceId)
  if (filter.status) query = query.where('posts.status', '=', filter.status)
  if (filter.approval) query = query.where('posts.approval', '=', filter.approval as never)
  if (filter.from) query = query.where('posts.schedule_date', '>=', filter.from)
  if (filter.to) query = query.where('posts.schedule_date', '<=', filter.to)
  if (filter.search)
    query = query.where(sql<boolean>`lower(posts.content) LIKE ${likePattern(filter.search)} ESCAPE '\\'`)
  if (filter.composeId) query = query.where('posts.compose_id', '=', filter.composeId)
  if (filter.network || filter.profileId) query = query.where((eb) => eb.exists(targetOf(eb, filter)))
  return query
}

function targetOf(eb: ExpressionBuilder<Database, 'posts'>, filter: PostFilter) {
  let target = eb.selectFrom('targets').select('targets.id').whereRef('targets.post_id', '=', 'posts.id')
  if (filter.network) target = target.where('targets.platform', '=', filter.network)
  if (filter.profileId) target = target.where('targets.profile_id', '=', filter.profileId)
  return target
}

/** A page of the matching posts, newest first. */
export function pageMatchingPosts(
  db: Db,
  workspaceId: string,
  filter: PostFilter,
  page: { limit: number; offset: number },
): Promise<PostRow[]> {
  return matching(db, workspaceId, filter)
    .selectAll('posts')
    .orderBy('posts.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
}

/** How many posts match, and in how many composes. */
export async function countMatching(
  db: Db,
  workspaceId: string,
  filter: PostFilter,
): Promise<{ posts: number; composes: number }> {
  const row = await matching(db, workspaceId, filter)
    .select([sql<number>`count(*)`.as('posts'), sql<number>`count(DISTINCT posts.compose_id)`.as('composes')])
    .executeTakeFirst()
  return { posts: Number(row?.posts ?? 0), composes: Number(row?.composes ?? 0) }
}

/**
 * A page of composes with a matching post, newest first (a compose is named by its first post's id, so by
 * when it was made), each with every one of its posts, matching or not: the compose is shown whole, in
 * the order its posts were made. The groups are read walking the (workspace_id, compose_id) index
 * backwards, stopping once the page is full, rather than grouping the whole workspace.
 */
export async function pageMatchingComposes(
  db: Db,
  workspaceId: string,
  filter: PostFilter,
  page: { limit: number; offset: number },
): Promise<PostRow[]> {
  const groups = await matching(db, workspaceId, filter)
    .select('posts.compose_id as compose')
    .groupBy('posts.compose_id')
    .orderBy('posts.compose_id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
  const composes = groups.map((g) => g.compose).filter((c): c is string => c !== null && c !== undefined)
  if (composes.length === 0) return []
  const posts = await db
    .selectFrom('posts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('compose_id', 'in', composes)
    .execute()
  const rank = new Map(composes.map((compose, i) => [compose, i]))
  const key = (post: PostRow) => rank.get(post.compose_id ?? post.id) ?? 0
  return posts.sort((a, b) => key(a) - key(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/**
 * The matching posts newest first, `limit` at a time, each page starting below the last id of the one before
 * (`before`): an export walks the whole workspace this way in pages of equal cost, where an offset would read
 * every earlier page again.
 */
export function pageMatchingPostsBefore(
  db: Db,
  workspaceId: string,
  filter: PostFilter,
  page: { before: string | undefined; limit: number },
): Promise<PostRow[]> {
  let query = matching(db, workspaceId, filter).selectAll('posts')
  if (page.before) query = query.where('posts.id', '<', page.before)
  return query.orderBy('posts.id', 'desc').limit(page.limit).execute()
}
