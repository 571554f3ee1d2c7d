import { z } from 'zod'
import { RESET_MESSAGE, settledStatus } from '../../core/post-status.js'
import { type ResetStep, resetStep } from '../../core/reset-rules.js'
import { recordToolSettleEvents } from '../../modules/outbox/settle-events.js'
import { who } from '../../modules/publishing/edit-guards.js'
import { postView } from '../../modules/publishing/load.js'
import { isStuck } from '../../modules/publishing/present.js'
import { postViewSchema } from '../../modules/publishing/schemas.js'
import type { Db } from '../../platform/db/db.js'
import { leaseNow, readLeaseNow } from '../../platform/db/lease-clock.js'
import {
  confirmStuckTarget,
  releaseStuckTargets,
  returnToLookup,
  targetStatuses,
} from '../../platform/db/statements/post-changes.js'
import type { TargetRow } from '../../platform/db/statements/posts.js'
import { updatePostRow } from '../../platform/db/statements/posts.js'
import { recordHistory } from '../../platform/db/statements/target-history.js'
import { lockPostForChange, writeTransaction } from '../../platform/db/write-transaction.js'
import { conflict, invalid } from '../../platform/errors.js'
import { postIdField } from './get-post.js'
import { defineTool, type ToolContext, toolInput } from './tool.js'

const LOOKUP_MESSAGE = (network: string) =>
  `Herald is looking for the post on ${network} before anything is sent again: found, it is marked published; not found, it is sent again.`

export const resetStuckPost = defineTool({
  name: 'reset_stuck_post',
  title: 'Reset stuck post',
  description:
    'Release a post stuck mid-publish (its worker stopped during a send, so the outcome is unknown). Where the network can be asked, Herald looks the post up again and sends it only if it is not there. Where a lookup could not tell, say what you see on the profile: onNetwork false marks the profile failed for publish_post_now to send again; onNetwork true (with the postId the network shows) records it as published. A post that is not stuck is a 409.',
  access: 'write',
  category: 'Publishing',
  input: toolInput({
    id: postIdField,
    onNetwork: z
      .boolean()
      .optional()
      .describe(
        'What you saw on the profile: true, the post (or the thread item or comment in doubt) is there; false, it is not. Leave it out to let Herald look.',
      ),
    postId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "With onNetwork true: the id the network gave what you saw (as a profile's postId shows it).",
      ),
    url: z.string().url().max(2000).optional().describe('With onNetwork true: its address on the network.'),
    profileId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('With onNetwork: the stuck profile it is about, when more than one is stuck.'),
  }),
  output: z.object({
    success: z.boolean().describe('True when the post was released.'),
    message: z.string().describe('What happened.'),
    post: postViewSchema.describe('The post after the reset.'),
  }),
  async handler(input, ctx) {
    const { store } = ctx.app
    const now = ctx.app.clock.now()
    checkWordFields(input)
    const { post, message } = await writeTransaction(store, async (tx) => {
      const { post, targets } = await lockPostForChange(tx, store, ctx.workspace.id, input.id)
      // Only leases that ran out are released; a live worker's lease is never stolen. Whether one ran out
      // is read on the lease clock (the database's), never this process's.
      const leaseAt = await readLeaseNow(tx, store.dialect, ctx.app.leaseClock())
      const stuck = chosenTargets(
        targets.filter((t) => isStuck(t, leaseAt)),
        input,
      )
      if (stuck.length === 0)
        throw conflict('The post is not stuck: no send of it was interrupted', { status: post.status })
      const steps = stuck.map((target) => ({ target, step: stepFor(ctx, target, input.onNetwork) }))
      const { message, published } = await carryOut(tx, ctx, steps, input, now)
      const after = await targetStatuses(tx, post.id)
      await updatePostRow(tx, post.id, {
        status: settledStatus(after) ?? 'processing',
        last_error: message,
        updated_at: now,
      })
      // A reset reports as a settle would: each target it settled, then the post once all are settled.
      await recordToolSettleEvents(tx, post.id, idsOf(steps, 'release'), 'target.failed', now)
      await recordToolSettleEvents(tx, post.id, published, 'target.published', now)
      return { post, message }
    })
    return { success: true, message, post: await postView(store.db, ctx.workspace.id, post.id, now) }
  },
})

type Input = { onNetwork?: boolean | undefined; postId?: string | undefined; url?: string | undefined }
type Planned = { target: TargetRow; step: ResetStep }

