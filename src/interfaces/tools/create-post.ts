import { z } from 'zod'
import { storedAltTexts } from '../../core/alt-text.js'
import { WAITING_MESSAGE } from '../../core/approval.js'
import { networks } from '../../core/networks.js'
import {
  type Plan,
  type PlannedTarget,
  planPost,
  selectConnections,
  targetMediaToFetch,
} from '../../core/post-plan.js'
import { describeOpening, type QueueOpening } from '../../core/posting-queue.js'
import type { TikTokCreator } from '../../core/tiktok-rules.js'
import { requiresApproval } from '../../modules/publishing/approval-store.js'
import { readCreatorOptions, videoLengthBlockers } from '../../modules/publishing/creator-options.js'
import {
  rememberedWithCharge,
  rememberResponse,
  replayFor,
  requestHash,
  updateRememberedResponse,
} from '../../modules/publishing/idempotency.js'
import { refuseUnfetchableMedia } from '../../modules/publishing/media-addresses.js'
import { checkMedia } from '../../modules/publishing/media-checks.js'
import { mediaHostBlockers } from '../../modules/publishing/media-host.js'
import {
  profilesWithQueue,
  refuseWithoutQueue,
  takeQueueSlots,
} from '../../modules/publishing/posting-queues.js'
import { presentPost } from '../../modules/publishing/present.js'
import { loadConnectionInfos, targetRow } from '../../modules/publishing/rows.js'
import { type ResolvedSchedule, resolveCreateSchedule } from '../../modules/publishing/schedule-input.js'
import {
  contentSchema,
  dateSchema,
  firstCommentSchema,
  firstCommentVariantsSchema,
  googlebusinessSchema,
  MAX_TARGETS,
  mastodonSchema,
  mediaAltTextsSchema,
  mediaUrlSchema,
  mediaUrlsSchema,
  networkSchema,
  pinterestSchema,
  postViewSchema,
  targetAccountSchema,
  threadSchema,
  threadVariantsSchema,
  tiktokSchema,
  timeSchema,
  timezoneSchema,
  variantsSchema,
  youtubeSchema,
} from '../../modules/publishing/schemas.js'
import type { Db } from '../../platform/db/db.js'
import { charge, currentBalance } from '../../platform/db/statements/credits.js'
import { recordImportedRow } from '../../platform/db/statements/imports.js'
import {
  findPost,
  insertPosts,
  type PostRow,
  type TargetRow,
  targetsOf,
} from '../../platform/db/statements/posts.js'
import { AppError, conflict, invalid } from '../../platform/errors.js'
import { newId } from '../../platform/ids.js'
import { creditsCharged, defineTool, type ToolContext, toolInput } from './tool.js'

export const createPostInput = toolInput({
  content: contentSchema.describe('Shared text body, used for any profile without its own copy.'),
  targetAccounts: z
    .array(targetAccountSchema)
    .max(MAX_TARGETS)
    .optional()
    .describe('Exact profiles to post to (preferred); each becomes a separate post.'),
  platforms: z
    .array(networkSchema)
    .max(networks.length)
    .optional()
    .describe('Whole networks; each expands to every connected profile on it.'),
  variants: variantsSchema.optional(),
  thread: threadSchema.optional(),
  firstComment: firstCommentSchema.optional(),
  threadVariants: threadVariantsSchema.optional(),
  firstCommentVariants: firstCommentVariantsSchema.optional(),
  youtube: youtubeSchema.optional(),
  googlebusiness: googlebusinessSchema.optional(),
  tiktok: tiktokSchema.optional(),
  pinterest: pinterestSchema.optional(),
  mastodon: mastodonSchema.optional(),
  publishImmediately: z
    .boolean()
    .default(false)
    .describe('Default false. True broadcasts on receipt; false queues for the slot.'),
  scheduleDate: dateSchema.optional().describe('YYYY-MM-DD. Required when publishImmediately is false.'),
  scheduleTime: timeSchema.optional().describe('HH:MM, 24-hour. Required when publishImmediately is false.'),
  timezone: timezoneSchema.default('UTC'),
  mediaUrl: mediaUrlSchema
    .optional()
    .describe('Public URL of one image or video. Required, and must be a video, when targeting youtube.'),
  mediaUrls: mediaUrlsSchema
    .optional()
    .describe('Ordered attachments; wins over mediaUrl when both are given.'),
  mediaAltTexts: mediaAltTextsSchema.optional(),
  queue: z
    .boolean()
    .optional()
    .describe(
      "Optional, instead of scheduleDate/scheduleTime: each profile's post takes that profile's next free posting time from its posting queue (set on the dashboard's Queue page or with herald queue set), in the queue's time zone.",
    ),
  idempotencyKey: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'Same key and same body within 24 hours answers the first response again (MCP and multicall; REST also takes the Idempotency-Key header).',
    ),
})

