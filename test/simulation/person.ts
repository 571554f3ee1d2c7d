import type { Network } from '../../src/core/networks.js'
import { countCopies, countItemCopies } from './copies.js'
import {
  type SeedContext,
  type SimItem,
  type SimPost,
  THREAD_NETWORKS,
  UNCHAINED_NETWORKS,
} from './seed-context.js'
import { FIRST_PROFILES, NEWER_PROFILES } from './world.js'

/**
 * The person (or the AI agent) using Herald while the workers send: they make posts, and they do what
 * people do with them, at any moment (after a crash, after a reply was refused, while a post is stuck):
 * publish now, reset a stuck post, fix a typo, change the thread, the first comment, the media, the status
 * (draft and back) or the slot, delete. Every answer must be a result or a clear 4xx.
 */

const MINUTE = 60_000
const DOCUMENTED_PRICE = (network: Network) => (network === 'twitter' ? 5 : 1)
/** Threads and first comments are on unless HERALD_SIMULATION_CHAINS=0. */
const CHAINS = process.env.HERALD_SIMULATION_CHAINS !== '0'
const OK_STATUSES = new Set([200, 400, 404, 409])
const WORDS = ['hello', 'news', 'today', 'update']
/** About the newer networks' share of the profiles Herald serves, of the posts the person makes. */
const NEWER_SHARE = NEWER_PROFILES.length / (NEWER_PROFILES.length + 7)
/** What get_post says of one profile's delivery (the fields the person reads). */
interface TargetView {
  status: string
  postId?: string
  error?: string
  items?: Array<{ status: string; content: string }>
}
interface PostView {
  status: string
  lastError: string
  targets: TargetView[]
}

export const schedule = (ctx: SeedContext, minutes: number) => {
  const at = new Date(ctx.world.clock.now() + minutes * MINUTE)
  return {
    scheduleDate: at.toISOString().slice(0, 10),
    scheduleTime: at.toISOString().slice(11, 16),
    timezone: 'UTC',
  }
}

const photo = (ctx: SeedContext, name: string) => `${ctx.world.media.url}/photo-${name}.jpg`

/** A new item copy for the post's `k`-th place (an edit takes a tag of its own). */
function newItem(ctx: SeedContext, post: Pick<SimPost, 'tag' | 'role'>, k: number, edit?: number): SimItem {
  const tag = post.tag.replace(/^s/, 'r').replace(/z$/, `i${k}${edit ? `e${edit}` : ''}q`)
  if (post.role === 'firstComment') return { tag, content: `First comment ${tag}` }
  const picture = ctx.chains.chance(0.2)
  return { tag, content: `Reply ${k + 2} ${tag}`, ...(picture ? { mediaUrls: [photo(ctx, tag)] } : {}) }
}

const asInput = (post: SimPost, items: SimItem[]) =>
  post.role === 'thread'
    ? {
        thread: items.map((i) => ({
          content: i.content,
          ...(i.mediaUrls ? { mediaUrls: i.mediaUrls } : {}),
        })),
      }
    : { firstComment: items[0]?.content ?? '' }

export interface CreateOptions {
  network?: Network
  now?: boolean
}

/**
 * The network of a new post the story left open. Only such a post draws: a story that names the network
 * (a burst, an outage) takes nothing from either stream, as before the newer networks joined.
 */
function drawNetwork(ctx: SeedContext): Network {
  const first = ctx.pick.pick(FIRST_PROFILES).network
  if (!ctx.newer.chance(NEWER_SHARE)) return first
  const newer = ctx.newer.pick(NEWER_PROFILES).network
  ctx.count(`create_post to ${newer}`)
  return newer
}

