import { z } from 'zod'
import { isPending, WAITING_MESSAGE } from '../domain/approval.js'
import { networkRules, resendPrice } from '../domain/network-rules.js'
import { type ConnectionInfo, planPost } from '../domain/post-plan.js'
import { editableStatuses, isInFlight, settableStatuses } from '../domain/post-status.js'
import { type DeliveryItem, itemsPrice, readItems, readPostItems } from '../domain/thread-items.js'
import type { YouTubeDetailsInput } from '../domain/youtube-details.js'
import { conflict, invalid } from '../errors.js'
import { postView } from '../posts/load.js'
import { refuseUnfetchableMedia } from '../posts/media-addresses.js'
import { markPostPaid, owedOnQueueing } from '../posts/queueing-charge.js'
import { loadConnectionInfos, resolveForPost, targetRow } from '../posts/rows.js'
import { resolveSlot } from '../posts/schedule-input.js'
import {
  contentSchema,
  dateSchema,
  firstCommentSchema,
  MAX_TARGETS,
  mediaUrlSchema,
  mediaUrlsSchema,
  networkSchema,
  postViewSchema,
  threadSchema,
  timeSchema,
  timezoneSchema,
  youtubeSchema,
} from '../posts/schemas.js'
import { requiresApproval } from '../store/approvals.js'
import { charge } from '../store/credits.js'
import { deleteTargets, insertTarget, rewriteTarget } from '../store/post-changes.js'
import { type PostRow, updatePostRow } from '../store/posts.js'
import { lockPostForChange, writeTransaction } from '../store/write-transaction.js'
import { postIdField } from './get-post.js'
import { defineTool, toolInput } from './tool.js'

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

