import { z } from 'zod'
import { altTextsFor, readAltTexts, storedAltTexts } from '../../core/alt-text.js'
import { isPending, WAITING_MESSAGE } from '../../core/approval.js'
import type { GoogleBusinessInput } from '../../core/googlebusiness-details.js'
import type { MastodonOptions } from '../../core/mastodon-options.js'
import { networkRules, resendPrice } from '../../core/network-rules.js'
import { networks } from '../../core/networks.js'
import type { PinterestDetailsInput } from '../../core/pinterest-details.js'
import { type ConnectionInfo, type PlannedTarget, planPost } from '../../core/post-plan.js'
import {
  editableStatuses,
  isInFlight,
  isLive,
  type PostStatus,
  settableStatuses,
  settledStatus,
} from '../../core/post-status.js'
import { itemsPrice, readItems, readPostItems } from '../../core/thread-items.js'
import type { TikTokDetailsInput } from '../../core/tiktok-rules.js'
import type { YouTubeDetailsInput } from '../../core/youtube-details.js'
import { recordToolSettleEvents } from '../../modules/outbox/settle-events.js'
import { requiresApproval } from '../../modules/publishing/approval-store.js'
import {
  type KeptTarget,
  keptTarget,
  refuseBackToQueue,
  refuseRemoval,
} from '../../modules/publishing/edit-guards.js'
import { postView } from '../../modules/publishing/load.js'
import { refuseUnfetchableMedia } from '../../modules/publishing/media-addresses.js'
import { markPostPaid, owedOnQueueing } from '../../modules/publishing/queueing-charge.js'
import { loadConnectionInfos, resolveForPost, targetRow } from '../../modules/publishing/rows.js'
import { resolveSlot } from '../../modules/publishing/schedule-input.js'
import {
  contentSchema,
  dateSchema,
  firstCommentSchema,
  googlebusinessSchema,
  MAX_TARGETS,
  mastodonSchema,
  mediaAltTextsSchema,
  mediaUrlSchema,
  mediaUrlsSchema,
  networkSchema,
  pinterestSchema,
  postViewSchema,
  threadSchema,
  tiktokSchema,
  timeSchema,
  timezoneSchema,
  youtubeSchema,
} from '../../modules/publishing/schemas.js'
import type { Db } from '../../platform/db/db.js'
import { charge } from '../../platform/db/statements/credits.js'
import { deleteTargets, insertTarget, rewriteTarget } from '../../platform/db/statements/post-changes.js'
import { type PostRow, type TargetRow, updatePostRow } from '../../platform/db/statements/posts.js'
import { lockPostForChange, writeTransaction } from '../../platform/db/write-transaction.js'
import { conflict, invalid } from '../../platform/errors.js'
import { postIdField } from './get-post.js'
import { defineTool, type ToolContext, toolInput } from './tool.js'

const replacementTarget = z
  .strictObject({
    platform: networkSchema,
    profileId: z.string().min(1).max(200).optional().describe('Profile id from get_connected_accounts.'),
    username: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Handle (matches a profile when profileId is omitted).'),
  })
  .describe('One profile of the replacement target list.')

