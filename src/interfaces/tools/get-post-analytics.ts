import { z } from 'zod'
import { type PostMetricsReading, PublishFailure } from '../../adapters/adapter.js'
import type { Network } from '../../core/networks.js'
import { hasNumbers, neverReports, postReadingOf, readError } from '../../modules/analytics/readings.js'
import {
  type PostSummary,
  postSummarySchema,
  postTargetAnalyticsSchema,
  refreshReportSchema,
} from '../../modules/analytics/schemas.js'
import type { AppContext } from '../../modules/app-context.js'
import { callWithCredentials } from '../../modules/connections/authorized-call.js'
import { requirePost } from '../../modules/publishing/load.js'
import {
  insertReading,
  latestPostReadings,
  type NewReading,
  type ReadingRow,
} from '../../platform/db/statements/analytics.js'
import { type ConnectionRow, findConnection } from '../../platform/db/statements/connections.js'
import { charge, currentBalance } from '../../platform/db/statements/credits.js'
import { type TargetRow, targetsOf } from '../../platform/db/statements/posts.js'
import { AppError } from '../../platform/errors.js'
import { postIdField } from './get-post.js'
import { creditsCharged, defineTool, type ToolContext, toolInput } from './tool.js'

/** What one refresh call costs (DESIGN.md credits table), charged only when a network was read. */
export const ANALYTICS_REFRESH_PRICE = 1

/** A refresh spends credits, so an OAuth token needs `posts:write` for it (src/modules/oauth-server/scopes.ts). */
export const refreshSpends = (args: Readonly<Record<string, unknown>>) =>
  args.refresh === true ? 'refresh: true' : undefined

const output = z.object({
  id: z.string().describe('Post id.'),
  content: z.string().describe('Text body of the post.'),
  publishedAt: z
    .string()
    .nullable()
    .describe('When the post was first published (ISO 8601); null when it was not.'),
  fetchedAt: z
    .string()
    .nullable()
    .describe('The latest reading of any of its profiles (ISO 8601); null when none was read.'),
  totals: postSummarySchema.describe(
    'Figures summed over the profiles that have numbers (never across unread ones); a figure no profile reports is null.',
  ),
  measured: z.number().int().describe('Profiles with numbers.'),
  measurable: z
    .number()
    .int()
    .describe(
      'Profiles that could report: published, connected, on a network whose analytics this Herald reads, and not unavailable.',
    ),
  targets: z
    .array(postTargetAnalyticsSchema)
    .describe('One entry per profile the post targets, with its latest reading.'),
  notes: z
    .array(z.string())
    .describe('Why a profile has no numbers: never read, unavailable, not published, or its error.'),
  refresh: refreshReportSchema.optional().describe('With refresh: what was read now.'),
  credits: creditsCharged
    .optional()
    .describe('With refresh: 1 credit when at least one network was read, 0 when none could be.'),
})

const summaryKeys = Object.keys(postSummarySchema.shape) as (keyof PostSummary)[]

