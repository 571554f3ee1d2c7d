import { EventEmitter } from 'node:events'
import { PostgresAdapter } from 'kysely'
import type { EventType } from '../../../core/webhook-events.js'
import { MAX_PAYLOAD_BYTES } from '../../../core/webhook-events.js'
import { newId } from '../../ids.js'
import { compiledInsertRows, compiledOnce } from '../compiled.js'
import type { Db } from '../db.js'
import type { WebhookDeliveriesTable } from '../schema.js'

/**
 * The outbox. An event is recorded with the `tx` of the change it reports, so it commits, or is rolled
 * back, with that change: a crash can neither report a change that did not happen nor lose one that did.
 * The worker fans each event out to the endpoints subscribed to it and delivers it (src/webhooks).
 */

export interface EventInput {
  workspaceId: string
  type: EventType
  /** Deliveries that share this key (a post id) reach an endpoint in the order they were recorded. */
  orderKey?: string | null
  data: Record<string, unknown>
  /** Ids kept when the data is too large to send whole. */
  ids?: Record<string, string>
  /**
   * What a cut-down body keeps besides the ids: what a receiver acts on (a stuck target's reason and what to
   * do, the statuses), small by construction.
   */
  kept?: Record<string, unknown>
  now: number
}

export interface EventEnvelope {
  id: string
  type: EventType
  timestamp: string
  workspaceId: string
  data: Record<string, unknown>
}

/**
 * The JSON body receivers get. Past 20 KB it is cut down to the ids and what the event keeps for that case
 * (`kept`), with `truncated: true`; should even that be too large, to the ids alone.
 */
export function eventBody(id: string, input: EventInput): string {
  const envelope: EventEnvelope = {
    id,
    type: input.type,
    timestamp: new Date(input.now).toISOString(),
    workspaceId: input.workspaceId,
    data: input.data,
  }
  const body = JSON.stringify(envelope)
  if (Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES) return body
  const ids = input.ids ?? {}
  const cut = JSON.stringify({ ...envelope, data: { ...ids, ...(input.kept ?? {}), truncated: true } })
  if (Buffer.byteLength(cut) <= MAX_PAYLOAD_BYTES) return cut
  return JSON.stringify({ ...envelope, data: { ...ids, truncated: true } })
}

const recorded = new EventEmitter()
recorded.setMaxListeners(0)

/**
 * Listens for events written in this process (the delivery loop looks at the outbox at once instead of
 * at its next poll). Told while the writing transaction may still be open: a listener looks again shortly
 * after (src/modules/outbox/delivery-worker.ts). Returns the function that stops listening.
 */
export function onEventRecorded(listener: () => void): () => void {
  recorded.on('recorded', listener)
  return () => recorded.off('recorded', listener)
}

/** An enabled endpoint of a workspace: its id, and the event types it takes (JSON; empty: every type). */
export interface Subscriber {
  id: string
  eventTypes: string
}

/**
 * The workspace's enabled endpoints, read in the caller's transaction: the endpoints an event recorded in it
 * is delivered to. A busy path (a settle) asks first and writes no event for a workspace without one. On
 * Postgres the rows are key-share locked, so none can be deleted before its deliveries are inserted.
 */
export async function subscribersOf(tx: Db, workspaceId: string): Promise<Subscriber[]> {
  const query = tx.getExecutor().adapter instanceof PostgresAdapter ? subscribersLocked : subscribers
  const { rows } = await query(tx, workspaceId)
  return rows.map((row) => ({ id: row.id, eventTypes: row.event_types }))
}

const enabledEndpoints = (db: Db, workspaceId: string) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'event_types'])
    .where('workspace_id', '=', workspaceId)
    .where('enabled', '=', 1)
    .orderBy('id')
const subscribers = compiledOnce(1, enabledEndpoints)
const subscribersLocked = compiledOnce(1, (db: Db, workspaceId: string) =>
  enabledEndpoints(db, workspaceId).forKeyShare(),
)

/** Whether an endpoint subscribed with these event types (JSON; empty: all but webhook.test) takes `type`. */
export function subscribes(eventTypes: string, type: string): boolean {
  if (type === 'webhook.test') return false
  const types = JSON.parse(eventTypes) as string[]
  return types.length === 0 || types.includes(type)
}

/** A new delivery of an event to one endpoint, due now. */
export function pendingDelivery(
  event: { seq: number; id: string; workspace_id: string; order_key: string | null },
  endpointId: string,
  now: number,
): WebhookDeliveriesTable {
  return {
    id: newId(now),
    event_seq: Number(event.seq),
    event_id: event.id,
    endpoint_id: endpointId,
    workspace_id: event.workspace_id,
    order_key: event.order_key,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_expires_at: null,
    created_at: now,
    delivered_at: null,
  }
}

