import { sql } from 'kysely'
import { DISABLE_AFTER_FAILING_MS, type EventType, nextAttemptAt } from '../../../core/webhook-events.js'
import { newId } from '../../ids.js'
import type { Db, Store } from '../db.js'
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../schema.js'
import { writeTransaction } from '../write-transaction.js'
import { pendingDelivery, recordEvent, subscribes } from './events.js'

/**
 * Webhook endpoints and the delivery queue. A delivery is one (event, endpoint) pair; the worker claims it
 * with a lease (like targets), and only the lease holder records an attempt's outcome.
 */

export type EndpointRow = WebhookEndpointsTable
export type DeliveryRow = WebhookDeliveriesTable

/**
 * Whether the delivery loop has anything to do: an event not yet fanned out, or a delivery due now that no
 * live lease holds. One read, without the write lock, so an idle loop's poll costs a single short query.
 */
export async function outboxWaiting(db: Db, now: number): Promise<{ events: boolean; deliveries: boolean }> {
  const { rows } = await sql<{ event: unknown; delivery: unknown }>`
    SELECT
      (SELECT seq FROM events WHERE fanned_out = 0 LIMIT 1) AS event,
      (SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= ${now}
          AND (lease_owner IS NULL OR lease_expires_at < ${now})
        LIMIT 1) AS delivery`.execute(db)
  const row = rows[0]
  return { events: row?.event != null, deliveries: row?.delivery != null }
}

/**
 * On Postgres events are written with their deliveries (src/platform/db/statements/events.ts); there this pass only fans out
 * those written by an older version. On SQLite it fans out every event.
 */

/** Any constant: Postgres serialises fan-out with this transaction-scoped advisory lock. */
const FAN_OUT_LOCK = 250_012

/**
 * Turns events not yet fanned out into one pending delivery per enabled endpoint subscribed to their type,
 * in one transaction. Serialised across workers, so the deliveries of one post are created in event order.
 * Returns how many events it handled.
 */