const updatePostInput = toolInput({
  id: postIdField,
  content: contentSchema.optional().describe('Replacement text for every profile of the post.'),
  targetAccounts: z
    .array(replacementTarget)
    .min(1)
    .max(MAX_TARGETS)
    .optional()
    .describe('Replaces the target list outright.'),
  platforms: z
    .array(networkSchema)
    .min(1)
    .max(networks.length)
    .optional()
    .describe('Replacement network list; each expands to all connected profiles.'),
  scheduleDate: dateSchema.optional(),
  scheduleTime: timeSchema.optional(),
  timezone: timezoneSchema.optional(),
  mediaUrl: mediaUrlSchema.optional().describe('Replaces the whole attachment set with this one file.'),
  mediaUrls: mediaUrlsSchema.optional().describe('Replacement set; an empty array removes all media.'),
  mediaAltTexts: mediaAltTextsSchema
    .optional()
    .describe(
      'Replacement alt texts per image, keyed by media URL ({} removes them). Omitted, the post keeps the alt texts of the images it still has, wherever they moved.',
    ),
  youtube: youtubeSchema
    .optional()
    .describe('title, description, privacyStatus; omitted fields keep their value.'),
  googlebusiness: googlebusinessSchema
    .optional()
    .describe('Replaces the Google Business Profile details outright (type, event, offer, callToAction).'),
  tiktok: tiktokSchema
    .optional()
    .describe('TikTok settings (an addition to the spec); omitted fields keep their value.'),
  pinterest: pinterestSchema
    .optional()
    .describe('title, link, coverImageUrl of a pin; omitted fields keep their value.'),
  mastodon: mastodonSchema
    .optional()
    .describe(
      'visibility, contentWarning, language (an addition to the spec); omitted fields keep their value.',
    ),
  status: z.enum(settableStatuses).optional().describe('scheduled, draft or failed.'),
  thread: threadSchema
    .optional()
    .describe(
      'Replacement thread for every profile of the post ([] removes it). Items already live must be sent unchanged; the ones after them may change (fix a refused item, then publish_post_now sends from it).',
    ),
  firstComment: firstCommentSchema
    .optional()
    .describe('Replacement first comment ("" removes it); refused once it is live.'),
})

export const updatePost = defineTool({
  name: 'update_post',
  title: 'Update post',
  description:
    "Patch a scheduled, draft or failed post: only the fields sent change. targetAccounts or platforms replace the target list (added profiles cost their network price); mediaUrls [] removes all media; youtube fields merge; googlebusiness replaces the post's; status moves between scheduled, draft and failed (draft takes the post out of the queue). Publishing or published posts are a 409. thread and firstComment (additions to the spec) replace the post's; on a post whose thread stopped at a refused item, the items already live must be sent unchanged and the ones after may change, then publish_post_now sends from the refused item. A post part of which is live cannot go back to scheduled or draft (409), and while a profile's last send has an unknown outcome its copy, media, thread and first comment cannot change (409: publish_post_now looks for it first). With approvals on, an editor's status scheduled, or change of the copy, media or profiles of a scheduled post, makes it wait for an owner (approval.state pending); a pending post stays pending (status draft withdraws it).",
  access: 'write',
  category: 'Publishing',
  input: updatePostInput,
  output: z.object({
    success: z.boolean().describe('True when the patch was applied.'),
    message: z.string().describe('What changed.'),
    post: postViewSchema.describe('The post as it stands after the patch.'),
  }),
  async handler(input, ctx) {
    const { store } = ctx.app
    const now = ctx.app.clock.now()
    if (input.mediaUrl !== undefined && input.mediaUrls !== undefined)
      throw invalid('Send mediaUrl or mediaUrls, not both')
    await refuseUnfetchableMedia(
      [
        ...(input.mediaUrls ?? (input.mediaUrl ? [input.mediaUrl] : [])),
        ...(input.thread ?? []).flatMap((item) => item.mediaUrls ?? []),
      ],
      ctx.app.config,
      (url) => ctx.app.media.isHostedUrl(url),
    )
    // Everything below reads, decides and writes inside one transaction on locked rows: two updates adding
    // the same profile, or an update racing a worker's claim, can never both act on the same read.
    const { post, status, runAt, waiting } = await writeTransaction(store, (tx) =>
      applyUpdate(tx, ctx, input, now),
    )
    if (status === 'scheduled' && runAt !== null && runAt <= now) ctx.app.queue.wake()
    const changed = Object.keys(input).filter((k) => k !== 'id' && k !== 'workspaceId')
    const said = changed.length ? `Updated ${changed.join(', ')}` : 'Nothing to change'
    return {
      success: true,
      message: waiting ? `${said}. ${WAITING_MESSAGE}` : said,
      post: await postView(store.db, ctx.workspace.id, post.id, now),
    }
  },
})

type UpdateInput = z.output<typeof updatePostInput>
type Settable = (typeof settableStatuses)[number]

