import { PostgresAdapter, sql } from 'kysely'
import { conflict, notFound } from '../../errors.js'
import type { Db, Store } from '../db.js'
import { writeTransaction } from '../write-transaction.js'
import { announceEvents, pendingDelivery, recordEvent } from './events.js'
import type { EndpointRow } from './webhooks.js'

/** The management side of webhook endpoints. Every read and change is scoped by workspace. */

export async function insertEndpoint(
  db: Db,
  row: Omit<
    EndpointRow,
    'previous_secret' | 'previous_secret_until' | 'failing_since' | 'disabled_reason' | 'disabled_at'
  >,
) {
  await db
    .insertInto('webhook_endpoints')
    .values({
      ...row,
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      disabled_reason: null,
      disabled_at: null,
    })
    .execute()
}

export function listEndpointRows(db: Db, workspaceId: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute()
}

/** The endpoint, or a 404. `forUpdate`: locked until the caller's transaction ends (Postgres; SQLite's
 * write transaction already holds the database). */
export async function findEndpointRow(
  db: Db,
  workspaceId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<EndpointRow> {
  const query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
  const locked = options.forUpdate && db.getExecutor().adapter instanceof PostgresAdapter
  const row = await (locked ? query.forUpdate() : query).executeTakeFirst()
  if (!row) throw notFound(`Webhook endpoint ${id} not found`)
  return row
}

export async function updateEndpointRow(
  db: Db,
  workspaceId: string,
  id: string,
  changes: Partial<Pick<EndpointRow, 'url' | 'description' | 'event_types' | 'enabled'>>,
  now: number,
) {
  // Only turning a disabled endpoint back on clears its failure record: saving an enabled one (a form sends
  // enabled with every save) must not restart the three days after which a failing endpoint is disabled.
  const whenDisabled = <T>(column: string) =>
    sql<T>`CASE WHEN enabled = 0 THEN NULL ELSE ${sql.ref(column)} END`
  const reenabled =
    changes.enabled === 1
      ? {
          disabled_reason: whenDisabled<string | null>('disabled_reason'),
          disabled_at: whenDisabled<number | null>('disabled_at'),
          failing_since: whenDisabled<number | null>('failing_since'),
        }
      : {}
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ ...changes, ...reenabled, updated_at: now })
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) === 0) throw notFound(`Webhook endpoint ${id} not found`)
}

export async function deleteEndpointRow(db: Db, workspaceId: string, id: string) {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst()
  if (Number(result.numDeletedRows) === 0) throw notFound(`Webhook endpoint ${id} not found`)
}

/**
 * The new secret signs from now on; the one it replaces keeps signing too until `overlapUntil`. A rotation
 * while an overlap is still running replaces only the new secret: the secret in use before that overlap
 * began (what a receiver that has not switched yet holds) keeps signing until the overlap's own end, and
 * the secret in between, shown once and rotated away again, stops at once.
 */
export async function rotateEndpointSecret(
  store: Store,
  workspaceId: string,
  id: string,
  /** The sealed new secret, and the current one re-sealed for `previous_secret`. */
  seal: (currentSealed: string) => { secret: string; previous: string | null },
  overlapUntil: number,
  now: number,
) {
  await writeTransaction(store, async (tx) => {
    // Locked: two rotations at once decide one after the other whether an overlap is running.
    const row = await findEndpointRow(tx, workspaceId, id, { forUpdate: true })
    const sealed = seal(row.secret)
    const overlapping = row.previous_secret !== null && Number(row.previous_secret_until ?? 0) > now
    await tx
      .updateTable('webhook_endpoints')
      .set({
        secret: sealed.secret,
        ...(overlapping
          ? {}
          : {
              previous_secret: sealed.previous,
              previous_secret_until: sealed.previous === null ? null : overlapUntil,
            }),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute()
  })
}

/** A `webhook.test` event and its one delivery, to this endpoint only. */
export async function recordTestEvent(store: Store, workspaceId: string, id: string, now: number) {
  return writeTransaction(store, async (tx) => {
    const endpoint = await findEndpointRow(tx, workspaceId, id)
    if (endpoint.enabled !== 1)
      throw conflict('This endpoint is disabled; enable it before sending a test event')
    const eventId = await recordEvent(tx, {
      workspaceId,
      type: 'webhook.test',
      data: { endpoint: { id: endpoint.id, url: endpoint.url }, message: 'A test event from Herald.' },
      now,
    })
    const event = await tx
      .selectFrom('events')
      .select(['seq', 'id', 'workspace_id', 'order_key'])
      .where('id', '=', eventId)
      .executeTakeFirstOrThrow()
    // The fan-out skips test events: their one delivery is made here.
    await tx.updateTable('events').set({ fanned_out: 1 }).where('id', '=', eventId).execute()
    await tx
      .insertInto('webhook_deliveries')
      .values(pendingDelivery({ ...event, seq: Number(event.seq) }, id, now))
      .execute()
    // No subscriber took it, so recordEvent woke no one: the delivery loop looks now, not at its next poll.
    announceEvents()
    return eventId
  })
}

/** The latest attempts to one endpoint, newest first. */
export function listAttemptRows(db: Db, endpointId: string, limit: number) {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('attempted_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}

/**
 * Sends an event to an endpoint again, with the same `webhook-id`: its delivery is armed afresh (a new
 * attempt budget). A delivery still waiting is left as it is. An event of another workspace is not found.
 */
export async function redeliverEvent(
  store: Store,
  workspaceId: string,
  endpointId: string,
  eventId: string,
  now: number,
) {
  return writeTransaction(store, async (tx) => {
    await findEndpointRow(tx, workspaceId, endpointId)
    let query = tx
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', '=', eventId)
      .where('endpoint_id', '=', endpointId)
      .where('workspace_id', '=', workspaceId)
    // Locked, so the retention sweep cannot delete it between this read and the re-arming below.
    if (store.dialect === 'postgres') query = query.forUpdate()
    const delivery = await query.executeTakeFirst()
    if (!delivery) throw notFound(`Event ${eventId} was not sent to this endpoint`)
    if (delivery.status === 'pending') throw conflict('This event is still waiting to be delivered')
    await tx
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('id', '=', delivery.id)
      .execute()
    return { eventId, endpointId, status: 'pending' as const }
  })
}

/** The balance under which a charge sends credits.low; null turns it off. */
export async function setCreditsLowThreshold(db: Db, workspaceId: string, threshold: number | null) {
  await db
    .updateTable('workspaces')
    .set({ credits_low_threshold: threshold })
    .where('id', '=', workspaceId)
    .execute()
}

export async function creditsLowThreshold(db: Db, workspaceId: string): Promise<number | null> {
  const row = await db
    .selectFrom('workspaces')
    .select('credits_low_threshold')
    .where('id', '=', workspaceId)
    .executeTakeFirst()
  return row?.credits_low_threshold == null ? null : Number(row.credits_low_threshold)
}