const createPostOutput = z.object({
  success: z.boolean().describe('True when the posts were created.'),
  message: z.string().describe('What happened, in a sentence.'),
  postIds: z.array(z.string()).describe('Ids of the posts created, one per profile.'),
  posts: z.array(postViewSchema).describe('The posts created, one per profile.'),
  post: postViewSchema.describe('posts[0], for callers written against the older single-post response.'),
  credits: creditsCharged,
})

type CreateInput = z.output<typeof createPostInput>
type CreateOutput = z.input<typeof createPostOutput>

export const QUEUE_OR_SLOT =
  'Send queue: true or a slot (scheduleDate and scheduleTime, or publishImmediately), not both'

const plural = (n: number) => `${n} post${n > 1 ? 's' : ''}`

async function create(
  input: CreateInput,
  ctx: ToolContext,
  idempotencyKey: string | undefined,
): Promise<CreateOutput> {
  const { db } = ctx.app.store
  const now = ctx.app.clock.now()
  const key = idempotencyKey
  const hash = key ? requestHash({ ...input, idempotencyKey: undefined }) : ''
  // A replay answers with the first response whatever changed since (its slot may have passed, a
  // connection or the balance moved), so it is looked up before the request is checked again.
  if (key) {
    const replay = await replayFor(db, ctx.workspace.id, key, hash, now)
    if (replay) return replay as CreateOutput
  }
  const { plan, schedule } = await checkCreatable(input, ctx, now)
  // The key was looked up above; a request with the same key that commits in between makes this one's
  // write of the key fail on its primary key, which rolls this one back whole, and the handler answers
  // with that request's response (no second lookup here: it would cost every create a round trip).
  const response = await ctx.app.store.batchedTransaction((tx) =>
    writePosts(tx, ctx, { input, plan, schedule, key, hash, now }),
  )
  if (!input.publishImmediately || response.post.status === 'draft') return response
  return await awaitImmediatePublish(ctx, response, key)
}

/** The request's plan and slot, or the 400 naming what blocks it; nothing is written. */
async function checkCreatable(input: CreateInput, ctx: ToolContext, now: number) {
  const { db } = ctx.app.store
  if (
    input.queue &&
    (input.publishImmediately || input.scheduleDate !== undefined || input.scheduleTime !== undefined)
  )
    throw invalid(QUEUE_OR_SLOT, [{ path: 'queue', message: QUEUE_OR_SLOT }])
  const schedule = input.queue ? undefined : resolveCreateSchedule(input, now)
  const connections = await loadConnectionInfos(db, ctx.workspace.id)
  const chosen = selectConnections(input, connections).chosen.map((c) => c.connection)
  const creators = await readCreatorOptions(ctx.app, ctx.workspace.id, chosen)
  const plan = planPost({ ...input, tiktokCreators: creators }, connections)
  if (plan.unknownTargets.length > 0) {
    throw invalid(`Not connected: ${plan.unknownTargets.map((u) => u.reason).join('; ')}`, {
      unknownTargets: plan.unknownTargets,
      blockers: plan.blockers,
    })
  }
  if (plan.blockers.length > 0)
    throw invalid(`The post cannot be published: ${plan.blockers.join('; ')}`, { blockers: plan.blockers })
  await checkCreatableMedia(plan, ctx, creators)
  if (input.queue)
    refuseWithoutQueue(
      plan.targets.map((t) => t.connection),
      new Set((await profilesWithQueue(db, ctx.workspace.id)).keys()),
    )
  return { plan, schedule }
}

