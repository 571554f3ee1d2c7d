import type { Db } from '../../platform/db/db.js'
import { findPost, type PostRow, targetsOf } from '../../platform/db/statements/posts.js'
import { historyOf } from '../../platform/db/statements/target-history.js'
import { notFound } from '../../platform/errors.js'
import { presentHistory, presentPost } from './present.js'

/** The post, or `not_found` for a missing id and for another workspace's post alike. */
export async function requirePost(db: Db, workspaceId: string, id: string): Promise<PostRow> {
  const post = await findPost(db, workspaceId, id)
  if (!post) throw notFound(`Post ${id} not found`)
  return post
}

export async function postView(db: Db, workspaceId: string, id: string, now: number) {
  const post = await requirePost(db, workspaceId, id)
  return presentPost(post, await targetsOf(db, [id]), now)
}

/** The post as get_post answers it: with each profile's history. */
export async function postViewWithHistory(db: Db, workspaceId: string, id: string, now: number) {
  const post = await requirePost(db, workspaceId, id)
  const targets = await targetsOf(db, [id])
  const view = presentPost(post, targets, now)
  const history = presentHistory(
    await historyOf(
      db,
      targets.map((t) => t.id),
    ),
  )
  return {
    ...view,
    targets: view.targets.map((target, i) => ({
      ...target,
      history: history.get((targets[i] as (typeof targets)[number]).id) ?? [],
    })),
  }
}