export const getPostAnalytics = defineTool({
  name: 'get_post_analytics',
  title: 'Get post analytics',
  description:
    'Post metrics per profile. Without refresh: the stored reading of each profile, free, with when it was read or that it never was. With refresh: every profile the post was published to is read from its network now, for 1 credit per call (charged only when at least one network is read; 402 when the balance cannot pay it). A profile with unavailable: true never reports; LinkedIn answers only for organization pages. An error that mentions reconnecting means the owner must reconnect the profile.',
  access: 'read',
  spendsWith: refreshSpends,
  category: 'Analytics',
  input: toolInput({
    id: postIdField,
    refresh: z
      .boolean()
      .default(false)
      .describe(
        'True reads every published profile from its network now, for 1 credit (an OAuth token needs the posts:write scope for it); false (default) returns the stored readings for free.',
      ),
  }),
  output,
  async handler(input, ctx) {
    const { app, workspace } = ctx
    const db = app.store.db
    const post = await requirePost(db, workspace.id, input.id)
    const targets = await targetsOf(db, [post.id])
    const connectionIds = [...new Set(targets.map((t) => t.connection_id))]
    const connections = new Map(
      connectionIds.length === 0
        ? []
        : (await db.selectFrom('connections').selectAll().where('id', 'in', connectionIds).execute()).map(
            (row) => [row.id, row],
          ),
    )
    const skipReason = (target: TargetRow) => skipReasonOf(app, target, connections.get(target.connection_id))
    const refreshed = input.refresh
      ? await refreshReadings(ctx, post.id, targets, connections, skipReason)
      : {}
    const latest = await latestPostReadings(
      db,
      targets.map((t) => t.id),
    )
    const summary = summarize(targets, connections, latest, skipReason)
    return {
      id: post.id,
      content: post.content,
      publishedAt: post.published_at === null ? null : new Date(Number(post.published_at)).toISOString(),
      fetchedAt: summary.fetchedAt === null ? null : new Date(summary.fetchedAt).toISOString(),
      totals: summary.totals,
      measured: summary.measured,
      measurable: summary.measurable,
      targets: summary.views,
      notes: summary.notes,
      ...(refreshed.refresh ? { refresh: refreshed.refresh } : {}),
      ...(refreshed.credits ? { credits: refreshed.credits } : {}),
    }
  },
})

type Connections = Map<string, ConnectionRow>
type RefreshReport = z.infer<typeof refreshReportSchema>

/** Why a target cannot be read at all (it is then skipped, and not measurable). */
function skipReasonOf(app: AppContext, target: TargetRow, connection: ConnectionRow | undefined) {
  const never = neverReports(target.platform, connection)
  if (never) return never
  if (target.status !== 'published' || !target.remote_id) return `not published (${target.status})`
  if (!app.adapters[target.platform as Network])
    return `this Herald does not read ${target.platform} analytics (no ${target.platform} adapter)`
  if (!connection || connection.status === 'removed') return 'the profile is no longer connected'
  return undefined
}

/** Reads every readable target from its network, then charges and stores the readings in one transaction. */
async function refreshReadings(
  ctx: ToolContext,
  postId: string,
  targets: TargetRow[],
  connections: Connections,
  skipReason: (target: TargetRow) => string | undefined,
): Promise<{ refresh?: RefreshReport; credits?: { charged: number; remaining: number } }> {
  const { app, workspace } = ctx
  const db = app.store.db
  const due = targets.filter((t) => !skipReason(t))
  const report: RefreshReport = { read: 0, skipped: targets.length - due.length, failed: 0, errors: [] }
  const live = due.filter((t) => connections.get(t.connection_id)?.status === 'active')
  // Refused before any network is read: a call that cannot be paid changes nothing.
  if (live.length > 0 && (await currentBalance(db, workspace.id)) < ANALYTICS_REFRESH_PRICE) {
    throw new AppError(
      'insufficient_credits',
      `Refreshing analytics costs ${ANALYTICS_REFRESH_PRICE} credit and the workspace has none left; the stored readings are free (refresh: false).`,
      { required: ANALYTICS_REFRESH_PRICE, balance: await currentBalance(db, workspace.id) },
    )
  }
  const readings: NewReading[] = []
  let networkCalls = 0
  for (const target of due) {
    const platform = target.platform as Network
    // Read the row afresh: an earlier read of the same profile may have rotated its tokens.
    const connection =
      (await findConnection(db, target.connection_id)) ?? connections.get(target.connection_id)!
    if (connection.status === 'active') networkCalls++
    const reading = await readTarget(app, target, connection)
    readings.push(newReading(workspace.id, target, reading, app.clock.now()))
    if (reading.error) {
      report.failed++
      report.errors.push({
        platform,
        profileId: target.profile_id,
        username: target.username,
        error: reading.error,
      })
    } else report.read++
  }
  const price = networkCalls > 0 ? ANALYTICS_REFRESH_PRICE : 0
  // The charge and the readings it paid for commit together; a balance spent meanwhile is a 402 and
  // stores nothing.
  const remaining = await db.transaction().execute(async (tx) => {
    const balance = await charge(
      tx,
      { workspaceId: workspace.id, amount: price, reason: 'post_analytics', reference: postId },
      app.clock.now(),
    )
    for (const reading of readings) await insertReading(tx, reading)
    return balance
  })
  return { refresh: report, credits: { charged: price, remaining } }
}