/** Every attachment is fetchable, on a host its network accepts, and of a kind and size it takes. */
async function checkCreatableMedia(plan: Plan, ctx: ToolContext, creators: Map<string, TikTokCreator>) {
  await refuseUnfetchableMedia(
    plan.targets.flatMap((t) => [...targetMediaToFetch(t), ...t.items.flatMap((item) => item.mediaUrls)]),
    ctx.app.config,
    (url) => ctx.app.media.isHostedUrl(url),
  )
  const hostBlockers = mediaHostBlockers(ctx.app.config, plan.targets)
  if (hostBlockers.length > 0)
    throw invalid(`The post cannot be published: ${hostBlockers.join('; ')}`, { blockers: hostBlockers })
  const media = await checkMedia(ctx.app.media, plan.targets)
  const blockers = [...media.blockers, ...videoLengthBlockers(plan.targets, creators, media.videoMs)]
  if (blockers.length > 0) throw invalid(`The post cannot be published: ${blockers.join('; ')}`, { blockers })
}

interface CreateRequest {
  input: CreateInput
  plan: Plan
  /** The requested slot; undefined when each post takes its profile's next queue opening. */
  schedule: ResolvedSchedule | undefined
  key: string | undefined
  hash: string
  now: number
}

/** The create's one transaction: the posts and their targets, the charge (or the wait) and the key. */
async function writePosts(tx: Db, ctx: ToolContext, request: CreateRequest): Promise<CreateOutput> {
  const { input, plan, key, hash, now } = request
  const workspaceId = ctx.workspace.id
  // An editor's posts wait for an owner when the workspace asks for approval (read in this transaction).
  const waits = ctx.workspace.role === 'editor' && (await requiresApproval(tx, workspaceId))
  const slots = input.queue
    ? await takeQueueSlots(
        tx,
        ctx.app.store,
        workspaceId,
        plan.targets.map((t) => t.connection),
        now,
      )
    : undefined
  // A waiting post's share of the call's one-off link surcharge is paid by the first of them approved.
  const chargeGroup = waits && plan.hasLink ? newId(now) : null
  const built = plan.targets.map((target) =>
    newPost(target, { ctx, input, opening: slots?.get(target.connection.id), request, waits, chargeGroup }),
  )
  // The call's posts are one compose, named by its first post's id (as an older post is its own).
  const composeId = built[0]?.post.id ?? null
  const posts = built.map((b) => ({ ...b.post, compose_id: composeId }))
  const rows = built.map((b) => b.row)
  const postIds = posts.map((p) => p.id)
  await insertPosts(tx, posts, rows)
  const views = posts.map((post, i) => presentPost(post, [rows[i] as TargetRow], now))
  const respond = responder(input, request.schedule, slots, waits, {
    postIds,
    views,
    charged: waits ? 0 : plan.cost,
  })
  let remaining: number
  if (waits) {
    remaining = await currentBalance(tx, workspaceId)
    if (key) await rememberResponse(tx, workspaceId, key, hash, respond(remaining), now)
  } else {
    // The key's first response is written with the charge (on Postgres in its statement, see charge).
    remaining = await charge(
      tx,
      { workspaceId, amount: plan.cost, reason: 'create_post', reference: postIds.join(',') },
      now,
      key ? rememberedWithCharge(workspaceId, key, hash, respond, now) : undefined,
    )
  }
  if (ctx.importRow) await recordImportRow(tx, { workspaceId, key: ctx.importRow, postIds }, now)
  return respond(remaining)
}