/** postId and url say what the person saw: they belong with onNetwork true, and a confirmation needs the id. */
function checkWordFields(input: Input & { profileId?: string | undefined }) {
  if (input.onNetwork !== true && (input.postId !== undefined || input.url !== undefined))
    throw invalid('postId and url go with onNetwork: true (what you saw on the profile)')
  if (input.onNetwork === true && input.postId === undefined)
    throw invalid(
      'onNetwork: true needs postId, the id the network gave the post you saw (Herald replies under it and reads its analytics)',
    )
  if (input.onNetwork === undefined && input.profileId !== undefined)
    throw invalid('profileId goes with onNetwork (which stuck profile your word is about)')
}

/** The stuck targets a reset acts on: all of them, or the one profile the person's word is about. */
function chosenTargets(stuck: TargetRow[], input: Input & { profileId?: string | undefined }) {
  if (input.onNetwork === undefined) return stuck
  if (input.profileId !== undefined) {
    const chosen = stuck.filter((t) => t.profile_id === input.profileId)
    if (chosen.length === 0) throw conflict(`The profile ${input.profileId} of this post is not stuck`)
    return chosen
  }
  if (stuck.length > 1)
    throw conflict(
      `Several profiles of this post are stuck (${stuck.map(who).join(', ')}): say which one you checked with profileId`,
    )
  return stuck
}

function stepFor(ctx: ToolContext, target: TargetRow, onNetwork: boolean | undefined): ResetStep {
  const adapter = ctx.app.adapters[target.platform as keyof typeof ctx.app.adapters]
  return resetStep(target, Boolean(adapter?.findPublished), onNetwork)
}

/**
 * Writes each target's step, in the transaction; a target that needs the person's word refuses the reset.
 * Answers what to tell the caller and the targets it settled as published (a confirmed one with nothing left
 * to send).
 */
async function carryOut(tx: Db, ctx: ToolContext, steps: Planned[], input: Input, now: number) {
  const asked = steps.filter((s) => s.step.kind === 'ask')
  if (asked.length > 0)
    throw conflict(
      `Herald could not tell whether ${asked.map((s) => who(s.target)).join(', ')} holds this post: check the profile, then reset again with onNetwork false (it is not there: it is marked failed, for publish_post_now to send again) or onNetwork true with the postId you see there`,
      { reasons: asked.map((s) => (s.step.kind === 'ask' ? s.step.why : '')) },
    )
  const published: string[] = []
  for (const { target, step } of steps) {
    if (step.kind === 'look')
      await returnToLookup(tx, [target.id], {
        message: LOOKUP_MESSAGE(who(target)),
        now,
        dueFrom: leaseNow(ctx.app.store.dialect, ctx.app.leaseClock()),
        delayMs: ctx.app.config.worker.unknownOutcomeCheckMs,
      })
    else if (step.kind === 'release')
      await releaseStuckTargets(tx, [target.id], RESET_MESSAGE, now, step.keepsMark)
    else if (step.kind === 'confirm') {
      const status = await confirmStuckTarget(tx, target, {
        remoteId: input.postId as string,
        url: input.url,
        now,
      })
      if (status === 'published') published.push(target.id)
    }
  }
  // Each profile's history says what the person's reset did to it, committed with it.
  await recordHistory(
    tx,
    now,
    steps.flatMap(({ target, step }) =>
      step.kind === 'ask'
        ? []
        : [{ targetId: target.id, entry: { kind: 'reset', result: step.kind } as const }],
    ),
  )
  return { message: resetMessage(steps), published }
}

function resetMessage(steps: Planned[]): string {
  const kinds = new Set(steps.map((s) => s.step.kind))
  if (kinds.has('confirm'))
    return 'Recorded as on the network: nothing is sent again; any thread items or comments left go out next'
  if (kinds.has('release'))
    return kinds.has('look')
      ? 'Released: Herald looks up the profiles it can ask before sending anything; the others are marked failed, retry them with publish_post_now'
      : 'Released: the interrupted profiles are marked failed; retry them with publish_post_now'
  return 'Released: Herald looks for the post on the network first; found, it is marked published, not found, it is sent again'
}

const idsOf = (steps: Planned[], kind: ResetStep['kind']) =>
  steps.filter((s) => s.step.kind === kind).map((s) => s.target.id)