/** The update in its transaction: lock, plan, decide the status, price, write. */
async function applyUpdate(tx: Db, ctx: ToolContext, input: UpdateInput, now: number) {
  const { post, targets: current } = await lockPostForChange(tx, ctx.app.store, ctx.workspace.id, input.id)
  if (!editableStatuses.includes(post.status as never) || current.some(isInFlight)) {
    const shown = current.some(isInFlight) ? 'processing' : post.status
    throw conflict(`A ${shown} post cannot be changed; only scheduled, draft and failed posts can`, {
      status: shown,
    })
  }
  if (input.status === 'scheduled' || input.status === 'draft') refuseBackToQueue(current, input.status)
  const edit = planEdit(input, post, current, await loadConnectionInfos(tx, ctx.workspace.id))
  const decided = await decideStatus(tx, ctx, input, post, current, edit.changesWhatGoesOut)
  const { approval } = decided
  let status: PostStatus = decided.status
  const queued = status === 'scheduled'
  const { slot, publishImmediately, dueAt } = slotOf(input, post, { queued, approval }, now)
  const runAt = queued ? dueAt : null

  const kept = keepTargets(edit, current, input.content === undefined)
  const wanted = new Set(edit.plan.targets.map((t) => t.connection.id))
  const removed = current.filter((t) => !wanted.has(t.connection_id))
  refuseRemoval(removed)
  const keptByConnection = new Map(current.map((t) => [t.connection_id, t]))
  const added = edit.plan.targets.filter((t) => !keptByConnection.has(t.connection.id))
  const rearmed = (queued ? current.filter((t) => wanted.has(t.connection_id)) : []).map((t) => ({
    ...t,
    items: kept.has(t.id) ? JSON.stringify(kept.get(t.id)?.items) : t.items,
  }))
  const deferred = await chargeUpdate(tx, ctx, { post, current, added, rearmed, kept, queued, approval }, now)

  if (!queued) status = followSettledTargets(status, current, kept, wanted, added.length)
  const patch: Partial<PostRow> = {
    content: edit.content,
    variants: JSON.stringify(edit.variants),
    media_urls: JSON.stringify(edit.mediaUrls),
    media_alt_texts: storedAltTexts(edit.altTexts),
    youtube: edit.youtube ? JSON.stringify(edit.youtube) : null,
    googlebusiness:
      edit.googlebusiness && edit.plan.targets.some((t) => t.googlebusiness)
        ? JSON.stringify(edit.googlebusiness)
        : null,
    tiktok: edit.tiktok ? JSON.stringify(edit.tiktok) : null,
    pinterest: edit.pinterest ? JSON.stringify(edit.pinterest) : null,
    mastodon: edit.mastodon ? JSON.stringify(edit.mastodon) : null,
    status,
    schedule_date: slot.date,
    schedule_time: slot.time,
    timezone: slot.timezone,
    due_at: dueAt,
    updated_at: now,
    approval: status === 'published' && approval === 'pending' ? null : approval,
    publish_immediately: publishImmediately,
    items: Object.keys(edit.postItems).length > 0 ? JSON.stringify(edit.postItems) : null,
  }
  if (status !== post.status && status !== 'failed') patch.last_error = ''
  const publishedAt = current.flatMap((t) => (t.published_at ? [t.published_at] : []))
  if (status === 'published' && publishedAt.length > 0) patch.published_at = Math.min(...publishedAt)
  await updatePostRow(tx, post.id, patch)
  await deleteTargets(
    tx,
    removed.map((t) => t.id),
  )
  await writeTargets(tx, ctx, { post, edit, current, kept, runAt, status, deferred }, now)
  return { post, status, runAt, waiting: approval === 'pending' }
}

