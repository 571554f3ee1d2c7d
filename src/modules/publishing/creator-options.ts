import { PublishFailure } from '../../adapters/adapter.js'
import type { ConnectionInfo, PlannedTarget } from '../../core/post-plan.js'
import type { TikTokCreator } from '../../core/tiktok-rules.js'
import type { AppContext } from '../app-context.js'
import { usableCredentials } from '../connections/credentials.js'

/**
 * What preflight_post and create_post ask the networks that say, per creator, what a post may choose and
 * require it to be chosen (TikTok's creator info: the privacy levels this creator may use, the switches
 * they turned off, the longest video they may post). Read through each adapter's `creatorOptions` for the
 * profiles a request targets, best effort: a profile whose options cannot be read now is left out (the
 * post plan then names every level TikTok has, and the send asks again and honours the answer).
 */
export async function readCreatorOptions(
  app: AppContext,
  workspaceId: string,
  connections: readonly ConnectionInfo[],
): Promise<Map<string, TikTokCreator>> {
  const found = new Map<string, TikTokCreator>()
  for (const connection of connections) {
    const adapter = app.adapters[connection.platform]
    if (!adapter?.creatorOptions || connection.status !== 'active') continue
    const row = await app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connection.id)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst()
    if (!row) continue
    try {
      // TikTok's access tokens last hours: refreshed here as the worker would, under the refresh lease.
      const credentials = await usableCredentials(
        {
          db: app.store.db,
          vault: app.vault,
          now: () => app.clock.now(),
          currentAdapter: (network) => app.networkApps.adapterFor(network),
        },
        adapter,
        row,
      )
      const profile = {
        profileId: row.profile_id,
        username: row.username,
        name: row.name,
        isOrganization: false,
      }
      found.set(connection.id, await adapter.creatorOptions({ credentials, profile }))
    } catch (error) {
      if (!(error instanceof PublishFailure)) throw error
      app.logger.info(
        { subsystem: 'preflight', network: connection.platform, kind: error.kind },
        'creator options could not be read',
      )
    }
  }
  return found
}

/** A video longer than its creator may post (the probe's length against the creator's maximum). */
export function videoLengthBlockers(
  targets: readonly PlannedTarget[],
  creators: ReadonlyMap<string, TikTokCreator>,
  videoMs: ReadonlyMap<string, number>,
): string[] {
  const blockers: string[] = []
  for (const target of targets) {
    const creator = creators.get(target.connection.id)
    if (!creator || target.tiktok?.sendAsDraft) continue
    for (const url of target.mediaUrls) {
      const ms = videoMs.get(`${target.connection.platform} ${url}`)
      if (ms !== undefined && ms / 1000 > creator.maxVideoSeconds)
        blockers.push(
          `${target.connection.platform} @${target.connection.username}: the video is ${Math.round(ms / 1000)} s; @${creator.username} may post at most ${creator.maxVideoSeconds} s`,
        )
    }
  }
  return blockers
}

/** Each target's network app limit (TikTok before its audit), as one warning per target. */
export function appLimitWarnings(app: AppContext, targets: readonly PlannedTarget[]): string[] {
  return targets.flatMap((target) => {
    const limit = app.adapters[target.connection.platform]?.appLimit
    return limit ? [`${target.connection.platform} @${target.connection.username}: ${limit}`] : []
  })
}