export const updatePost = defineTool({
  name: 'update_post',
  title: 'Update post',
  description:
    "Patch a scheduled, draft or failed post: only the fields sent change. targetAccounts or platforms replace the target list (added profiles cost their network price); mediaUrls [] removes all media; youtube fields merge; status moves between scheduled, draft and failed (draft takes the post out of the queue). Publishing or published posts are a 409. thread and firstComment (additions to the spec) replace the post's; on a post whose thread stopped at a refused item, the items already live must be sent unchanged and the ones after may change, then publish_post_now sends from the refused item. With approvals on, an editor's status scheduled, or change of the copy, media or profiles of a scheduled post, makes it wait for an owner (approval.state pending); a pending post stays pending (status draft withdraws it).",
  access: 'write',
  category: 'Publishing',
  input: toolInput({
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
      .max(7)
      .optional()
      .describe('Replacement network list; each expands to all connected profiles.'),
    scheduleDate: dateSchema.optional(),
    scheduleTime: timeSchema.optional(),
    timezone: timezoneSchema.optional(),
    mediaUrl: mediaUrlSchema.optional().describe('Replaces the whole attachment set with this one file.'),
    mediaUrls: mediaUrlsSchema.optional().describe('Replacement set; an empty array removes all media.'),
    youtube: youtubeSchema
      .optional()
      .describe('title, description, privacyStatus; omitted fields keep their value.'),
    status: z.enum(settableStatuses).optional().describe('scheduled, draft or failed.'),
    thread: threadSchema
      .optional()
      .describe(
        'Replacement thread for every profile of the post ([] removes it). Items already live must be sent unchanged; the ones after them may change (fix a refused item, then publish_post_now sends from it).',
      ),
    firstComment: firstCommentSchema
      .optional()
      .describe('Replacement first comment ("" removes it); refused once it is live.'),
  }),
  output: z.object({
    success: z.boolean().describe('True when the patch was applied.'),
    message: z.string().describe('What changed.'),
    post: postViewSchema.describe('The post as it stands after the patch.'),
  }),
  async handler(input, ctx) {
    const { store } = ctx.app
    const { db } = store
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
    const { post, status, runAt, waiting } = await writeTransaction(store, async (tx) => {
      const { post, targets: current } = await lockPostForChange(tx, store, ctx.workspace.id, input.id)
      if (!editableStatuses.includes(post.status as never) || current.some(isInFlight)) {
        const shown = current.some(isInFlight) ? 'processing' : post.status
        throw conflict(`A ${shown} post cannot be changed; only scheduled, draft and failed posts can`, {
          status: shown,
        })
      }
      const connections = await loadConnectionInfos(tx, ctx.workspace.id)
      const content = input.content ?? post.content
      const variants =
        input.content !== undefined ? {} : (JSON.parse(post.variants) as Record<string, string>)
      const mediaUrls =
        input.mediaUrls ??
        (input.mediaUrl !== undefined ? [input.mediaUrl] : (JSON.parse(post.media_urls) as string[]))
      const youtube: YouTubeDetailsInput | undefined = input.youtube
        ? { ...(post.youtube ? JSON.parse(post.youtube) : {}), ...input.youtube }
        : post.youtube
          ? JSON.parse(post.youtube)
          : undefined

      // Issue 26: the thread and first comment sent replace the post's; otherwise the post keeps its own.
      const kept = readPostItems(post.items)
      const postItems = {
        ...((input.thread ?? kept.thread)?.length ? { thread: input.thread ?? kept.thread } : {}),
        ...((input.firstComment ?? kept.firstComment)
          ? { firstComment: input.firstComment ?? kept.firstComment }
          : {}),
      }
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
        { content, variants, mediaUrls, youtube, ...postItems, ...targetRequest },
        connections,
      )
      if (plan.unknownTargets.length > 0)
        throw invalid(`Not connected: ${plan.unknownTargets.map((u) => u.reason).join('; ')}`, {
          unknownTargets: plan.unknownTargets,
        })
      if (plan.blockers.length > 0)
        throw invalid(`The post cannot be published: ${plan.blockers.join('; ')}`, {
          blockers: plan.blockers,
        })

      // Approvals (src/domain/approval.ts): a pending post stays pending unless withdrawn; an editor's
      // request to queue a post, or change what a queued post sends, waits for an owner.
      const requested = input.status ?? (post.status as (typeof settableStatuses)[number])
      const changesWhatGoesOut =
        input.content !== undefined ||
        replacing ||
        input.mediaUrl !== undefined ||
        input.mediaUrls !== undefined ||
        input.youtube !== undefined ||
        input.thread !== undefined ||
        input.firstComment !== undefined
      const asks =
        ctx.workspace.role === 'editor' &&
        requested === 'scheduled' &&
        (post.status !== 'scheduled' || changesWhatGoesOut) &&
        (await requiresApproval(tx, ctx.workspace.id))
      let approval = post.approval ?? null
      let status: (typeof settableStatuses)[number]
      if (isPending(post)) {
        const withdrawn = input.status === 'draft' || input.status === 'failed'
        status = withdrawn ? (input.status as 'draft' | 'failed') : 'draft'
        if (withdrawn) approval = null
      } else if (asks) {
        status = 'draft'
        approval = 'pending'
      } else {
        status = requested
        // Queued by an owner (or with approvals off): the rejection no longer applies.
        if (status === 'scheduled' && approval === 'rejected') approval = null
      }
      const queued = status === 'scheduled'
      const slotChanged =
        input.scheduleDate !== undefined || input.scheduleTime !== undefined || input.timezone !== undefined
      const slot = {
        date: input.scheduleDate ?? post.schedule_date ?? '',
        time: input.scheduleTime ?? post.schedule_time ?? '',
        timezone: input.timezone ?? post.timezone,
      }
      // A post asking for "publish now" keeps asking for it until a slot is given.
      const publishImmediately = slotChanged ? 0 : post.publish_immediately
      const newlyAsking = approval === 'pending' && !isPending(post) && !publishImmediately
      const dueAt =
        slotChanged || (queued && post.status !== 'scheduled') || newlyAsking
          ? resolveSlot(slot, now).dueAt
          : post.due_at
      const runAt = queued ? dueAt : null

      // A target whose post is live (its thread or first comment stopped partway) keeps its post and the
      // items already live: they are on the network and cannot change; only what follows them may.
      const changesLivePost =
        input.content !== undefined ||
        input.mediaUrl !== undefined ||
        input.mediaUrls !== undefined ||
        input.youtube !== undefined
      const itemsFor = new Map<string, DeliveryItem[]>()
      for (const target of plan.targets) {
        const existing = current.find((t) => t.connection_id === target.connection.id)
        if (!existing) continue
        const live = readItems(existing.items).filter((i) => i.status === 'published')
        if (existing.remote_id && changesLivePost)
          throw conflict(
            `${existing.platform} @${existing.username} has this post live already; only its thread items and first comment that are not live may change`,
          )
        for (const [i, item] of live.entries()) {
          const next = target.items[i]
          if (!next || next.role !== item.role || next.content !== item.content)
            throw conflict(
              `${existing.platform} @${existing.username}: ${item.role === 'thread' ? `thread item ${i + 1}` : 'the first comment'} is live already (${item.url ?? item.remoteId}) and cannot change; send the live items unchanged`,
            )
        }
        itemsFor.set(existing.id, [...live, ...target.items.slice(live.length)])
      }
      const itemsChanged = input.thread !== undefined || input.firstComment !== undefined
      const keptTargets = new Map(current.map((t) => [t.connection_id, t]))
      const wanted = new Set(plan.targets.map((t) => t.connection.id))
      const removed = current.filter((t) => !wanted.has(t.connection_id))
      // A target whose post is live (published, or a thread stopped partway) stays: it is on the network.
      if (removed.some((t) => t.status === 'published' || t.remote_id !== null))
        throw conflict('A profile that already received this post cannot be removed from it')
      const added = plan.targets.filter((t) => !keptTargets.has(t.connection.id))
      const rearmed = (queued ? current.filter((t) => wanted.has(t.connection_id)) : []).map((t) => ({
        ...t,
        items: itemsFor.has(t.id) ? JSON.stringify(itemsFor.get(t.id)) : t.items,
      }))
      // A post not paid for yet (waiting for approval, or rejected) pays for added profiles with the rest,
      // when it is queued; a queued post pays what it still owes now.
      const deferred = !queued && (approval === 'pending' || approval === 'rejected')
      const addedPrice = added.reduce(
        (sum, t) =>
          sum + networkRules[t.connection.platform].price + itemsPrice(t.connection.platform, t.items),
        0,
      )
      // Items added to a kept target that is paid and not being re-sent are paid for now (a re-sent one
      // pays for all it still sends through resendPrice).
      const itemsDelta = itemsChanged
        ? current
            .filter((t) => t.paid !== 0 && t.status === 'pending' && itemsFor.has(t.id))
            .reduce(
              (sum, t) =>
                sum +
                Math.max(
                  0,
                  itemsPrice(t.platform as ConnectionInfo['platform'], itemsFor.get(t.id) ?? []) -
                    itemsPrice(t.platform as ConnectionInfo['platform'], readItems(t.items)),
                ),
              0,
            )
        : 0
      const owed = queued ? await owedOnQueueing(tx, post, rearmed, now) : 0
      const price = (deferred ? 0 : addedPrice + itemsDelta) + resendPrice(rearmed) + owed
      if (price > 0)
        await charge(
          tx,
          { workspaceId: ctx.workspace.id, amount: price, reason: 'update_post_targets', reference: post.id },
          now,
        )
      if (queued) await markPostPaid(tx, post, current)

      const patch: Partial<PostRow> = {
        content,
        variants: JSON.stringify(variants),
        media_urls: JSON.stringify(mediaUrls),
        youtube: youtube ? JSON.stringify(youtube) : null,
        status,
        schedule_date: slot.date,
        schedule_time: slot.time,
        timezone: slot.timezone,
        due_at: dueAt,
        updated_at: now,
        approval,
        publish_immediately: publishImmediately,
        items: Object.keys(postItems).length > 0 ? JSON.stringify(postItems) : null,
      }
      if (status !== post.status && status !== 'failed') patch.last_error = ''
      await updatePostRow(tx, post.id, patch)
      await deleteTargets(
        tx,
        removed.map((t) => t.id),
      )
      const resolvedFor = { content, mediaUrls, variants, youtube }
      let position = Math.max(-1, ...current.map((t) => t.position)) + 1
      for (const target of plan.targets) {
        const existing = keptTargets.get(target.connection.id)
        const resolved = resolveForPost(
          target.connection,
          resolvedFor,
          input.content === undefined ? existing?.content : undefined,
        )
        if (!existing) {
          const row = targetRow(
            { postId: post.id, workspaceId: ctx.workspace.id, position: position++, runAt, now },
            { ...resolved, items: target.items },
          )
          if (deferred) row.paid = 0
          await insertTarget(tx, row)
        } else if (existing.status !== 'published') {
          await rewriteTarget(tx, existing, {
            content: resolved.content,
            mediaUrls: resolved.mediaUrls,
            youtube: resolved.youtube,
            items: itemsFor.get(existing.id) ?? [],
            runAt,
            retry: status === 'scheduled' && existing.status === 'failed',
            now,
          })
        }
      }
      return { post, status, runAt, waiting: approval === 'pending' }
    })
    if (status === 'scheduled' && runAt !== null && runAt <= now) ctx.app.queue.wake()
    const changed = Object.keys(input).filter((k) => k !== 'id' && k !== 'workspaceId')
    const said = changed.length ? `Updated ${changed.join(', ')}` : 'Nothing to change'
    return {
      success: true,
      message: waiting ? `${said}. ${WAITING_MESSAGE}` : said,
      post: await postView(db, ctx.workspace.id, post.id, now),
    }
  },
})
