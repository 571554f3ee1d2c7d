import type { Db, Store } from '../db.js'

/**
 * A workspace and every row Herald holds for it, deleted in one transaction: posts, their targets, events and
 * webhook deliveries, connections (their sealed tokens with them), readings, queues, imports, the ledger,
 * invitations, sessions and API keys that act there, OAuth grants made for it, hosted media rows and the
 * memberships. The people stay (they may belong to other workspaces). Refused while one of its targets is
 * being sent, so no send in flight loses the row it must settle.
 */

export type DeletionResult =
  | {
      deleted: true
      connections: Array<{ id: string; platform: string; username: string }>
      mediaKeys: string[]
      posts: number
    }
  | { deleted: false; reason: 'not_found' | 'sending'; sending?: number }

export async function deleteWorkspaceRows(
  store: Store,
  workspaceId: string,
  now: number,
): Promise<DeletionResult> {
  return store.db.transaction().execute(async (tx) => {
    // Postgres: the workspace row locked, so no claim of its targets settles between the check and the delete
    // (SQLite's write transaction holds the whole database).
    let find = tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId)
    if (store.dialect === 'postgres') find = find.forUpdate()
    const workspace = await find.executeTakeFirst()
    if (!workspace) return { deleted: false, reason: 'not_found' } as const
    const sending = await sendingCount(tx, workspaceId, now)
    if (sending > 0) return { deleted: false, reason: 'sending', sending } as const
    const connections = await tx
      .selectFrom('connections')
      .select(['id', 'platform', 'username'])
      .where('workspace_id', '=', workspaceId)
      .execute()
    const media = await tx
      .selectFrom('media')
      .select('storage_key')
      .where('workspace_id', '=', workspaceId)
      .execute()
    const posts = await tx
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow()
    const endpoints = tx.selectFrom('webhook_endpoints').select('id').where('workspace_id', '=', workspaceId)
    const targets = tx.selectFrom('targets').select('id').where('workspace_id', '=', workspaceId)
    const grants = tx.selectFrom('oauth_grants').select('id').where('workspace_id', '=', workspaceId)
    await tx.deleteFrom('webhook_attempts').where('endpoint_id', 'in', endpoints).execute()
    await tx.deleteFrom('webhook_deliveries').where('workspace_id', '=', workspaceId).execute()
    await tx.deleteFrom('media_uses').where('target_id', 'in', targets).execute()
    await tx.deleteFrom('oauth_artifacts').where('grant_id', 'in', grants).execute()
    await tx.deleteFrom('api_keys').where('default_workspace_id', '=', workspaceId).execute()
    for (const table of WORKSPACE_TABLES)
      await tx.deleteFrom(table).where('workspace_id', '=', workspaceId).execute()
    await tx.deleteFrom('workspaces').where('id', '=', workspaceId).execute()
    return {
      deleted: true,
      connections,
      mediaKeys: media.map((m) => m.storage_key),
      posts: Number(posts.n),
    } as const
  })
}

/** How many of the workspace's targets a worker holds a live lease on (being sent right now). */
async function sendingCount(db: Db, workspaceId: string, now: number): Promise<number> {
  const sending = await db
    .selectFrom('targets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'pending')
    .where('lease_expires_at', '>', now)
    .executeTakeFirstOrThrow()
  return Number(sending.n)
}

/**
 * What must be known before a workspace is deleted, read outside the deletion's transaction: whether a send
 * is in flight (checked again inside it), and each connection with its sealed tokens, which are revoked at
 * the networks first because the deletion takes them away.
 */
export async function workspaceBeforeDeletion(db: Db, workspaceId: string, now: number) {
  const connections = await db
    .selectFrom('connections')
    .select(['id', 'platform', 'username', 'credentials'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return { sending: await sendingCount(db, workspaceId, now), connections }
}

/** The tables with a `workspace_id`, children before the rows they point at. */
const WORKSPACE_TABLES = [
  'events',
  'webhook_endpoints',
  'analytics_readings',
  'targets',
  'posts',
  'post_counts',
  'paid_surcharges',
  'import_rows',
  'csv_uploads',
  'idempotency_keys',
  'posting_queues',
  'credit_ledger',
  'invitations',
  'pending_grants',
  'oauth_states',
  'oauth_grants',
  'sessions',
  'connections',
  'media',
  'memberships',
] as const