/** One profile's post and its first target row, at its queue opening or the requested slot. */
function newPost(
  target: PlannedTarget,
  at: {
    ctx: ToolContext
    input: CreateInput
    opening: QueueOpening | undefined
    request: CreateRequest
    waits: boolean
    chargeGroup: string | null
  },
): { post: PostRow; row: TargetRow } {
  const { ctx, input, opening, waits } = at
  const { now } = at.request
  const workspaceId = ctx.workspace.id
  const id = newId(now)
  const slot = opening
    ? { date: opening.date, time: opening.time, timezone: opening.timezone, dueAt: opening.dueAt }
    : (at.request.schedule as ResolvedSchedule)
  const post: PostRow = {
    id,
    workspace_id: workspaceId,
    author_id: ctx.caller.userId,
    content: target.content,
    media_urls: JSON.stringify(target.mediaUrls),
    media_alt_texts: storedAltTexts(target.altTexts),
    youtube:
      target.connection.platform === 'youtube' && (input.youtube || target.overrides.youtube)
        ? JSON.stringify({ ...input.youtube, ...target.overrides.youtube })
        : null,
    googlebusiness:
      target.connection.platform === 'googlebusiness' && input.googlebusiness
        ? JSON.stringify(input.googlebusiness)
        : null,
    tiktok:
      target.connection.platform === 'tiktok' && (input.tiktok || target.overrides.tiktok)
        ? JSON.stringify({ ...input.tiktok, ...target.overrides.tiktok })
        : null,
    pinterest:
      target.connection.platform === 'pinterest' && (input.pinterest || target.overrides.pinterest)
        ? JSON.stringify({ ...input.pinterest, ...target.overrides.pinterest })
        : null,
    mastodon:
      target.connection.platform === 'mastodon' && (input.mastodon || target.overrides.mastodon)
        ? JSON.stringify({ ...input.mastodon, ...target.overrides.mastodon })
        : null,
    variants: JSON.stringify(input.variants ?? {}),
    status: waits ? 'draft' : 'scheduled',
    schedule_date: slot.date,
    schedule_time: slot.time,
    timezone: slot.timezone,
    due_at: slot.dueAt,
    publish_immediately: input.publishImmediately ? 1 : 0,
    attempts: 0,
    last_error: '',
    created_at: now,
    updated_at: now,
    published_at: null,
    approval: waits ? 'pending' : null,
    charge_group: at.chargeGroup,
    from_queue: opening ? 1 : 0,
    items: Object.keys(target.postItems).length > 0 ? JSON.stringify(target.postItems) : null,
  }
  const row = targetRow(
    { postId: id, workspaceId, position: 0, runAt: waits ? null : slot.dueAt, now },
    target,
  )
  if (waits) row.paid = 0
  return { post, row }
}

/** The create's response for a given remaining balance (known only once the charge is made). */
function responder(
  input: CreateInput,
  schedule: ResolvedSchedule | undefined,
  slots: Map<string, QueueOpening> | undefined,
  waits: boolean,
  created: { postIds: string[]; views: CreateOutput['posts']; charged: number },
) {
  const { postIds, views, charged } = created
  const when = slots
    ? `at ${[...slots.values()].map(describeOpening).join(', ')} (the next free posting time${slots.size > 1 ? ' of each profile' : ''})`
    : `for ${schedule?.date} ${schedule?.time} ${schedule?.timezone}`
  return (remaining: number): CreateOutput => ({
    success: true,
    message: waits
      ? `${WAITING_MESSAGE}: ${plural(views.length)} ${input.publishImmediately ? 'to publish once approved' : `asking for ${when.replace(/^(at|for) /, '')}`}`
      : input.publishImmediately
        ? `Publishing ${plural(views.length)} now`
        : `${slots ? 'Queued' : 'Scheduled'} ${plural(views.length)} ${when}`,
    postIds,
    posts: views,
    post: views[0] as CreateOutput['post'],
    credits: { charged, remaining },
  })
}