/** create_post for one profile: text, an image or a video as the network needs, maybe a thread or a comment. */
export async function createPost(
  ctx: SeedContext,
  options: CreateOptions = {},
): Promise<SimPost | undefined> {
  const { world, pick, chains } = ctx
  const network = options.network ?? drawNetwork(ctx)
  const tag = `s${ctx.seed}n${ctx.nextPost()}z`
  const content = `Simulated ${network} post ${tag} ${pick.pick(WORDS)}`
  const mediaUrls =
    network === 'youtube' || network === 'tiktok'
      ? [`${world.media.url}/clip.mp4`]
      : network === 'instagram' || network === 'pinterest' || pick.chance(0.25)
        ? [photo(ctx, tag)]
        : []
  const now = options.now ?? pick.chance(0.75)
  const role = THREAD_NETWORKS.has(network) ? ('thread' as const) : ('firstComment' as const)
  // About 40% of posts carry a thread (X, Bluesky, Threads) or a first comment (the others).
  const chained = chains.chance(0.4) && CHAINS && !UNCHAINED_NETWORKS.has(network)
  const shape = { tag, role }
  const items = chained
    ? Array.from({ length: role === 'thread' ? chains.int(2, 4) : 1 }, (_, k) => newItem(ctx, shape, k))
    : []
  const draft: SimPost = {
    id: '',
    tag,
    network,
    content,
    mediaUrls,
    price: DOCUMENTED_PRICE(network),
    charged: 0,
    deleted: false,
    resets: 0,
    confirmed: false,
    role,
    items,
    everItems: new Map(items.map((i) => [i.tag, i])),
    edits: 0,
  }
  const answer = await world.h.call('create_post', {
    content,
    targetAccounts: [{ platform: network, profileId: world.connections.get(network)!.profileId }],
    ...(mediaUrls.length ? { mediaUrls } : {}),
    // TikTok asks the poster who may watch, with no default: the creator alone, always offered.
    ...(network === 'tiktok' ? { tiktok: { privacyLevel: 'SELF_ONLY' } } : {}),
    ...(items.length ? asInput(draft, items) : {}),
    ...(now ? { publishImmediately: true } : schedule(ctx, pick.int(1, 90))),
  })
  ctx.count('create_post')
  if (answer.status !== 200) {
    // A clear refusal (a profile a lost token refresh left to reconnect, say) is an answer; a 5xx is not.
    if (!OK_STATUSES.has(answer.status))
      ctx.violations.push(
        `create_post for ${network} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      )
    ctx.note(`create_post ${network} ${tag} -> ${answer.status} ${answer.body?.error?.code}`)
    return undefined
  }
  draft.id = answer.body.postIds[0] as string
  draft.charged = Number(answer.body.credits?.charged ?? 0)
  ctx.posts.push(draft)
  ctx.note(
    `create_post ${network} ${tag}${items.length ? ` +${items.length} ${role}` : ''} ${now ? 'now' : 'scheduled'} -> ${draft.id}`,
  )
  if (items.length) ctx.count(role === 'thread' ? 'post with a thread' : 'post with a first comment')
  return draft
}

/** One tool call on a post of the seed, the kind drawn at random (or a new post when there is none). */
export async function toolCall(ctx: SeedContext): Promise<void> {
  const live = ctx.posts.filter((p) => !p.deleted)
  const post = live.length ? ctx.pick.pick(live) : undefined
  if (!post) {
    await createPost(ctx)
    return
  }
  const kind = ctx.pick.pick([
    'publish_post_now',
    'publish_post_now',
    'reset_stuck_post',
    'reset_stuck_post',
    'update_post',
    'update_post',
    'update_post',
    'reschedule_post',
    'delete_post',
    'multicall',
  ] as const)
  if (kind === 'multicall') return multicall(ctx, post)
  if (kind === 'update_post') return void (await update(ctx, post, await readPost(ctx, post)))
  await use(ctx, kind, post, {
    id: post.id,
    ...(kind === 'reschedule_post' ? schedule(ctx, ctx.pick.int(5, 120)) : {}),
  })
}

/**
 * The person opens their posts and tends the one that needs them most (stuck or failed first): reset it,
 * fix what they think went wrong (the copy, a refused reply, the media), then publish it again, take it
 * back to a draft, or delete it.
 */
export async function tend(ctx: SeedContext): Promise<void> {
  const open = ctx.posts.filter((p) => !p.deleted)
  const views = await Promise.all(open.map(async (post) => ({ post, view: await readPost(ctx, post) })))
  const known = views.filter((v): v is { post: SimPost; view: PostView } => v.view !== undefined)
  const needing = known.filter((v) => v.view.status === 'processing' || v.view.status === 'failed')
  const pool = needing.length ? needing : known
  if (!pool.length) return
  const { post, view } = ctx.pick.pick(pool)
  ctx.count('the person tends a post')
  ctx.note(`the person tends ${post.tag} (${view.status})`)
  if (view.status === 'processing') return tendStuck(ctx, post, view)
  if (view.status === 'failed') return tendFailed(ctx, post, view)
  if (view.status === 'published') {
    // Published: an edit (a live post is a 409, items may still be added) or a delete (a 409).
    if (ctx.pick.chance(0.5)) await update(ctx, post, view)
    else await use(ctx, 'delete_post', post, { id: post.id })
    return
  }
  // Scheduled or draft: an edit, a status change, or a delete.
  const choice = ctx.pick.pick(['edit', 'edit', 'delete', 'publish'] as const)
  if (choice === 'edit') await update(ctx, post, view)
  else if (choice === 'delete') await use(ctx, 'delete_post', post, { id: post.id })
  else await use(ctx, 'publish_post_now', post, { id: post.id })
}

/**
 * A post still processing: the person resets it (a 409 when its lease is live). Herald looks the post up
 * again where it can; where a lookup could not tell ("Herald cannot tell whether ..."), the reset asks for
 * the person's word, so this person checks the profile and says what they see: there (with its id), or not
 * there, and then they publish it again. Some try an edit or publish_post_now while it waits for its lookup.
 */
async function tendStuck(ctx: SeedContext, post: SimPost, view: PostView) {
  const undecided = view.targets.some((t) => /cannot tell/.test(t.error ?? ''))
  const word = undecided ? whatThePersonSees(ctx, post, view) : {}
  const reset = await use(ctx, 'reset_stuck_post', post, { id: post.id, ...word })
  if (reset?.status !== 200) return
  if (word.onNetwork === true) {
    post.confirmed = true
    ctx.note(`the person sees it on ${post.network} and says so: ${word.postId}`)
    return
  }
  if (ctx.pick.chance(0.6)) await update(ctx, post, (await readPost(ctx, post)) ?? view)
  // Most retry as the reset's message says; some leave it as it is.
  if (ctx.pick.chance(0.75)) await use(ctx, 'publish_post_now', post, { id: post.id })
  else ctx.note(`the person leaves ${post.tag} as the reset left it`)
}

/**
 * What the person sees on the profile of a post Herald could not tell about: the post itself when its
 * target has no remote id yet, else the first of its items not live, found by its tag. One person in five
 * does not check and resets without a word (Herald then asks for it: a 409).
 */
function whatThePersonSees(
  ctx: SeedContext,
  post: SimPost,
  view: PostView,
): { onNetwork?: boolean; postId?: string } {
  if (ctx.pick.chance(0.2)) return {}
  const target = view.targets.find((t) => /cannot tell/.test(t.error ?? ''))
  if (!target) return {}
  let seen: string | undefined
  if (!target.postId) seen = countCopies(ctx.world.h, post.network, post.tag)[0]?.ids[0]
  else {
    const index = (target.items ?? []).findIndex((item) => item.status !== 'published')
    const item = index >= 0 ? post.items[index] : undefined
    if (item) seen = countItemCopies(ctx.world.h, post.network, item.tag)[0]?.id
  }
  return seen ? { onNetwork: true, postId: seen } : { onNetwork: false }
}

/**
 * A failed post (a reply refused, a send that gave up, a reset): fix what was refused (or anything) and
 * retry, take it back to a draft (then delete it or queue it again), or delete it.
 */
async function tendFailed(ctx: SeedContext, post: SimPost, view: PostView) {
  const refusedItem = view.targets.some((t) => t.items?.some((i) => i.status === 'failed'))
  const choice = ctx.pick.pick(['fix', 'fix', 'fix', 'draft', 'delete', 'edit'] as const)
  if (choice === 'delete') {
    await use(ctx, 'delete_post', post, { id: post.id })
    return
  }
  if (choice === 'draft') {
    const drafted = await update(ctx, post, view, { kind: 'draft' })
    if (drafted && ctx.pick.chance(0.5)) await use(ctx, 'delete_post', post, { id: post.id })
    else if (drafted) await update(ctx, post, view, { kind: 'requeue', minutes: ctx.pick.int(0, 30) })
    return
  }
  await update(ctx, post, view, choice === 'fix' && refusedItem ? 'items' : undefined)
  if (ctx.pick.chance(0.85)) await use(ctx, 'publish_post_now', post, { id: post.id })
}

type Edit =
  | { kind: 'copy'; content: string }
  | { kind: 'items'; items: SimItem[] }
  | { kind: 'media'; mediaUrls: string[] }
  | { kind: 'draft' }
  | { kind: 'requeue'; minutes: number }
  | { kind: 'slot'; minutes: number }

/**
 * update_post with the edit given, or one drawn for the post (of its items when `wanted` says so);
 * true when Herald took it.
 */
async function update(
  ctx: SeedContext,
  post: SimPost,
  view: PostView | undefined,
  wanted?: Edit | 'items',
): Promise<boolean> {
  const edit = typeof wanted === 'object' ? wanted : chooseEdit(ctx, post, view, wanted === 'items')
  const answer = await use(
    ctx,
    'update_post',
    post,
    { id: post.id, ...editInput(ctx, post, edit) },
    edit.kind,
  )
  if (answer?.status !== 200) return false
  if (edit.kind === 'copy') post.content = edit.content
  if (edit.kind === 'media') post.mediaUrls = edit.mediaUrls
  if (edit.kind === 'items') {
    post.items = edit.items
    for (const item of edit.items) post.everItems.set(item.tag, item)
  }
  return true
}

function chooseEdit(ctx: SeedContext, post: SimPost, view: PostView | undefined, fixItems: boolean): Edit {
  const { pick } = ctx
  const kind = fixItems
    ? 'items'
    : pick.pick(['copy', 'copy', 'items', 'items', 'media', 'draft', 'requeue', 'slot'] as const)
  switch (kind) {
    case 'copy':
      return { kind, content: `${post.content} fix${++post.edits}` }
    case 'items':
      // A network that takes neither threads nor comments has no items to edit: the copy changes instead.
      if (UNCHAINED_NETWORKS.has(post.network))
        return { kind: 'copy', content: `${post.content} fix${++post.edits}` }
      return { kind, items: nextItems(ctx, post, view) }
    case 'media': {
      // Instagram and Pinterest need a picture, YouTube and TikTok their video: those change the copy instead.
      if (['instagram', 'pinterest', 'youtube', 'tiktok'].includes(post.network))
        return { kind: 'copy', content: `${post.content} fix${++post.edits}` }
      const name = `${post.tag}-m${++post.edits}`
      return { kind, mediaUrls: post.mediaUrls.length && pick.chance(0.5) ? [] : [photo(ctx, name)] }
    }
    case 'draft':
      return { kind }
    case 'requeue':
      return { kind, minutes: pick.int(0, 30) }
    case 'slot':
      return { kind, minutes: pick.int(5, 120) }
  }
}

/**
 * The items after an edit: the ones get_post shows live are sent unchanged (Herald refuses a change to
 * them), each of the others is kept, rewritten (a tag of its own) or dropped; sometimes none at all, or
 * one more.
 */
function nextItems(ctx: SeedContext, post: SimPost, view: PostView | undefined): SimItem[] {
  const { pick } = ctx
  const liveCount = view?.targets[0]?.items?.filter((i) => i.status === 'published').length ?? 0
  if (pick.chance(0.3)) return post.items.slice(0, liveCount)
  const edit = ++post.edits
  const kept = post.items.map((item, k) =>
    k < liveCount || pick.chance(0.3) ? item : newItem(ctx, post, k, edit),
  )
  const room = post.role === 'thread' ? 4 : 1
  if (kept.length < room && pick.chance(0.4)) kept.push(newItem(ctx, post, kept.length, edit))
  return kept
}

function editInput(ctx: SeedContext, post: SimPost, edit: Edit): Record<string, unknown> {
  switch (edit.kind) {
    case 'copy':
      return { content: edit.content }
    case 'items':
      return asInput(post, edit.items)
    case 'media':
      return { mediaUrls: edit.mediaUrls }
    case 'draft':
      return { status: 'draft' }
    case 'requeue':
      return { status: 'scheduled', ...schedule(ctx, edit.minutes) }
    case 'slot':
      return schedule(ctx, edit.minutes)
  }
}

async function multicall(ctx: SeedContext, post: SimPost) {
  const { pick, world } = ctx
  const tools = [
    pick.pick(['reset_stuck_post', 'update_post', 'reschedule_post'] as const),
    pick.pick(['publish_post_now', 'delete_post', 'reset_stuck_post'] as const),
  ]
  const edit: Edit = { kind: 'copy', content: `${post.content} fix${++post.edits}` }
  const args = (tool: string) =>
    tool === 'update_post'
      ? { id: post.id, ...editInput(ctx, post, edit) }
      : tool === 'reschedule_post'
        ? { id: post.id, ...schedule(ctx, pick.int(5, 120)) }
        : { id: post.id }
  const before = stillToGo(ctx, post)
  const answer = await world.h.call('multicall', {
    calls: tools.map((tool) => ({ tool, arguments: args(tool) })),
    stopOnError: false,
  })
  ctx.count('multicall')
  ctx.note(`multicall ${tools.join('+')} ${post.tag} -> ${answer.status}`)
  if (answer.status !== 200) {
    ctx.violations.push(`multicall answered ${answer.status}: ${JSON.stringify(answer.body)}`)
    return
  }
  for (const [i, result] of (answer.body.results as any[]).entries()) {
    if (result.ok) {
      if (tools[i] === 'update_post') post.content = edit.content
      account(ctx, tools[i]!, post, result.result, before)
    } else if (result.error?.code === 'internal')
      ctx.violations.push(`${tools[i]} in a multicall failed: ${JSON.stringify(result.error)}`)
  }
}

/** One tool call on a post: a 5xx is a violation, a charge is checked against the documented prices. */
async function use(
  ctx: SeedContext,
  tool: string,
  post: SimPost,
  args: Record<string, unknown>,
  detail?: string,
) {
  const before = stillToGo(ctx, post)
  const answer = await ctx.world.h.call(tool, args)
  ctx.count(tool)
  if (detail) ctx.count(`${tool} (${detail})`)
  ctx.note(
    `${tool}${detail ? ` ${detail}` : ''} ${post.tag} -> ${answer.status}${answer.status === 200 ? '' : ` ${answer.body?.error?.code}`}`,
  )
  if (!OK_STATUSES.has(answer.status)) {
    ctx.violations.push(`${tool} answered ${answer.status}: ${JSON.stringify(answer.body)}`)
    return undefined
  }
  if (answer.status === 200) account(ctx, tool, post, answer.body, before)
  return answer
}

/** get_post as the person reads it (undefined once the post is gone). */
async function readPost(ctx: SeedContext, post: SimPost): Promise<PostView | undefined> {
  const answer = await ctx.world.h.call('get_post', { id: post.id })
  if (answer.status === 200) return answer.body as PostView
  if (!OK_STATUSES.has(answer.status))
    ctx.violations.push(`get_post answered ${answer.status}: ${JSON.stringify(answer.body)}`)
  return undefined
}

/** How many of the post and its items the network does not hold yet (what a resend may charge for). */
function stillToGo(ctx: SeedContext, post: SimPost) {
  const h = ctx.world.h
  return (
    (countCopies(h, post.network, post.tag).length > 0 ? 0 : 1) +
    post.items.filter((item) => countItemCopies(h, post.network, item.tag).length === 0).length
  )
}

function account(ctx: SeedContext, tool: string, post: SimPost, body: any, toGoBefore: number) {
  if (tool === 'delete_post') post.deleted = true
  if (tool === 'reset_stuck_post') post.resets += 1
  // reschedule_post states its price in its message only ("... (1 credits for re-sending ...)").
  const stated = /\((\d+) credits for re-sending/.exec(String(body?.message ?? ''))
  const charged = Number(body?.credits?.charged ?? stated?.[1] ?? 0)
  if (charged <= 0) return
  post.charged += charged
  // A resend pays for what is still to go out: the post unless it is live, and each item not live yet.
  if (charged % post.price !== 0 || charged > post.price * (1 + post.items.length))
    ctx.violations.push(
      `${tool} of ${post.tag} charged ${charged}, the documented price is ${post.price} a post or item`,
    )
  if (charged > post.price * toGoBefore)
    ctx.violations.push(
      `${tool} of ${post.tag} charged ${charged} for a resend while ${post.network} held all but ${toGoBefore} of it`,
    )
}
