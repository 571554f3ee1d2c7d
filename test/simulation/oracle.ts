import { RESET_MESSAGE } from '../../src/core/post-status.js'
import { readItems } from '../../src/core/thread-items.js'
import type { TargetRow } from '../../src/platform/db/statements/posts.js'
import { type Copy, countCopies, countItemCopies } from './copies.js'
import type { PublishingLedger } from './ledger.js'
import type { SimPost } from './seed-context.js'
import type { World } from './world.js'

/**
 * The oracle's verdict on a seed's end state, from what each network holds (never from Herald's rows alone):
 * - at most one copy of every post and of every thread item or first comment it ever had;
 * - no second publish: a publishing call for a post or item the network already held (the ledger);
 * - `published`: exactly one copy under the recorded remote id and URL, every item once, answering the
 *   right parent under the id Herald recorded, and no item the person's edits replaced;
 * - `failed`: no copy, unless the failed target recorded that very copy as its live post (a chain that
 *   stopped at a refused item); a person's reset is no excuse;
 * - a deleted post or a draft: no copy;
 * - stuck: says why, at most one copy; nothing else still pending after the drain;
 * - credits: what the ledger took is what the tools said they charged, at the documented price.
 */
export async function checkEndState(
  world: World,
  posts: readonly SimPost[],
  ledger: PublishingLedger,
  violations: string[],
): Promise<number> {
  for (const resend of ledger.resends) violations.push(`a second publish: ${resend}`)
  let deliveries = 0
  for (const post of posts) {
    const where = `${post.network} post ${post.tag} (${post.id})`
    const copies = countCopies(world.h, post.network, post.tag)
    if (copies.length > 1) violations.push(`${where}: the network holds ${copies.length} copies`)
    for (const item of post.everItems.values()) {
      const held = countItemCopies(world.h, post.network, item.tag).length
      if (held > 1) violations.push(`${where}: the network holds ${held} copies of its item ${item.tag}`)
      if (held > 0 && !post.items.some((i) => i.tag === item.tag))
        violations.push(`${where}: the network holds item ${item.tag}, which an edit replaced`)
    }
    deliveries += await checkTargets(world, post, copies, violations)
    await checkCredits(world, post, violations)
  }
  return deliveries
}

async function checkTargets(world: World, post: SimPost, copies: Copy[], violations: string[]) {
  const { db } = world.h.app.store
  const where = `${post.network} post ${post.tag} (${post.id})`
  const row = await db
    .selectFrom('posts')
    .select(['status', 'last_error'])
    .where('id', '=', post.id)
    .executeTakeFirst()
  if (!row) {
    if (!post.deleted) violations.push(`${where}: the post is gone though nobody deleted it`)
    else if (copies.length > 0) violations.push(`${where}: deleted in Herald, but the network holds it`)
    return 1
  }
  const targets = await db.selectFrom('targets').selectAll().where('post_id', '=', post.id).execute()
  const now = world.clock.now()
  for (const target of targets) {
    const stuck = target.status === 'pending' && target.lease_owner !== null
    if (target.status === 'published') checkPublished(world, post, target, copies, violations)
    else if (target.status === 'failed') {
      const recorded = target.remote_id !== null && copies[0]?.ids.includes(target.remote_id)
      if (copies.length > (recorded ? 1 : 0))
        violations.push(
          `${where}: failed (${target.error === RESET_MESSAGE ? 'by a reset' : target.error}), but the network holds ${copies.length}${target.remote_id ? ` (recorded ${target.remote_id})` : ''}`,
        )
    } else if (stuck) {
      if (!target.error && !row.last_error) violations.push(`${where}: stuck without saying why`)
      if ((target.lease_expires_at ?? 0) >= now && target.stuck_at === null)
        violations.push(`${where}: still leased by ${target.lease_owner} after every worker stopped`)
    } else if (target.run_at === null && row.status === 'draft') {
      if (copies.length > 0) violations.push(`${where}: a draft, but the network holds it`)
    } else if (target.run_at === null)
      violations.push(`${where}: pending with no due time (post ${row.status})`)
    else
      violations.push(
        `${where}: still pending after the drain (due ${new Date(target.run_at).toISOString()}, ${target.error ?? ''})`,
      )
  }
  return targets.length
}