/** The slot the edit leaves the post with, and the instant it is due. */
function slotOf(
  input: UpdateInput,
  post: PostRow,
  decided: { queued: boolean; approval: PostRow['approval'] },
  now: number,
) {
  const slotChanged =
    input.scheduleDate !== undefined || input.scheduleTime !== undefined || input.timezone !== undefined
  const slot = {
    date: input.scheduleDate ?? post.schedule_date ?? '',
    time: input.scheduleTime ?? post.schedule_time ?? '',
    timezone: input.timezone ?? post.timezone,
  }
  // A post asking for "publish now" keeps asking for it until a slot is given.
  const publishImmediately = slotChanged ? 0 : post.publish_immediately
  const newlyAsking = decided.approval === 'pending' && !isPending(post) && !publishImmediately
  const dueAt =
    slotChanged || (decided.queued && post.status !== 'scheduled') || newlyAsking
      ? resolveSlot(slot, now).dueAt
      : post.due_at
  return { slot, publishImmediately, dueAt }
}

/**
 * A target whose post is live and that the edit left with nothing to send is published; the post follows
 * its targets then (`published` once every one is settled), as a settle would leave it.
 */
function followSettledTargets(
  status: PostStatus,
  current: TargetRow[],
  kept: Map<string, KeptTarget>,
  wanted: Set<string>,
  added: number,
): PostStatus {
  if (![...kept.values()].some((k) => k.settles)) return status
  const after = current
    .filter((t) => wanted.has(t.connection_id))
    .map((t) => ({ status: kept.get(t.id)?.settles ? 'published' : t.status }))
  return settledStatus([...after, ...Array.from({ length: added }, () => ({ status: 'pending' }))]) ?? status
}

/** A stored JSON object column, parsed; undefined when null. */
const stored = <T>(column: string | null | undefined): T | undefined =>
  column ? (JSON.parse(column) as T) : undefined

/**
 * The network objects the edited post carries: those sent merged over the stored ones field by field (an
 * omitted field keeps its value), except Google Business Profile's, which replaces the stored one outright.
 */
function networkObjectsOf(input: UpdateInput, post: PostRow) {
  const merged = <T extends object>(given: T | undefined, column: string | null | undefined) =>
    given ? ({ ...stored<T>(column), ...given } as T) : stored<T>(column)
  return {
    youtube: merged<YouTubeDetailsInput>(input.youtube, post.youtube),
    googlebusiness: input.googlebusiness ?? stored<GoogleBusinessInput>(post.googlebusiness),
    tiktok: merged<TikTokDetailsInput>(input.tiktok, post.tiktok),
    pinterest: merged<PinterestDetailsInput>(input.pinterest, post.pinterest),
    mastodon: merged<MastodonOptions>(input.mastodon, post.mastodon),
  }
}

/** What the edit asks each target to send: the post's new copy, media, details and items, planned. */
function planEdit(input: UpdateInput, post: PostRow, current: TargetRow[], connections: ConnectionInfo[]) {
  const content = input.content ?? post.content
  const variants = input.content !== undefined ? {} : (JSON.parse(post.variants) as Record<string, string>)
  const mediaUrls =
    input.mediaUrls ??
    (input.mediaUrl !== undefined ? [input.mediaUrl] : (JSON.parse(post.media_urls) as string[]))
  const { youtube, googlebusiness, tiktok, pinterest, mastodon } = networkObjectsOf(input, post)
  // The thread and first comment sent replace the post's; otherwise the post keeps its own.
  const own = readPostItems(post.items)
  const postItems = {
    ...((input.thread ?? own.thread)?.length ? { thread: input.thread ?? own.thread } : {}),
    ...((input.firstComment ?? own.firstComment)
      ? { firstComment: input.firstComment ?? own.firstComment }
      : {}),
  }
  // The alt texts sent replace the post's; otherwise it keeps those of the images it still has.
  const altTexts = altTextsFor(
    [...mediaUrls, ...(postItems.thread ?? []).flatMap((item) => item.mediaUrls ?? [])],
    input.mediaAltTexts ?? readAltTexts(post.media_alt_texts),
  )
  const replacing = input.targetAccounts !== undefined || input.platforms !== undefined
  const targetRequest = replacing
    ? { targetAccounts: input.targetAccounts, platforms: input.platforms }
    : {
        // Kept targets keep their own copy unless new content is sent (it may outrank the variants).
        targetAccounts: current.map((t) => ({
          platform: t.platform as ConnectionInfo['platform'],
          profileId: t.profile_id,
          ...(input.content === undefined ? { content: t.content } : {}),
        })),
      }
  const plan = planPost(
    {
      content,
      variants,
      mediaUrls,
      youtube,
      googlebusiness,
      tiktok,
      pinterest,
      mastodon,
      ...postItems,
      ...targetRequest,
      mediaAltTexts: input.mediaAltTexts ?? altTexts,
    },
    connections,
  )
  if (plan.unknownTargets.length > 0)
    throw invalid(`Not connected: ${plan.unknownTargets.map((u) => u.reason).join('; ')}`, {
      unknownTargets: plan.unknownTargets,
    })
  if (plan.blockers.length > 0)
    throw invalid(`The post cannot be published: ${plan.blockers.join('; ')}`, { blockers: plan.blockers })
  const changesWhatGoesOut =
    input.content !== undefined ||
    replacing ||
    input.mediaUrl !== undefined ||
    input.mediaUrls !== undefined ||
    input.mediaAltTexts !== undefined ||
    input.youtube !== undefined ||
    input.googlebusiness !== undefined ||
    input.tiktok !== undefined ||
    input.pinterest !== undefined ||
    input.mastodon !== undefined ||
    input.thread !== undefined ||
    input.firstComment !== undefined
  return {
    plan,
    content,
    variants,
    mediaUrls,
    altTexts,
    youtube,
    googlebusiness,
    tiktok,
    pinterest,
    mastodon,
    postItems,
    changesWhatGoesOut,
  }
}
type Edit = ReturnType<typeof planEdit>