/** An immediate post answers once the worker settled it (or the wait ran out), with what it became. */
async function awaitImmediatePublish(
  ctx: ToolContext,
  response: CreateOutput,
  key: string | undefined,
): Promise<CreateOutput> {
  const { db } = ctx.app.store
  ctx.app.queue.wake()
  await ctx.app.queue.waitForSettled(db, response.postIds, ctx.app.config.immediateWaitMs)
  const settled = await reread(ctx, response.postIds)
  const published = settled.filter((p) => p.status === 'published').length
  const final: CreateOutput = {
    ...response,
    message:
      published === settled.length
        ? `Published ${published} post${published > 1 ? 's' : ''}`
        : `${published} of ${settled.length} published; see each post's status and targets`,
    posts: settled,
    post: settled[0] as CreateOutput['post'],
  }
  if (key) await updateRememberedResponse(db, ctx.workspace.id, key, final)
  return final
}

/**
 * Records the CSV row a create_post imports with the posts it creates, in their transaction; a row an
 * earlier import recorded is a 409 naming its posts, and nothing is created.
 */
async function recordImportRow(
  tx: Db,
  row: { workspaceId: string; key: string; postIds: string[] },
  now: number,
) {
  const earlier = await recordImportedRow(tx, row, now)
  if (earlier)
    throw conflict('This CSV row was imported before; it is not created again', { importedPostIds: earlier })
}

async function reread(ctx: ToolContext, postIds: string[]) {
  const { db } = ctx.app.store
  const now = ctx.app.clock.now()
  const targets = await targetsOf(db, postIds)
  const views = []
  for (const id of postIds) {
    const post = await findPost(db, ctx.workspace.id, id)
    if (post)
      views.push(
        presentPost(
          post,
          targets.filter((t) => t.post_id === id),
          now,
        ),
      )
  }
  return views
}

export const createPost = defineTool({
  name: 'create_post',
  title: 'Create post',
  description:
    "Queue or broadcast a post. Each targeted profile gets its own post with its own id. Optional additions: thread (follow-up posts, each replying to the one before, on twitter, bluesky, threads and mastodon; at most 25) and firstComment (a comment on facebook, instagram, linkedin and youtube, a reply on twitter, bluesky, threads and mastodon), per profile in targetAccounts and per network in threadVariants/firstCommentVariants; each item costs what a post costs on its network and is delivered once, in order. Network objects (additions too, each ignored by other networks): googlebusiness (an update, an event or an offer, and its button), tiktok (privacyLevel, which has no default, the switches and the disclosure), pinterest (the pin's title, link and video cover) and mastodon (visibility, contentWarning, language). Refused with 400 (listing the blockers) when preflight_post would block it (except its 24-hour repeated-copy check, which only preflight_post makes), 402 when the balance cannot pay; nothing is created or charged then. Price: 5 credits per X profile, 1 per other profile, plus a one-off 50 when the copy holds a link. With queue: true each profile's post takes that profile's next free posting time. When the workspace requires approval, an editor's posts are created as drafts waiting for an owner (approval.state pending) and nothing is charged until an owner approves them.",
  access: 'write',
  category: 'Publishing',
  input: createPostInput,
  output: createPostOutput,
  async handler(input, ctx) {
    const key = ctx.idempotencyKey ?? input.idempotencyKey
    try {
      return await create(input, ctx, key)
    } catch (error) {
      // Two requests racing with one new key: the loser's insert hits the primary key; answer as a replay.
      if (key && !(error instanceof AppError)) {
        const replay = await replayFor(
          ctx.app.store.db,
          ctx.workspace.id,
          key,
          requestHash({ ...input, idempotencyKey: undefined }),
          ctx.app.clock.now(),
        )
        if (replay) return replay as CreateOutput
      }
      throw error
    }
  },
})
