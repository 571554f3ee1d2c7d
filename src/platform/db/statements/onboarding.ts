import type { Db } from '../db.js'

/**
 * What a workspace's onboarding checklist reads, each from the rows that make it true (never from clicks):
 * a profile connected (and not disconnected), a post that went beyond a draft (or waits for an owner's
 * approval), an API key whose default workspace it is or an app authorized in it (neither revoked), and a
 * webhook endpoint. `closedAt` is set once the required steps were seen done, or an owner dismissed it.
 */
export interface OnboardingState {
  channel: boolean
  post: boolean
  assistant: boolean
  webhook: boolean
  closedAt: number | null
}

export async function onboardingState(db: Db, workspaceId: string): Promise<OnboardingState> {
  const row = await db
    .selectFrom('workspaces as w')
    .select((eb) => [
      'w.onboarding_closed_at as closedAt',
      eb
        .exists(
          eb
            .selectFrom('connections')
            .select('id')
            .where('workspace_id', '=', workspaceId)
            .where('status', '!=', 'removed'),
        )
        .as('channel'),
      eb
        .exists(
          eb
            .selectFrom('posts')
            .select('id')
            .where('workspace_id', '=', workspaceId)
            .where((p) => p.or([p('status', '!=', 'draft'), p('approval', '=', 'pending')])),
        )
        .as('post'),
      eb
        .or([
          eb.exists(
            eb
              .selectFrom('api_keys')
              .select('id')
              .where('default_workspace_id', '=', workspaceId)
              .where('revoked_at', 'is', null),
          ),
          eb.exists(
            eb
              .selectFrom('oauth_grants')
              .select('id')
              .where('workspace_id', '=', workspaceId)
              .where('revoked_at', 'is', null),
          ),
        ])
        .as('assistant'),
      eb
        .exists(eb.selectFrom('webhook_endpoints').select('id').where('workspace_id', '=', workspaceId))
        .as('webhook'),
    ])
    .where('w.id', '=', workspaceId)
    .executeTakeFirstOrThrow()
  // SQLite answers EXISTS with 0 or 1, Postgres with a boolean.
  return {
    channel: Boolean(row.channel),
    post: Boolean(row.post),
    assistant: Boolean(row.assistant),
    webhook: Boolean(row.webhook),
    closedAt: row.closedAt ?? null,
  }
}

/** Closes the checklist for good; the first close wins (a later one changes nothing). */
export async function closeOnboarding(db: Db, workspaceId: string, now: number): Promise<void> {
  await db
    .updateTable('workspaces')
    .set({ onboarding_closed_at: now })
    .where('id', '=', workspaceId)
    .where('onboarding_closed_at', 'is', null)
    .execute()
}
