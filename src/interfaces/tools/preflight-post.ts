import { z } from 'zod'
import { connectsThroughInstances } from '../../adapters/mastodon/index.js'
import { networks } from '../../core/networks.js'
import { type Plan, planPost, selectConnections, targetMediaToFetch } from '../../core/post-plan.js'
import { hostOfProfile, refreshStaleInstances } from '../../modules/connections/mastodon-instances.js'
import { allowanceWarnings } from '../../modules/publishing/allowance-checks.js'
import { requiresApproval } from '../../modules/publishing/approval-store.js'
import {
  appLimitWarnings,
  readCreatorOptions,
  videoLengthBlockers,
} from '../../modules/publishing/creator-options.js'
import { duplicateFindings } from '../../modules/publishing/duplicate-checks.js'
import { refuseUnfetchableMedia } from '../../modules/publishing/media-addresses.js'
import { checkMedia } from '../../modules/publishing/media-checks.js'
import { mediaHostBlockers } from '../../modules/publishing/media-host.js'
import { previewQueueSlots } from '../../modules/publishing/posting-queues.js'
import { loadConnectionInfos } from '../../modules/publishing/rows.js'
import { resolveCreateSchedule } from '../../modules/publishing/schedule-input.js'
import { mediaUrlSchema, networkSchema } from '../../modules/publishing/schemas.js'
import { currentBalance } from '../../platform/db/statements/credits.js'
import { AppError } from '../../platform/errors.js'
import { createPostInput, QUEUE_OR_SLOT } from './create-post.js'
import { defineTool, type ToolContext } from './tool.js'

const limitsSchema = z.object(
  Object.fromEntries(
    networks.map((n) => [n, z.number().int().describe(`Character limit on ${n}.`)]),
  ) as Record<(typeof networks)[number], z.ZodNumber>,
)

/**
 * Preflight takes a larger attachment set than create_post (whose schema refuses more than 20 with a
 * 400), so that a set too large for a network is reported as a blocker for each target it does not fit
 * (Threads: "21 attachments; threads takes at most 20") rather than refused as a malformed request.
 */
const PREFLIGHT_MAX_MEDIA = 100
const preflightInput = createPostInput.extend({
  mediaUrls: z
    .array(mediaUrlSchema)
    .max(PREFLIGHT_MAX_MEDIA)
    .optional()
    .describe(
      'Ordered attachments; wins over mediaUrl when both are given. Up to 100 here: a set larger than a network takes is reported as a blocker.',
    ),
})

