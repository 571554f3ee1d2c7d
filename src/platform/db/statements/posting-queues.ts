import type { QueueSlot } from '../../../core/posting-queue.js'
import type { Db, Store } from '../db.js'

export interface StoredQueue {
  connectionId: string
  workspaceId: string
  timezone: string
  slots: QueueSlot[]
  updatedAt: number
}

const read = (row: {
  connection_id: string
  workspace_id: string
  timezone: string
  slots: string
  updated_at: number
}): StoredQueue => ({
  connectionId: row.connection_id,
  workspaceId: row.workspace_id,
  timezone: row.timezone,
  slots: JSON.parse(row.slots) as QueueSlot[],
  updatedAt: Number(row.updated_at),
})

/** The posting queues of a workspace, one per profile that has one. */
export async function queuesOf(db: Db, workspaceId: string): Promise<StoredQueue[]> {
  const rows = await db
    .selectFrom('posting_queues')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .execute()
  return rows.map(read)
}

/**
 * The queues of these profiles, read in the caller's transaction. On Postgres the rows are locked until it
 * commits (in id order, so two callers cannot deadlock): two posts asking for a profile's next free slot
 * at once take turns, and the second sees the slot the first took.
 */
export async function lockQueues(
  tx: Db,
  store: Store,
  connectionIds: string[],
): Promise<Map<string, StoredQueue>> {
  if (connectionIds.length === 0) return new Map()
  let query = tx
    .selectFrom('posting_queues')
    .selectAll()
    .where('connection_id', 'in', [...new Set(connectionIds)].sort())
    .orderBy('connection_id')
  if (store.dialect === 'postgres') query = query.forUpdate()
  const rows = await query.execute()
  return new Map(rows.map((row) => [row.connection_id, read(row)]))
}

export async function saveQueue(
  db: Db,
  input: { connectionId: string; workspaceId: string; timezone: string; slots: QueueSlot[] },
  now: number,
) {
  const values = {
    connection_id: input.connectionId,
    workspace_id: input.workspaceId,
    timezone: input.timezone,
    slots: JSON.stringify(input.slots),
    updated_at: now,
  }
  await db
    .insertInto('posting_queues')
    .values(values)
    .onConflict((oc) =>
      oc
        .column('connection_id')
        .doUpdateSet({ timezone: values.timezone, slots: values.slots, updated_at: now }),
    )
    .execute()
}

export async function deleteQueue(db: Db, connectionId: string) {
  await db.deleteFrom('posting_queues').where('connection_id', '=', connectionId).execute()
}

/**
 * The instants in [from, to) at which a profile already has a post: scheduled, being sent, published, or
 * waiting for approval (a pending post keeps the slot it asked for). Drafts and failed posts hold none.
 */
export async function takenInstants(
  db: Db,
  workspaceId: string,
  connectionIds: string[],
  from: number,
  to: number,
): Promise<Map<string, Set<number>>> {
  const taken = new Map<string, Set<number>>(connectionIds.map((id) => [id, new Set<number>()]))
  if (connectionIds.length === 0) return taken
  const rows = await db
    .selectFrom('posts')
    .innerJoin('targets', 'targets.post_id', 'posts.id')
    .select(['targets.connection_id', 'posts.due_at'])
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.due_at', '>=', from)
    .where('posts.due_at', '<', to)
    .where('targets.connection_id', 'in', connectionIds)
    .where((eb) =>
      eb.or([
        eb('posts.status', 'in', ['scheduled', 'processing', 'published']),
        eb('posts.approval', '=', 'pending'),
      ]),
    )
    .execute()
  for (const row of rows) taken.get(row.connection_id)?.add(Number(row.due_at))
  return taken
}