/**
 * Writes one event into the outbox inside the caller's transaction; returns its id. On Postgres its
 * delivery to each subscribed endpoint (`subscribers` when the caller has read them; otherwise read here)
 * is inserted with it. On SQLite the worker's fan-out pass inserts the deliveries later, many events at a
 * time: there every write holds the one write lock, and a settle that also wrote its deliveries cost the
 * worker a tenth of its publish rate (docs/adr/0018-the-outbox.md; figures in docs/benchmarks.md).
 * `webhook.test` goes to no subscriber: its caller makes its one delivery.
 */
export async function recordEvent(tx: Db, input: EventInput, subscribers?: Subscriber[]): Promise<string> {
  const id = newId(input.now)
  const orderKey = input.orderKey ?? null
  const body = eventBody(id, input)
  if (!(tx.getExecutor().adapter instanceof PostgresAdapter)) {
    await insertEvent(tx, id, input.workspaceId, input.type, orderKey, body, 0, input.now)
    recorded.emit('recorded')
    return id
  }
  const endpoints = (subscribers ?? (await subscribersOf(tx, input.workspaceId))).filter((endpoint) =>
    subscribes(endpoint.eventTypes, input.type),
  )
  const { rows } = await insertEvent(tx, id, input.workspaceId, input.type, orderKey, body, 1, input.now)
  if (endpoints.length === 0) return id
  const event = { seq: Number(rows[0]?.seq), id, workspace_id: input.workspaceId, order_key: orderKey }
  await insertDeliveries(
    tx,
    endpoints.map((endpoint) => pendingDelivery(event, endpoint.id, input.now)),
  )
  recorded.emit('recorded')
  return id
}

const insertDeliveries = compiledInsertRows('webhook_deliveries', [
  'id',
  'event_seq',
  'event_id',
  'endpoint_id',
  'workspace_id',
  'order_key',
  'status',
  'attempts',
  'next_attempt_at',
  'lease_owner',
  'lease_expires_at',
  'created_at',
  'delivered_at',
])

const insertEvent = compiledOnce(
  7,
  (
    db: Db,
    id: string,
    workspaceId: string,
    type: EventType,
    orderKey: string | null,
    payload: string,
    fannedOut: number,
    now: number,
  ) =>
    db
      .insertInto('events')
      .values({
        id,
        workspace_id: workspaceId,
        type,
        order_key: orderKey,
        payload,
        fanned_out: fannedOut,
        created_at: now,
      })
      .returning('seq'),
)

/** What a one-statement outbox write is given: SQL expressions over the statement's own CTEs. */
export interface OutboxWriteSql {
  /** The workspace whose endpoints hear the events. */
  workspaceId: string
  /**
   * The events as rows of `(id, workspace_id, type, order_key, snapshot, n)`: `n` orders them, `snapshot` is
   * what the delivery renders the body from (the payload is left empty, as a fan-out renders it later).
   */
  events: string
  /** When they were recorded (a parameter). */
  now: string
}

/**
 * {@link recordEvent} as common table expressions, for a Postgres statement that makes a change and records
 * its events in the same round trip (the settle's fast path): the workspace's enabled endpoints read
 * `FOR KEY SHARE` (none can be deleted before its deliveries are inserted), the events (none for a
 * workspace without an endpoint, as `recordEvent`'s callers skip them), and one delivery per subscribed
 * endpoint, due at once. Defines `subscribers`, `written` and `delivered`; `delivered` counts the
 * deliveries. The one place besides {@link recordEvent} that knows the outbox's tables, kept beside it.
 */
export function outboxWriteCtes({ workspaceId, events, now }: OutboxWriteSql): string {
  return `
    subscribers AS (
      SELECT e.id, e.event_types FROM webhook_endpoints e
       WHERE e.workspace_id = ${workspaceId} AND e.enabled = 1
       FOR KEY SHARE OF e),
    written AS (
      INSERT INTO events (id, workspace_id, type, order_key, payload, snapshot, fanned_out, created_at)
      SELECT ev.id, ev.workspace_id, ev.type, ev.order_key, '', ev.snapshot, 1, ${now}
        FROM (${events}) AS ev
       WHERE EXISTS (SELECT 1 FROM subscribers)
       ORDER BY ev.n
      RETURNING seq, id, type, workspace_id, order_key),
    delivered AS (
      INSERT INTO webhook_deliveries (id, event_seq, event_id, endpoint_id, workspace_id, order_key, status,
        attempts, next_attempt_at, created_at)
      SELECT substr(written.id, 1, 8) || substr(md5(written.id || s.id), 1, 16), written.seq, written.id, s.id,
             written.workspace_id, written.order_key, 'pending', 0, ${now}, ${now}
        FROM written CROSS JOIN subscribers s
       WHERE jsonb_array_length(s.event_types::jsonb) = 0 OR s.event_types::jsonb @> to_jsonb(written.type)
      RETURNING 1)`
}

/**
 * Wakes this process's delivery loop for events written by a statement of its own (the Postgres settle),
 * not through {@link recordEvent}.
 */
export function announceEvents() {
  recorded.emit('recorded')
}
