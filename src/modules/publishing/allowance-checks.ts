import { PublishFailure } from '../../adapters/adapter.js'
import type { PlannedTarget } from '../../core/post-plan.js'
import type { AppContext } from '../app-context.js'
import { openCredentials } from '../connections/credentials.js'

/** Warn when this share of a profile's rolling publishing allowance is used (or less than 3 posts remain). */
const NEARLY_USED = 0.9
const FEW_LEFT = 3

/**
 * Preflight's look at each target profile's publishing allowance where the network reports one
 * (Instagram's 100 posts per rolling 24 hours): a warning when it is nearly or wholly used, so the owner
 * knows the post may wait. Reading it is best effort: a profile whose allowance cannot be read now adds
 * nothing (publishing reads it again and waits out a full allowance).
 */
export async function allowanceWarnings(
  app: AppContext,
  workspaceId: string,
  targets: PlannedTarget[],
): Promise<string[]> {
  const warnings: string[] = []
  for (const target of targets) {
    const adapter = app.adapters[target.connection.platform]
    if (!adapter?.publishingAllowance || target.connection.status !== 'active') continue
    const row = await app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', target.connection.id)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst()
    if (!row) continue
    const who = `${target.connection.platform} @${target.connection.username}`
    try {
      const credentials = await openCredentials(
        { db: app.store.db, vault: app.vault, now: () => app.clock.now() },
        row,
      )
      const profile = {
        profileId: row.profile_id,
        username: row.username,
        name: row.name,
        isOrganization: row.is_organization === 1,
      }
      const allowance = await adapter.publishingAllowance({ credentials, profile })
      if (!allowance) continue
      const left = Math.max(0, allowance.total - allowance.used)
      if (left === 0)
        warnings.push(
          `${who}: the ${allowance.total}-post allowance for the last ${allowance.windowHours} hours is used up; the post waits until it frees up`,
        )
      else if (allowance.used >= allowance.total * NEARLY_USED || left < FEW_LEFT)
        warnings.push(
          `${who}: ${allowance.used} of ${allowance.total} posts allowed in ${allowance.windowHours} hours are used; ${left} left`,
        )
    } catch (error) {
      if (!(error instanceof PublishFailure)) throw error
      app.logger.info(
        { subsystem: 'preflight', network: target.connection.platform, kind: error.kind },
        'publishing allowance could not be read',
      )
    }
  }
  return warnings
}
