import { EventEmitter } from 'node:events'
import type pg from 'pg'
import type { EventType } from '../domain/webhook-events.js'
import { MAX_PAYLOAD_BYTES } from '../domain/webhook-events.js'
import { newId } from '../lib/ids.js'
import { compiledOnce } from './compiled.js'
import type { Db } from './db.js'

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
  now: number
}

export interface EventEnvelope {
  id: string
  type: EventType
  timestamp: string
  workspaceId: string
  data: Record<string, unknown>
}

/** The JSON body receivers get; cut down to the ids (with `truncated: true`) past 20 KB. */
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
  return JSON.stringify({ ...envelope, data: { ...(input.ids ?? {}), truncated: true } })
}

const recorded = new EventEmitter()
recorded.setMaxListeners(0)

/**
 * Listens for events written in this process (the delivery loop looks at the outbox at once instead of
 * at its next poll). Told while the writing transaction may still be open: a listener looks again shortly
 * after (src/webhooks/delivery-worker.ts). Returns the function that stops listening.
 */
export function onEventRecorded(listener: () => void): () => void {
  recorded.on('recorded', listener)
  return () => recorded.off('recorded', listener)
}

/**
 * Whether any enabled endpoint of the workspace may want its events, read in the caller's transaction. A
 * busy path (a settle) asks first and writes nothing for a workspace without one: the fan-out would turn
 * such an event into no delivery, and writing it cost a third of the worker's publish rate.
 */
export async function eventsWanted(tx: Db, workspaceId: string): Promise<boolean> {
  const { rows } = await enabledEndpointQuery(tx, workspaceId)
  return rows.length > 0
}

const enabledEndpointQuery = compiledOnce(1, (db: Db, workspaceId: string) =>
  db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('enabled', '=', 1)
    .limit(1),
)

/** Writes one event into the outbox inside the caller's transaction; returns its id. */
export async function recordEvent(tx: Db, input: EventInput): Promise<string> {
  const id = newId(input.now)
  await insertEvent(
    tx,
    id,
    input.workspaceId,
    input.type,
    input.orderKey ?? null,
    eventBody(id, input),
    input.now,
  )
  recorded.emit('recorded')
  return id
}

const insertEvent = compiledOnce(
  6,
  (
    db: Db,
    id: string,
    workspaceId: string,
    type: EventType,
    orderKey: string | null,
    payload: string,
    now: number,
  ) =>
    db.insertInto('events').values({
      id,
      workspace_id: workspaceId,
      type,
      order_key: orderKey,
      payload,
      fanned_out: 0,
      created_at: now,
    }),
)

/**
 * {@link recordEvent} for several events at once, on a Postgres client inside its open transaction (the
 * settle's raw statements): one prepared insert, rows in the given order (so their `seq` follows it).
 */
export async function recordEventsOn(client: pg.ClientBase, inputs: EventInput[]): Promise<string[]> {
  if (inputs.length === 0) return []
  const ids = inputs.map((input) => newId(input.now))
  const rows = inputs.map(
    (_, i) => `($${i * 6 + 1}, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}, $${i * 6 + 5}, 0, $${i * 6 + 6})`,
  )
  await client.query({
    name: `herald_events_insert_${inputs.length}`,
    text: `INSERT INTO events (id, workspace_id, type, order_key, payload, fanned_out, created_at) VALUES ${rows.join(', ')}`,
    values: inputs.flatMap((input, i) => [
      ids[i],
      input.workspaceId,
      input.type,
      input.orderKey ?? null,
      eventBody(ids[i] as string, input),
      input.now,
    ]),
  })
  recorded.emit('recorded')
  return ids
}