/** One target's metrics from its network; a failed read is a reading that carries its error. */
async function readTarget(
  app: AppContext,
  target: TargetRow,
  connection: ConnectionRow,
): Promise<PostMetricsReading> {
  const platform = target.platform as Network
  const adapter = app.adapters[platform]!
  try {
    return await callWithCredentials(
      {
        db: app.store.db,
        vault: app.vault,
        now: () => app.clock.now(),
        currentAdapter: (network) => app.networkApps.adapterFor(network),
      },
      adapter,
      connection,
      (credentials) =>
        adapter.postMetrics({
          credentials,
          profile: {
            profileId: connection.profile_id,
            username: connection.username,
            name: connection.name,
            isOrganization: connection.is_organization === 1,
          },
          remoteId: target.remote_id!,
        }),
    )
  } catch (error) {
    if (!(error instanceof PublishFailure))
      app.logger.error({ err: error, targetId: target.id, platform }, 'post metrics read failed unexpectedly')
    return { summary: {} as PostSummary, metrics: {}, source: platform, error: readError(error) }
  }
}

function newReading(
  workspaceId: string,
  target: TargetRow,
  reading: PostMetricsReading,
  fetchedAt: number,
): NewReading {
  return {
    workspaceId,
    kind: 'post',
    targetId: target.id,
    connectionId: target.connection_id,
    fetchedAt,
    summary: Object.fromEntries(summaryKeys.map((key) => [key, reading.summary[key] ?? null])),
    metrics: reading.metrics,
    window: null,
    source: reading.source,
    error: reading.error ?? '',
    unavailable: reading.unavailable ?? false,
  }
}

/** Each target's latest reading, the totals over those with numbers, and a note for each without. */
function summarize(
  targets: TargetRow[],
  connections: Connections,
  latest: Map<string, ReadingRow>,
  skipReason: (target: TargetRow) => string | undefined,
) {
  const notes: string[] = []
  const totals = Object.fromEntries(summaryKeys.map((key) => [key, null])) as PostSummary
  let measured = 0
  let measurable = 0
  let fetchedAt: number | null = null
  const views = targets.map((target) => {
    const never = neverReports(target.platform, connections.get(target.connection_id))
    const row = latest.get(target.id)
    const analytics = postReadingOf(row, Boolean(never))
    if (row) fetchedAt = Math.max(fetchedAt ?? 0, Number(row.fetched_at))
    const skip = skipReason(target)
    if (!skip && !analytics.unavailable) measurable++
    if (!analytics.unavailable && hasNumbers(analytics.summary)) {
      measured++
      for (const key of summaryKeys) {
        const value = analytics.summary[key]
        if (value !== null) totals[key] = (totals[key] ?? 0) + value
      }
    } else notes.push(`${target.platform} @${target.username}: ${whyNoNumbers(skip, analytics, row)}`)
    return {
      platform: target.platform as Network,
      profileId: target.profile_id,
      username: target.username,
      url: target.url,
      analytics,
    }
  })
  return { notes, totals, measured, measurable, fetchedAt: fetchedAt as number | null, views }
}

function whyNoNumbers(
  skip: string | undefined,
  analytics: ReturnType<typeof postReadingOf>,
  row: ReadingRow | undefined,
): string {
  if (skip) return `${skip}.`
  if (analytics.unavailable) return 'the network says this profile will never report.'
  if (analytics.error) return `${analytics.error}.`
  if (!row) return `never read; call with refresh: true to read it (${ANALYTICS_REFRESH_PRICE} credit).`
  return 'the network reported no figures.'
}
