import { z } from 'zod'
import { type ProfileMetricsReading, PublishFailure } from '../../adapters/adapter.js'
import type { Network } from '../../core/networks.js'
import { neverReports, profileReadingOf, readError } from '../../modules/analytics/readings.js'
import { profileReadingSchema } from '../../modules/analytics/schemas.js'
import type { AppContext } from '../../modules/app-context.js'
import { callWithCredentials } from '../../modules/connections/authorized-call.js'
import { networkSchema } from '../../modules/publishing/schemas.js'
import { insertReading, latestProfileReading } from '../../platform/db/statements/analytics.js'
import type { ConnectionRow } from '../../platform/db/statements/connections.js'
import { charge, currentBalance } from '../../platform/db/statements/credits.js'
import { AppError, notFound } from '../../platform/errors.js'
import { ANALYTICS_REFRESH_PRICE, refreshSpends } from './get-post-analytics.js'
import { creditsCharged, defineTool, type ToolContext, toolInput } from './tool.js'

export const getProfileAnalytics = defineTool({
  name: 'get_profile_analytics',
  title: 'Get profile analytics',
  description:
    "One connected profile's followers, following, post count and views. refresh: false (default) returns the stored reading for free; true reads the network now for 1 credit (charged only when the network is read; 402 when the balance cannot pay it). Readings are never added up across profiles. LinkedIn answers only for organization pages.",
  access: 'read',
  spendsWith: refreshSpends,
  category: 'Analytics',
  input: toolInput({
    platform: networkSchema,
    profileId: z.string().min(1).max(200).describe('Profile id, from get_connected_accounts.'),
    refresh: z
      .boolean()
      .default(false)
      .describe(
        'True reads the network now for 1 credit (an OAuth token needs the posts:write scope for it); false (default) returns the stored reading for free.',
      ),
  }),
  output: z.object({
    platform: networkSchema,
    profileId: z.string().describe('Profile id.'),
    username: z.string().describe('Handle.'),
    name: z.string().describe('Display name.'),
    isOrganization: z.boolean().describe('True for a company page, organization or channel.'),
    analytics: profileReadingSchema,
    note: z
      .string()
      .describe(
        'Why there are no numbers (never read, unavailable, needs reconnecting); empty when there are.',
      ),
    message: z.string().describe('What this call did.'),
    credits: creditsCharged
      .optional()
      .describe('With refresh: 1 credit when the network was read, 0 when it could not be.'),
  }),
  async handler(input, ctx) {
    const { app, workspace } = ctx
    const db = app.store.db
    // A profile of another workspace, or one disconnected, does not exist for this caller.
    const connection = await db
      .selectFrom('connections')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .where('platform', '=', input.platform)
      .where('profile_id', '=', input.profileId)
      .where('status', '!=', 'removed')
      .executeTakeFirst()
    if (!connection)
      throw notFound(`No connected ${input.platform} profile ${input.profileId} in this workspace`)
    const platform = input.platform as Network
    const never = neverReports(platform, connection)
    const cannotRead =
      never ??
      (app.adapters[platform]
        ? undefined
        : `this Herald does not read ${platform} analytics (no ${platform} adapter)`)

    const refreshed = input.refresh ? await refreshProfile(ctx, connection, platform, cannotRead) : undefined
    let message = refreshed?.message ?? 'The stored reading (free).'
    const row = await latestProfileReading(db, connection.id)
    const analytics = profileReadingOf(row, Boolean(never))
    const note = never
      ? `${never}.`
      : cannotRead
        ? `${cannotRead}.`
        : analytics.error
          ? analytics.error
          : !row
            ? `Never read; call with refresh: true to read it (${ANALYTICS_REFRESH_PRICE} credit).`
            : ''
    if (!input.refresh && !row) message = 'No reading is stored for this profile yet.'
    return {
      platform,
      profileId: connection.profile_id,
      username: connection.username,
      name: connection.name,
      isOrganization: connection.is_organization === 1,
      analytics,
      note,
      message,
      ...(refreshed ? { credits: refreshed.credits } : {}),
    }
  },
})