function checkPublished(
  world: World,
  post: SimPost,
  target: TargetRow,
  copies: Copy[],
  violations: string[],
) {
  const where = `${post.network} post ${post.tag} (${post.id})`
  if (copies.length !== 1)
    violations.push(`${where}: published, but the network holds ${copies.length} copies`)
  const copy = copies[0]
  if (copy && !copy.ids.includes(target.remote_id ?? ''))
    violations.push(`${where}: published as ${target.remote_id}, the network's copy is ${copy.ids.join('|')}`)
  // Instagram and Threads give the profile's page when the permalink read fails (documented fallback),
  // here the simulator's page of it.
  const profilePage = /\/sandbox\/(meta\/web\/instagram\/[^/]+\/|threads\/web\/@[^/]+)$/.test(
    target.url ?? '',
  )
  // A post the person confirmed on a reset has the address they gave: none here.
  const givenByPerson = post.confirmed && !target.url
  if (copy && !profilePage && !givenByPerson && !copy.urlKeys.some((key) => target.url?.includes(key)))
    violations.push(
      `${where}: published with url ${target.url}, which names none of ${copy.urlKeys.join('|')}`,
    )
  // Every item is there once, answering the right parent, under the remote id Herald recorded.
  const recorded = readItems(target.items)
  if (recorded.length !== post.items.length)
    violations.push(`${where}: published with ${recorded.length} items, ${post.items.length} were asked for`)
  const held = post.items.map((item) => countItemCopies(world.h, post.network, item.tag))
  for (const [k, copiesOfItem] of held.entries()) {
    const item = `${post.role} item ${k + 1}`
    const parent = post.role === 'thread' && k > 0 ? held[k - 1]?.[0]?.id : target.remote_id
    if (copiesOfItem.length !== 1) {
      violations.push(
        `${where}: published, but the network holds ${copiesOfItem.length} copies of its ${item}`,
      )
      continue
    }
    if (copiesOfItem[0]!.parent !== parent)
      violations.push(`${where}: its ${item} answers ${copiesOfItem[0]!.parent}, not ${parent}`)
    if (recorded[k]?.status !== 'published' || recorded[k]?.remoteId !== copiesOfItem[0]!.id)
      violations.push(
        `${where}: its ${item} is recorded ${recorded[k]?.status} as ${recorded[k]?.remoteId}, the network's is ${copiesOfItem[0]!.id}`,
      )
  }
}

/**
 * Credits: the ledger took what the tools said they charged, at documented prices. update_post says nothing
 * of what it charges (profiles or items added, a failed post queued again), so its entries are held to the
 * price alone.
 */
async function checkCredits(world: World, post: SimPost, violations: string[]) {
  const where = `${post.network} post ${post.tag} (${post.id})`
  const ledger = await world.h.app.store.db
    .selectFrom('credit_ledger')
    .select(['delta', 'reason'])
    .where('reference', '=', post.id)
    .execute()
  const silent = ledger.filter((entry) => entry.reason === 'update_post_targets')
  for (const entry of silent)
    if (-Number(entry.delta) % post.price !== 0)
      violations.push(
        `${where}: update_post took ${-Number(entry.delta)} credits, not a multiple of ${post.price}`,
      )
  const taken = -ledger
    .filter((entry) => entry.reason !== 'update_post_targets')
    .reduce((sum, entry) => sum + Number(entry.delta), 0)
  if (taken !== post.charged)
    violations.push(`${where}: the ledger took ${taken} credits, the tools said ${post.charged}`)
  if (post.charged % post.price !== 0 || post.charged === 0)
    violations.push(`${where}: charged ${post.charged}, not a multiple of its price ${post.price}`)
}