export const preflightPost = defineTool({
  name: 'preflight_post',
  title: 'Preflight post',
  description:
    "Dry run of create_post: checks copy length as each network counts it (a Mastodon profile against its instance's own limits, which limits.mastodon reports), profiles not connected or needing reconnect, networks that require media, attachment sets against each target, the schedule (or, with queue: true, the slot each profile would take), the same copy sent to the same profile within 24 hours (a warning naming the post; a blocker on X, which refuses it), and the price against the balance. With a thread or firstComment (additions to the spec) it also checks the length of each item as its network counts it (X 280 per thread post, Bluesky 300, Threads 500, Mastodon the instance's own limit with the content warning counted; comments: Instagram 2,196, LinkedIn 1,250, Facebook 8,000, YouTube 10,000), the media of each item, at most 25 thread items, warns where a shared thread cannot go (threads go to twitter, bluesky, threads and mastodon; first comments to every network), and prices each item as a post on its network. Publishes nothing, costs nothing. Takes the same arguments as create_post.",
  access: 'read',
  category: 'Publishing',
  input: preflightInput,
  output: z.object({
    ok: z.boolean().describe('False when anything in blockers would stop the post.'),
    characterCount: z.number().int().describe('Characters in the shared content.'),
    resolvedTargets: z
      .array(
        z.object({
          platform: networkSchema,
          profileId: z.string().describe('Profile id.'),
          username: z.string().describe('Handle.'),
        }),
      )
      .describe('The profiles the post would go to.'),
    unknownTargets: z
      .array(
        z.object({
          platform: z.string().describe('Network value as given.'),
          profileId: z.string().optional().describe('Profile id as given.'),
          username: z.string().optional().describe('Handle as given.'),
          reason: z.string().describe('Why it matches no connected profile.'),
        }),
      )
      .describe('Requested profiles that are not connected.'),
    limits: limitsSchema.describe('Character limit per network (X: standard access).'),
    credits: z
      .object({
        cost: z.number().int().describe('Credits create_post would take.'),
        balance: z.number().int().describe('Workspace balance now.'),
        remainingAfter: z
          .number()
          .int()
          .describe('Balance after the post (negative when it cannot be paid).'),
      })
      .describe('Price against balance.'),
    blockers: z.array(z.string()).describe('Problems that would stop the post.'),
    warnings: z.array(z.string()).describe('Advice that does not stop the post.'),
    mediaCount: z.number().int().optional().describe('Largest attachment set among the targets (sets only).'),
    mediaSetLimits: z
      .record(
        z.string(),
        z.object({
          min: z.number().int().describe('Fewest items in a set.'),
          max: z.number().int().describe('Most items in a set.'),
          mixesVideo: z.boolean().describe('Whether video may be mixed into a set.'),
        }),
      )
      .optional()
      .describe('Attachment-set limits of each target network (sets only).'),
    queueSlots: z
      .array(
        z.object({
          platform: networkSchema,
          profileId: z.string().describe('Profile id.'),
          scheduleDate: z.string().describe('Slot date in the queue zone, YYYY-MM-DD.'),
          scheduleTime: z.string().describe('Slot time, HH:MM.'),
          timezone: z.string().describe('The posting queue zone.'),
        }),
      )
      .optional()
      .describe('With queue: true, the free slot each profile would take now (an addition to the spec).'),
  }),
  async handler(input, ctx) {
    const { db } = ctx.app.store
    const now = ctx.app.clock.now()
    const workspaceId = ctx.workspace.id
    const connections = ctx.knownConnections ?? (await loadConnectionInfos(db, workspaceId))
    const chosen = selectConnections(input, connections).chosen.map((c) => c.connection)
    const creators = await readCreatorOptions(ctx.app, workspaceId, chosen)
    const plan = planPost({ ...input, tiktokCreators: creators }, connections)
    const mastodon = ctx.app.adapters.mastodon
    refreshStaleInstances(
      ctx.app,
      connectsThroughInstances(mastodon) ? mastodon : undefined,
      plan.targets
        .filter((t) => t.connection.platform === 'mastodon')
        .map((t) => hostOfProfile(t.connection.profileId)),
    )
    const blockers = [...plan.blockers, ...mediaHostBlockers(ctx.app.config, plan.targets)]
    const warnings: string[] = []
    const { sendsAt, queueSlots } = await sendTimes(input, ctx, plan, now, blockers)
    const duplicates = await duplicateFindings(
      db,
      workspaceId,
      plan.targets,
      (connectionId) => sendsAt.get(connectionId) ?? now,
    )
    blockers.push(...duplicates.blockers)
    warnings.push(...duplicates.warnings)
    const waits = ctx.workspace.role === 'editor' && (await requiresApproval(db, workspaceId))
    if (waits)
      warnings.push(
        "Approvals are on in this workspace: the post waits for an owner's approval before it goes out, and its credits are charged when it is approved",
      )
    await collectBlocker(blockers, () =>
      refuseUnfetchableMedia(plan.targets.flatMap(targetMediaToFetch), ctx.app.config, (url) =>
        ctx.app.media.isHostedUrl(url),
      ),
    )
    const media = await checkMedia(ctx.app.media, plan.targets)
    blockers.push(...media.blockers, ...videoLengthBlockers(plan.targets, creators, media.videoMs))
    const balance = await currentBalance(db, ctx.workspace.id)
    // A post that waits for approval is paid when it is approved: the balance then is what counts.
    if (plan.cost > balance && waits)
      warnings.push(
        `The post costs ${plan.cost} credits and the workspace has ${balance} now; approving it needs that balance`,
      )
    else if (plan.cost > balance)
      blockers.push(`The post costs ${plan.cost} credits and the workspace has ${balance}`)
    return {
      ok: blockers.length === 0,
      characterCount: plan.characterCount,
      resolvedTargets: plan.targets.map((t) => ({
        platform: t.connection.platform,
        profileId: t.connection.profileId,
        username: t.connection.username,
      })),
      unknownTargets: plan.unknownTargets,
      limits: plan.limits,
      credits: { cost: plan.cost, balance, remainingAfter: balance - plan.cost },
      blockers,
      warnings: [
        ...plan.warnings,
        ...media.warnings,
        ...(await allowanceWarnings(ctx.app, ctx.workspace.id, plan.targets)),
        ...appLimitWarnings(ctx.app, plan.targets),
        ...warnings,
      ],
      ...(plan.mediaCount !== undefined
        ? { mediaCount: plan.mediaCount, mediaSetLimits: plan.mediaSetLimits }
        : {}),
      ...(input.queue ? { queueSlots } : {}),
    }
  },
})

type PreflightInput = z.output<typeof preflightInput>

/** Runs a rule that throws an AppError to refuse, collecting its message as a blocker instead. */
async function collectBlocker(blockers: string[], rule: () => unknown) {
  try {
    await rule()
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    blockers.push(error.message)
  }
}

/**
 * When each target would go out: its queue slot, the given slot, or now (absent from the map). What stops
 * a slot (a queue and a slot both, no free queue time, a slot in the past) is added to the blockers.
 */
async function sendTimes(
  input: PreflightInput,
  ctx: ToolContext,
  plan: Plan,
  now: number,
  blockers: string[],
) {
  const sendsAt = new Map<string, number>()
  // The spec's own request (content and targets only) has no schedule: a schedule is checked when given.
  const scheduled =
    input.publishImmediately || input.scheduleDate !== undefined || input.scheduleTime !== undefined
  let queueSlots: Array<{
    platform: (typeof networks)[number]
    profileId: string
    scheduleDate: string
    scheduleTime: string
    timezone: string
  }> = []
  if (input.queue) {
    if (scheduled) blockers.push(QUEUE_OR_SLOT)
    const preview = await previewQueueSlots(
      ctx.app.store.db,
      ctx.workspace.id,
      plan.targets.map((t) => t.connection),
      now,
    )
    blockers.push(...preview.blockers)
    queueSlots = plan.targets.flatMap((t) => {
      const opening = preview.slots.get(t.connection.id)
      if (!opening) return []
      sendsAt.set(t.connection.id, opening.dueAt)
      return [
        {
          platform: t.connection.platform,
          profileId: t.connection.profileId,
          scheduleDate: opening.date,
          scheduleTime: opening.time,
          timezone: opening.timezone,
        },
      ]
    })
  } else if (scheduled) {
    await collectBlocker(blockers, () => {
      const schedule = resolveCreateSchedule(input, now)
      for (const t of plan.targets) sendsAt.set(t.connection.id, schedule.dueAt)
    })
  }
  return { sendsAt, queueSlots }
}