/**
 * The status and approval state the edit leaves the post in (src/core/approval.ts): a pending post stays
 * pending unless withdrawn; an editor's request to queue a post, or change what a queued post sends, waits
 * for an owner. A post part of which is on the network stays out of `draft` while it waits.
 */
async function decideStatus(
  tx: Db,
  ctx: ToolContext,
  input: UpdateInput,
  post: PostRow,
  current: TargetRow[],
  changesWhatGoesOut: boolean,
): Promise<{ status: Settable; approval: PostRow['approval'] }> {
  const requested = input.status ?? (post.status as Settable)
  const asks =
    ctx.workspace.role === 'editor' &&
    requested === 'scheduled' &&
    (post.status !== 'scheduled' || changesWhatGoesOut) &&
    (await requiresApproval(tx, ctx.workspace.id))
  const approval = post.approval ?? null
  if (isPending(post)) {
    const withdrawn = input.status === 'draft' || input.status === 'failed'
    if (withdrawn) return { status: input.status as Settable, approval: null }
    return { status: current.some(isLive) ? (post.status as Settable) : 'draft', approval }
  }
  if (asks) return { status: 'draft', approval: 'pending' }
  // Queued by an owner (or with approvals off): the rejection no longer applies.
  return {
    status: requested,
    approval: requested === 'scheduled' && approval === 'rejected' ? null : approval,
  }
}

/**
 * What each kept target sends after the edit, checked against what is, or may be, on its network (a 409
 * otherwise; src/modules/publishing/edit-guards.ts), by target id.
 */
function keepTargets(edit: Edit, current: TargetRow[], keepsOwnCopy: boolean) {
  const kept = new Map<string, KeptTarget & { resolved: ReturnType<typeof resolveForPost> }>()
  for (const target of edit.plan.targets) {
    const existing = current.find((t) => t.connection_id === target.connection.id)
    if (!existing) continue
    const resolved = resolvedFor(
      edit,
      target.connection,
      keepsOwnCopy ? existing.content : undefined,
      target.items,
    )
    kept.set(existing.id, { ...keptTarget(existing, { ...resolved, items: target.items }), resolved })
  }
  return kept
}

const resolvedFor = (
  edit: Edit,
  connection: ConnectionInfo,
  ownCopy: string | undefined,
  items: PlannedTarget['items'],
) =>
  resolveForPost(
    connection,
    {
      content: edit.content,
      mediaUrls: edit.mediaUrls,
      variants: edit.variants,
      youtube: edit.youtube,
      googlebusiness: edit.googlebusiness,
      altTexts: edit.altTexts,
      tiktok: edit.tiktok,
      pinterest: edit.pinterest,
      mastodon: edit.mastodon,
    },
    ownCopy,
    items,
  )