type TimedReading = ProfileMetricsReading & { fetchedAt: number }

/** Reads the profile now when it can be read, then charges and stores the reading in one transaction. */
async function refreshProfile(
  ctx: ToolContext,
  connection: ConnectionRow,
  platform: Network,
  cannotRead: string | undefined,
): Promise<{ message: string; credits: { charged: number; remaining: number } }> {
  const { app, workspace } = ctx
  const db = app.store.db
  let outcome: { price: number; reading: TimedReading | undefined; message: string }
  if (cannotRead) outcome = { price: 0, reading: undefined, message: `Nothing was read: ${cannotRead}.` }
  else if (connection.status !== 'active') {
    const lost = new PublishFailure(
      'auth_expired',
      `The profile needs to be reconnected: ${connection.last_error ?? 'authorisation lost'}`,
    )
    outcome = {
      price: 0,
      reading: failedReading(platform, lost, app.clock.now()),
      message: 'Nothing was read: the profile needs to be reconnected.',
    }
  } else {
    if ((await currentBalance(db, workspace.id)) < ANALYTICS_REFRESH_PRICE) {
      throw new AppError(
        'insufficient_credits',
        `Refreshing analytics costs ${ANALYTICS_REFRESH_PRICE} credit and the workspace has none left; the stored reading is free (refresh: false).`,
        { required: ANALYTICS_REFRESH_PRICE, balance: await currentBalance(db, workspace.id) },
      )
    }
    outcome = { price: ANALYTICS_REFRESH_PRICE, ...(await readProfile(app, connection, platform)) }
  }
  const { price, reading } = outcome
  const remaining = await db.transaction().execute(async (tx) => {
    const balance = await charge(
      tx,
      { workspaceId: workspace.id, amount: price, reason: 'profile_analytics', reference: connection.id },
      app.clock.now(),
    )
    if (reading) {
      await insertReading(tx, {
        workspaceId: workspace.id,
        kind: 'profile',
        targetId: null,
        connectionId: connection.id,
        fetchedAt: reading.fetchedAt,
        summary: reading.summary,
        metrics: reading.metrics,
        window: reading.window,
        source: reading.source,
        error: reading.error ?? '',
        unavailable: reading.unavailable ?? false,
      })
    }
    return balance
  })
  return { message: outcome.message, credits: { charged: price, remaining } }
}

/** The profile's metrics from its network; a failed read is a reading that carries its error. */
async function readProfile(
  app: AppContext,
  connection: ConnectionRow,
  platform: Network,
): Promise<{ reading: TimedReading; message: string }> {
  const adapter = app.adapters[platform]!
  try {
    const read = await callWithCredentials(
      {
        db: app.store.db,
        vault: app.vault,
        now: () => app.clock.now(),
        currentAdapter: (network) => app.networkApps.adapterFor(network),
      },
      adapter,
      connection,
      (credentials) =>
        adapter.profileMetrics({
          credentials,
          profile: {
            profileId: connection.profile_id,
            username: connection.username,
            name: connection.name,
            isOrganization: connection.is_organization === 1,
          },
        }),
    )
    return {
      reading: { ...read, fetchedAt: app.clock.now() },
      message: read.error ? `Read ${platform} now; it reported an error.` : `Read ${platform} now.`,
    }
  } catch (error) {
    if (!(error instanceof PublishFailure))
      app.logger.error({ err: error, platform }, 'profile metrics read failed unexpectedly')
    return {
      reading: failedReading(platform, error, app.clock.now()),
      message: `Reading ${platform} failed.`,
    }
  }
}

function failedReading(platform: Network, error: unknown, fetchedAt: number): TimedReading {
  return {
    summary: { followers: null, following: null, posts: null, views: null },
    metrics: {},
    window: '',
    source: platform,
    error: readError(error),
    fetchedAt,
  }
}