export async function fanOutEvents(store: Store, now: number, limit = 500): Promise<number> {
  // The delivery loop calls this only when `outboxWaiting` (a look without the write lock) saw events.
  return writeTransaction(store, async (tx) => {
    if (store.dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${FAN_OUT_LOCK})`.execute(tx)
    const events = await tx
      .selectFrom('events')
      .select(['seq', 'id', 'workspace_id', 'type', 'order_key'])
      // A literal, so SQLite uses the partial index (a bound value would not match its predicate).
      .where(sql<boolean>`fanned_out = 0`)
      .orderBy('seq')
      .limit(limit)
      .execute()
    if (events.length === 0) return 0
    const workspaces = [...new Set(events.map((e) => e.workspace_id))]
    const endpoints = await tx
      .selectFrom('webhook_endpoints')
      .select(['id', 'workspace_id', 'event_types'])
      .where('workspace_id', 'in', workspaces)
      .where('enabled', '=', 1)
      .execute()
    const rows: DeliveryRow[] = []
    for (const event of events)
      for (const endpoint of endpoints)
        if (endpoint.workspace_id === event.workspace_id && subscribes(endpoint.event_types, event.type))
          rows.push(pendingDelivery(event, endpoint.id, now))
    for (let i = 0; i < rows.length; i += 500)
      await tx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500))
        .execute()
    await tx
      .updateTable('events')
      .set({ fanned_out: 1 })
      .where(
        'seq',
        'in',
        events.map((e) => e.seq),
      )
      .execute()
    return events.length
  })
}

export interface ClaimedDelivery {
  id: string
  eventId: string
  eventType: string
  endpointId: string
  attempts: number
  url: string
  /** The body to send, unless the event was written as a `snapshot` to render it from. */
  payload: string
  snapshot: string | null
  /** Sealed secrets to sign with (each with its column): the current one, and the previous one while its
   * overlap lasts. */
  secrets: Array<{ column: 'secret' | 'previous_secret'; sealed: string }>
  createdAt: number
}

export interface ClaimDeliveriesInput {
  workerId: string
  now: number
  leaseMs: number
  limit: number
  /** Endpoints that already have as many deliveries in flight here as they may. */
  busyEndpoints: string[]
  /**
   * At most this many deliveries in flight per endpoint (with `inFlight`, those already under way here):
   * the claim takes no more for an endpoint than it may start, so none is claimed only to be released.
   */
  perEndpoint?: number
  inFlight?: Record<string, number>
}

/**
 * Claims due deliveries with a lease. A delivery waits while an earlier event of the same post is still
 * pending for its endpoint (causal order per post), and while its endpoint is disabled. A lease that ran
 * out (its worker died mid-call) is claimable again: delivery is at least once.
 */
export async function claimDeliveries(store: Store, input: ClaimDeliveriesInput): Promise<ClaimedDelivery[]> {
  const { workerId, now, leaseMs, limit } = input
  if (limit <= 0) return []
  const postgres = store.dialect === 'postgres'
  const busy =
    input.busyEndpoints.length > 0 ? sql`AND d.endpoint_id NOT IN (${sql.join(input.busyEndpoints)})` : sql``
  // Disabled endpoints are left out by a list (read once), not a join: a join on the endpoint would let
  // the planner walk all of that endpoint's pending deliveries, where the due index reads only those due.
  const candidates = sql`
      SELECT d.id, d.endpoint_id, d.event_seq, d.next_attempt_at FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}
        AND (d.lease_owner IS NULL OR d.lease_expires_at < ${now})
        AND d.endpoint_id NOT IN (SELECT e.id FROM webhook_endpoints e WHERE e.enabled = 0)
        ${busy}
        AND (d.order_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM webhook_deliveries p
          WHERE p.endpoint_id = d.endpoint_id AND p.order_key = d.order_key
            AND p.status = 'pending' AND p.event_seq < d.event_seq))
      ORDER BY d.next_attempt_at, d.event_seq
      LIMIT ${limit}
      ${postgres ? sql`FOR UPDATE OF d SKIP LOCKED` : sql``}`
  // Of the first `limit` candidates, each endpoint's earliest, as many as it has room for here.
  const held = Object.entries(input.inFlight ?? {}).filter(([, n]) => n > 0)
  const most = sql.lit(Math.floor(input.perEndpoint ?? limit))
  const room =
    held.length === 0
      ? most
      : sql`${most} - CASE c.endpoint_id ${sql.join(
          held.map(([endpoint, n]) => sql`WHEN ${endpoint} THEN ${sql.lit(Math.floor(n))}`),
          sql` `,
        )} ELSE 0 END`
  const chosen =
    input.perEndpoint === undefined
      ? candidates
      : sql`SELECT w.id FROM (
          SELECT c.id, c.event_seq,
            ROW_NUMBER() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.event_seq) AS rn,
            ${room} AS room
          FROM (${candidates}) c) w
        WHERE w.rn <= w.room`
  // The lease, and with it what the delivery needs of its event and endpoint: one statement. Postgres
  // joins the event and the endpoint once per delivery; SQLite's RETURNING cannot name joined tables.
  const claimPostgres = (db: Db) =>
    sql<ClaimedRow>`
    UPDATE webhook_deliveries dl SET lease_owner = ${workerId}, lease_expires_at = ${now + leaseMs}
      FROM events ev, webhook_endpoints ep
    WHERE dl.id IN (SELECT chosen.id FROM (${chosen}) chosen)
      AND ev.id = dl.event_id AND ep.id = dl.endpoint_id
    RETURNING dl.id, dl.event_id, dl.endpoint_id, dl.event_seq, dl.attempts, ev.type AS event_type, ev.payload,
      CASE WHEN ev.snapshot LIKE '@%'
        THEN (SELECT first.snapshot FROM events first WHERE first.id = substr(ev.snapshot, 2))
        ELSE ev.snapshot END AS snapshot,
      ev.created_at AS event_created_at, ep.url, ep.secret, ep.previous_secret,
      ep.previous_secret_until`.execute(db)
  const claim = (db: Db) =>
    sql<ClaimedRow>`
    UPDATE webhook_deliveries SET lease_owner = ${workerId}, lease_expires_at = ${now + leaseMs}
    WHERE id IN (SELECT chosen.id FROM (${chosen}) chosen)
    RETURNING id, event_id, endpoint_id, event_seq, attempts,
      (SELECT ev.type FROM events ev WHERE ev.id = webhook_deliveries.event_id) AS event_type,
      (SELECT ev.payload FROM events ev WHERE ev.id = webhook_deliveries.event_id) AS payload,
      (SELECT CASE WHEN ev.snapshot LIKE '@%'
                THEN (SELECT first.snapshot FROM events first WHERE first.id = substr(ev.snapshot, 2))
                ELSE ev.snapshot END
         FROM events ev WHERE ev.id = webhook_deliveries.event_id) AS snapshot,
      (SELECT ev.created_at FROM events ev WHERE ev.id = webhook_deliveries.event_id) AS event_created_at,
      (SELECT ep.url FROM webhook_endpoints ep WHERE ep.id = webhook_deliveries.endpoint_id) AS url,
      (SELECT ep.secret FROM webhook_endpoints ep WHERE ep.id = webhook_deliveries.endpoint_id) AS secret,
      (SELECT ep.previous_secret FROM webhook_endpoints ep WHERE ep.id = webhook_deliveries.endpoint_id)
        AS previous_secret,
      (SELECT ep.previous_secret_until FROM webhook_endpoints ep WHERE ep.id = webhook_deliveries.endpoint_id)
        AS previous_secret_until`.execute(db)
  const claimed = postgres
    ? (await claimPostgres(store.db)).rows
    : await writeTransaction(store, async (tx) => (await claim(tx)).rows)
  return claimed
    .sort((a, b) => Number(a.event_seq) - Number(b.event_seq))
    .map((d) => {
      const previous =
        d.previous_secret && Number(d.previous_secret_until ?? 0) > now
          ? [{ column: 'previous_secret' as const, sealed: d.previous_secret }]
          : []
      return {
        id: d.id,
        eventId: d.event_id,
        eventType: d.event_type,
        endpointId: d.endpoint_id,
        attempts: Number(d.attempts),
        url: d.url,
        payload: d.payload,
        snapshot: d.snapshot,
        secrets: [{ column: 'secret' as const, sealed: d.secret }, ...previous],
        createdAt: Number(d.event_created_at),
      }
    })
}

interface ClaimedRow {
  id: string
  event_id: string
  endpoint_id: string
  event_seq: number
  attempts: number
  event_type: string
  payload: string
  snapshot: string | null
  event_created_at: number
  url: string
  secret: string
  previous_secret: string | null
  previous_secret_until: number | null
}

export interface AttemptResult {
  /** The HTTP status, or null when no answer came (refused, timed out, reset). */
  statusCode: number | null
  latencyMs: number
  /** The start of the response body, or what went wrong; never a secret. */
  excerpt: string
}

/** Postgres text cannot hold a NUL: an answer with one would keep its attempt from ever being recorded. */
const storable = (excerpt: string) => excerpt.replaceAll('\u0000', '\ufffd')

export type AttemptVerdict = 'delivered' | 'failed' | 'gave_up' | 'gone' | 'lease_lost'

/**
 * Records one attempt of a claimed delivery, only while `workerId` holds its lease: a 2xx delivers it;
 * 410 disables the endpoint at once; anything else schedules the next attempt (or gives up after the
 * last). An endpoint failing for three days is disabled, and an `endpoint.disabled` event goes to the
 * workspace's other endpoints, in the same transaction.
 */
export async function recordAttempt(
  store: Store,
  input: { delivery: ClaimedDelivery; workerId: string; now: number; result: AttemptResult },
): Promise<AttemptVerdict> {
  const { delivery, workerId, now, result } = input
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
  const gone = result.statusCode === 410
  const attempts = delivery.attempts + 1
  const retryAt = ok || gone ? undefined : nextAttemptAt(attempts, now)
  const verdict: AttemptVerdict = ok
    ? 'delivered'
    : gone
      ? 'gone'
      : retryAt === undefined
        ? 'gave_up'
        : 'failed'
  return writeTransaction(store, async (tx) => {
    const updated = await tx
      .updateTable('webhook_deliveries')
      .set({
        status: verdict === 'delivered' ? 'delivered' : verdict === 'failed' ? 'pending' : 'failed',
        attempts,
        next_attempt_at: retryAt ?? now,
        delivered_at: ok ? now : null,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('id', '=', delivery.id)
      .where('lease_owner', '=', workerId)
      .returning(['order_key', 'event_seq'])
      .executeTakeFirst()
    if (!updated) return 'lease_lost'
    // The post's later events wait for this one (causal order): they are not due before its retry either,
    // so the loop's look for due deliveries does not read them again and again while the receiver is down.
    if (retryAt !== undefined && updated.order_key !== null)
      await tx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: retryAt })
        .where('endpoint_id', '=', delivery.endpointId)
        .where('order_key', '=', updated.order_key)
        .where(sql<boolean>`status = 'pending'`)
        .where('event_seq', '>', updated.event_seq)
        .where('next_attempt_at', '<', retryAt)
        .execute()
    await tx
      .insertInto('webhook_attempts')
      .values({
        id: newId(now),
        delivery_id: delivery.id,
        endpoint_id: delivery.endpointId,
        event_id: delivery.eventId,
        event_type: delivery.eventType,
        attempted_at: now,
        status_code: result.statusCode,
        latency_ms: Math.max(0, Math.round(result.latencyMs)),
        outcome: verdict,
        response_excerpt: storable(result.excerpt),
      })
      .execute()
    if (ok) {
      await tx
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', '=', delivery.endpointId)
        .where('failing_since', 'is not', null)
        .execute()
      return verdict
    }
    const endpoint = await tx
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', delivery.endpointId)
      .executeTakeFirst()
    if (endpoint?.enabled !== 1) return verdict
    const failingSince = endpoint.failing_since === null ? now : Number(endpoint.failing_since)
    const reason = gone
      ? 'The receiver answered 410 Gone.'
      : now - failingSince >= DISABLE_AFTER_FAILING_MS
        ? 'Every delivery failed for 3 days.'
        : undefined
    if (!reason) {
      if (endpoint.failing_since === null)
        await tx
          .updateTable('webhook_endpoints')
          .set({ failing_since: now })
          .where('id', '=', endpoint.id)
          .execute()
      return verdict
    }
    await disableEndpoint(tx, endpoint, reason, now)
    return verdict
  })
}

/**
 * Records the 2xx answers of many claimed deliveries in one transaction (the delivery loop batches those
 * that finish together): each is delivered only while `workerId` still holds its lease, exactly as
 * {@link recordAttempt} records one. Returns the ids recorded; the rest lost their lease meanwhile.
 */
export async function recordDelivered(
  store: Store,
  input: {
    workerId: string
    now: number
    items: Array<{ delivery: ClaimedDelivery; result: AttemptResult }>
  },
): Promise<Set<string>> {
  const { workerId, now, items } = input
  if (items.length === 0) return new Set()
  if (store.pgPool && items.length <= 200) return recordDeliveredPostgres(store.pgPool, input)
  return writeTransaction(store, async (tx) => {
    const kept = new Set<string>()
    for (let i = 0; i < items.length; i += 200) {
      const rows = await tx
        .updateTable('webhook_deliveries')
        .set({
          status: 'delivered',
          attempts: sql`attempts + 1`,
          next_attempt_at: now,
          delivered_at: now,
          lease_owner: null,
          lease_expires_at: null,
        })
        .where(
          'id',
          'in',
          items.slice(i, i + 200).map((item) => item.delivery.id),
        )
        .where('lease_owner', '=', workerId)
        .returning('id')
        .execute()
      for (const row of rows) kept.add(row.id)
    }
    const recorded = items.filter((item) => kept.has(item.delivery.id))
    for (let i = 0; i < recorded.length; i += 100)
      await tx
        .insertInto('webhook_attempts')
        .values(
          recorded.slice(i, i + 100).map(({ delivery, result }) => ({
            id: newId(now),
            delivery_id: delivery.id,
            endpoint_id: delivery.endpointId,
            event_id: delivery.eventId,
            event_type: delivery.eventType,
            attempted_at: now,
            status_code: result.statusCode,
            latency_ms: Math.max(0, Math.round(result.latencyMs)),
            outcome: 'delivered',
            response_excerpt: storable(result.excerpt),
          })),
        )
        .execute()
    const endpoints = [...new Set(recorded.map((item) => item.delivery.endpointId))]
    if (endpoints.length > 0)
      await tx
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', 'in', endpoints)
        .where('failing_since', 'is not', null)
        .execute()
    return kept
  })
}

/**
 * {@link recordDelivered} on Postgres in one statement (one round trip, atomic on its own): the deliveries
 * under this worker's lease turn delivered, their attempts are logged, and their endpoints stop failing.
 * The attempts travel as one JSON parameter, so the statement is prepared once per connection.
 */
async function recordDeliveredPostgres(
  pool: NonNullable<Store['pgPool']>,
  input: Parameters<typeof recordDelivered>[1],
): Promise<Set<string>> {
  const { workerId, now, items } = input
  const attempts = items.map(({ delivery, result }) => ({
    id: newId(now),
    delivery_id: delivery.id,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status_code: result.statusCode,
    latency_ms: Math.max(0, Math.round(result.latencyMs)),
    response_excerpt: storable(result.excerpt),
  }))
  const { rows } = await pool.query<{ id: string }>({
    name: 'herald_webhook_delivered',
    text: `
      WITH done AS (
        UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, next_attempt_at = $2,
          delivered_at = $2, lease_owner = NULL, lease_expires_at = NULL
         WHERE id = ANY($3::text[]) AND lease_owner = $1
        RETURNING id, endpoint_id),
      logged AS (
        INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, event_id, event_type, attempted_at,
          status_code, latency_ms, outcome, response_excerpt)
        SELECT a.id, a.delivery_id, a.endpoint_id, a.event_id, a.event_type, $2, a.status_code, a.latency_ms,
          'delivered', a.response_excerpt
          FROM json_to_recordset($4::json) AS a(id text, delivery_id text, endpoint_id text, event_id text,
            event_type text, status_code int, latency_ms int, response_excerpt text)
          JOIN done ON done.id = a.delivery_id),
      healed AS (
        UPDATE webhook_endpoints SET failing_since = NULL
         WHERE id IN (SELECT endpoint_id FROM done) AND failing_since IS NOT NULL)
      SELECT id FROM done`,
    values: [workerId, now, items.map((item) => item.delivery.id), JSON.stringify(attempts)],
  })
  return new Set(rows.map((row) => row.id))
}

async function disableEndpoint(tx: Db, endpoint: EndpointRow, reason: string, now: number) {
  await tx
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: reason, disabled_at: now, failing_since: null, updated_at: now })
    .where('id', '=', endpoint.id)
    .execute()
  await recordEvent(tx, {
    workspaceId: endpoint.workspace_id,
    type: 'endpoint.disabled',
    data: { endpoint: { id: endpoint.id, url: endpoint.url, description: endpoint.description }, reason },
    ids: { endpointId: endpoint.id },
    now,
  })
}

/** Deliveries waiting (pending, not given up), the `herald_webhook_events_pending` gauge. */
export async function countPendingDeliveries(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql<boolean>`status = 'pending'`)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function countDisabledEndpoints(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('enabled', '=', 0)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Re-arms every claimable delivery a worker still holds but never started (it is stopping). */
export async function releaseDeliveries(store: Store, workerId: string, ids: string[]) {
  if (ids.length === 0) return
  await store.db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('id', 'in', ids)
    .where('lease_owner', '=', workerId)
    .execute()
}

export type { EventType }