/**
 * Charges what the edit costs, in its transaction: added profiles (deferred with the rest for a post not
 * paid for yet), items added to a paid target that is not being re-sent, re-armed targets, and what a
 * queued post still owes. Answers whether added profiles' price is deferred.
 */
async function chargeUpdate(
  tx: Db,
  ctx: ToolContext,
  change: {
    post: PostRow
    current: TargetRow[]
    added: PlannedTarget[]
    rearmed: TargetRow[]
    kept: Map<string, KeptTarget>
    queued: boolean
    approval: PostRow['approval']
  },
  now: number,
): Promise<boolean> {
  const { post, current, added, rearmed, kept, queued, approval } = change
  const deferred = !queued && (approval === 'pending' || approval === 'rejected')
  const addedPrice = added.reduce(
    (sum, t) => sum + networkRules[t.connection.platform].price + itemsPrice(t.connection.platform, t.items),
    0,
  )
  // Items added to a kept target that is paid and not being re-sent are paid for now (a re-sent one pays
  // for all it still sends through resendPrice).
  const itemsDelta = current
    .filter((t) => t.paid !== 0 && t.status === 'pending' && kept.has(t.id))
    .reduce((sum, t) => {
      const network = t.platform as ConnectionInfo['platform']
      const now = itemsPrice(network, kept.get(t.id)?.items ?? [])
      return sum + Math.max(0, now - itemsPrice(network, readItems(t.items)))
    }, 0)
  const owed = queued ? await owedOnQueueing(tx, post, rearmed, now) : 0
  const price = (deferred ? 0 : addedPrice + itemsDelta) + resendPrice(rearmed) + owed
  if (price > 0)
    await charge(
      tx,
      { workspaceId: ctx.workspace.id, amount: price, reason: 'update_post_targets', reference: post.id },
      now,
    )
  if (queued) await markPostPaid(tx, post, current)
  return deferred
}

/** Inserts the added targets and rewrites the kept ones; a kept target with nothing left to send settles. */
async function writeTargets(
  tx: Db,
  ctx: ToolContext,
  change: {
    post: PostRow
    edit: Edit
    current: TargetRow[]
    kept: Map<string, KeptTarget & { resolved: ReturnType<typeof resolveForPost> }>
    runAt: number | null
    status: PostStatus
    deferred: boolean
  },
  now: number,
) {
  const { post, edit, current, kept, runAt, status, deferred } = change
  let position = Math.max(-1, ...current.map((t) => t.position)) + 1
  const settled: string[] = []
  for (const target of edit.plan.targets) {
    const existing = current.find((t) => t.connection_id === target.connection.id)
    const keep = existing && kept.get(existing.id)
    if (!existing || !keep) {
      const resolved = resolvedFor(edit, target.connection, undefined, target.items)
      const row = targetRow(
        { postId: post.id, workspaceId: ctx.workspace.id, position: position++, runAt, now },
        { ...resolved, items: target.items },
      )
      if (deferred) row.paid = 0
      await insertTarget(tx, row)
    } else if (existing.status !== 'published') {
      await rewriteTarget(tx, existing, {
        content: keep.resolved.content,
        mediaUrls: keep.resolved.mediaUrls,
        altTexts: keep.resolved.altTexts,
        youtube: keep.resolved.youtube,
        googlebusiness: keep.resolved.googlebusiness,
        tiktok: keep.resolved.tiktok,
        pinterest: keep.resolved.pinterest,
        mastodon: keep.resolved.mastodon,
        items: keep.items,
        runAt,
        retry: status === 'scheduled' && existing.status === 'failed',
        settles: keep.settles,
        now,
      })
      if (keep.settles) settled.push(existing.id)
    }
  }
  await recordToolSettleEvents(tx, post.id, settled, 'target.published', now)
}
