import { type QueryResult, type RawBuilder, sql } from 'kysely'
import { type Outcome, type TargetChanges, targetChanges } from '../../core/target-lifecycle.js'
import { postSettledEvent } from '../../core/webhook-events.js'
import { compiledOnce } from '../../platform/db/compiled.js'
import type { Db, Store } from '../../platform/db/db.js'
import {
  announceEvents,
  outboxWriteCtes,
  recordEvent,
  subscribersOf,
} from '../../platform/db/statements/events.js'
import type { PostRow, TargetRow } from '../../platform/db/statements/posts.js'
import { newId } from '../../platform/ids.js'
import { settleEvents, type TargetEventType } from '../outbox/settle-events.js'

export type { Outcome }

export interface SettleInput {
  targetId: string
  postId: string
  workerId: string
  now: number
  outcome: Outcome
  /** True when the post has no other target (known at claim time; a post's targets cannot change while one is leased). */
  onlyTarget?: boolean
  /**
   * Added to the target's send attempts: +1 for a send the claim did not count (it was claimed for a
   * lookup that answered absent), -1 for a claim that turned out to be a rate-limit wait, not an attempt.
   */
  attemptsDelta?: number
}

/** Records an attempt's outcome and re-derives the post's status. Returns false when the lease was lost. */
export async function settleTarget(store: Store, input: SettleInput): Promise<boolean> {
  const { targetId, postId, workerId, now, outcome } = input
  const changes = targetChanges(outcome, now)
  const lastError = outcome.kind === 'published' ? undefined : outcome.error
  // The one-statement path writes no event: only outcomes that keep the target pending take it.
  const quiet = outcome.kind === 'retry' || outcome.kind === 'check'
  if (store.pgPool && input.onlyTarget) {
    // One statement settles the target, its post, and (where an endpoint wants them) its events. When it
    // changes nothing (the lease was lost), the general transaction below decides.
    if (quiet) return settleOnlyTarget(store, input, changes, lastError)
    if (await settleOnlyTargetWithEvents(store, input, changes, lastError)) return true
  }
  return store.db.transaction().execute(async (tx) => {
    // Targets of one post settle one at a time, so the last one sees every sibling's outcome and the post
    // status is derived from all of them (under READ COMMITTED two racing settles would each miss the other).
    // Locks are taken in the one order every writer uses (the post's targets by position, then the post),
    // so a settle and a tool changing the same post wait for each other instead of deadlocking.
    // A post's only target has no sibling to race: its update and the post's, in that order, take the
    // same locks in the same order.
    if (store.dialect === 'postgres' && !input.onlyTarget) {
      await sql`SELECT id FROM targets WHERE post_id = ${postId} ORDER BY position FOR UPDATE`.execute(tx)
      await sql`SELECT id FROM posts WHERE id = ${postId} FOR UPDATE`.execute(tx)
    }
    const target = await updateLeasedTarget(tx, targetId, workerId, changes, input.attemptsDelta ?? 0)
    if (!target) return false
    let post: PostRow | undefined
    if (input.onlyTarget) post = await followOnlyTarget(tx, target, now, lastError)
    else await refreshPostStatus(tx, postId, now, lastError)
    if (!quiet) await recordSettleEvents(tx, target, input, post)
    return true
  })
}

/** The target's update under its lease, compiled once per set of columns (a settle is the worker's hot path). */
const leasedTargetUpdates = new Map<string, (db: Db, ...args: unknown[]) => Promise<QueryResult<TargetRow>>>()

async function updateLeasedTarget(
  tx: Db,
  targetId: string,
  workerId: string,
  changes: TargetChanges,
  attemptsDelta: number,
): Promise<TargetRow | undefined> {
  const columns = Object.keys(changes) as Array<keyof TargetChanges>
  const counted = attemptsDelta !== 0
  const shape = `${columns.join(',')}${counted ? '+attempts' : ''}`
  let update = leasedTargetUpdates.get(shape)
  if (!update) {
    const n = columns.length
    update = compiledOnce(n + 3, (db: Db, ...args: unknown[]) =>
      db
        .updateTable('targets')
        .set({
          ...Object.fromEntries(columns.map((column, i) => [column, args[i]])),
          ...(counted ? { attempts: sql`attempts + ${args[n]}` } : {}),
        })
        .where('id', '=', args[n + 1] as string)
        .where('lease_owner', '=', args[n + 2] as string)
        .returningAll(),
    )
    leasedTargetUpdates.set(shape, update)
  }
  const { rows } = await update(
    tx,
    ...columns.map((column) => changes[column]),
    attemptsDelta,
    targetId,
    workerId,
  )
  return rows[0]
}

/**
 * The events of a settled attempt, in the transaction that records it: the target's own event, then the
 * post's once its last target has settled (so a receiver sees them in that order). None for a workspace
 * with no enabled endpoint: an endpoint hears of the changes made while it is there.
 */
async function recordSettleEvents(tx: Db, target: TargetRow, input: SettleInput, settledPost?: PostRow) {
  const subscribers = await subscribersOf(tx, target.workspace_id)
  if (subscribers.length === 0) return
  const post = settledPost ?? (await postById(tx, target.post_id)).rows[0]
  if (!post) throw new Error(`Post ${target.post_id} of a settled target is missing`)
  const targets =
    targetEventType(input.outcome) === 'target.stuck'
      ? []
      : input.onlyTarget
        ? [target]
        : await tx
            .selectFrom('targets')
            .selectAll()
            .where('post_id', '=', post.id)
            .orderBy('position')
            .execute()
  for (const event of settleEvents(target, post, targets, eventsInput(input)))
    await recordEvent(tx, event, subscribers)
}

const targetEventType = (outcome: Outcome): TargetEventType =>
  outcome.kind === 'published'
    ? 'target.published'
    : outcome.kind === 'failed'
      ? 'target.failed'
      : 'target.stuck'

/** The events input of a settle: its target's event, its time, and why a stuck target is stuck. */
const eventsInput = ({ outcome, now }: SettleInput) => ({
  type: targetEventType(outcome),
  now,
  stuckReason: outcome.kind === 'unknown' ? outcome.error : undefined,
})

const postById = compiledOnce(1, (db: Db, id: string) =>
  db.selectFrom('posts').selectAll().where('id', '=', id),
)

/**
 * Postgres, a post with a single target (create_post makes one post per profile) and an outcome that keeps
 * it pending (retry, check: no event): no sibling can race, so the target and its post change in one
 * statement, one round trip instead of five. It runs as a named statement, which Postgres parses and plans
 * once per connection rather than on every settle.
 */
async function settleOnlyTarget(
  store: Store,
  input: SettleInput,
  changes: TargetChanges,
  lastError: string | undefined,
) {
  const { columns, values, delta, assignments } = targetAssignments(input, changes)
  const n = columns.length
  const text = `
    WITH settled AS (
      UPDATE targets SET ${assignments}
       WHERE id = $${n + 1} AND lease_owner = $${n + 2}
      RETURNING post_id, status, published_at)
    UPDATE posts SET
      status = CASE WHEN settled.status = 'pending' THEN posts.status ELSE settled.status END,
      published_at = settled.published_at,
      last_error = coalesce($${n + 3}::text, posts.last_error),
      updated_at = $${n + 4}
      FROM settled WHERE posts.id = settled.post_id
    RETURNING posts.id`
  const pool = store.pgPool as NonNullable<Store['pgPool']>
  const result = await pool.query({
    name: `herald_settle_${input.outcome.kind}_${columns.length}_${delta}`,
    text,
    values: [...values, input.targetId, input.workerId, lastError ?? null, input.now],
  })
  return (result.rowCount ?? 0) > 0
}

/** The SET list of a target's settle as numbered parameters ($1…$n), for the raw Postgres statements. */
function targetAssignments(input: SettleInput, changes: TargetChanges) {
  const columns = Object.keys(changes)
  const values: unknown[] = Object.values(changes)
  const delta = Math.trunc(input.attemptsDelta ?? 0)
  const assignments = [
    ...columns.map((column, i) => `${column} = $${i + 1}`),
    ...(delta !== 0 ? [`attempts = attempts + (${delta})`] : []),
  ].join(', ')
  return { columns, values, delta, assignments }
}

/**
 * Postgres, a post's only target whose outcome reports events (published, failed, stuck): one statement
 * changes the target and its post and, when the workspace has an enabled endpoint, writes the events and
 * their deliveries, one round trip where a transaction took eight. The events hold a snapshot of the rows
 * as the statement left them (`events.snapshot`): their bodies need JavaScript (the tools' shapes), so the
 * delivery renders them from it (src/modules/outbox/settle-events.ts); the post's event refers to its target
 * event's snapshot rather than storing a second copy. Endpoints are read `FOR KEY SHARE`, so none
 * can be deleted before its deliveries are inserted. Returns false when nothing changed (the lease was lost).
 */
async function settleOnlyTargetWithEvents(
  store: Store,
  input: SettleInput,
  changes: TargetChanges,
  lastError: string | undefined,
): Promise<boolean> {
  const { columns, values, delta, assignments } = targetAssignments(input, changes)
  const { type, stuckReason } = eventsInput(input)
  // A post's only target decides the post: published or failed with it; a stuck one reports only itself.
  const postEvent = type === 'target.stuck' ? undefined : postSettledEvent([String(changes.status)])
  const events = postEvent ? 2 : 1
  const n = columns.length
  const p = (i: number) => `$${n + i}`
  const text = `
    WITH settled AS (
      UPDATE targets SET ${assignments}
       WHERE id = ${p(1)} AND lease_owner = ${p(2)}
      RETURNING *),
    post AS (
      UPDATE posts SET
        status = CASE WHEN settled.status = 'pending' THEN posts.status ELSE settled.status END,
        published_at = settled.published_at,
        last_error = coalesce(${p(3)}::text, posts.last_error),
        updated_at = ${p(4)}
        FROM settled WHERE posts.id = settled.post_id
      RETURNING posts.*),
${outboxWriteCtes({
  workspaceId: '(SELECT workspace_id FROM settled)',
  events: `
        SELECT ev.id, settled.workspace_id, ev.type, settled.post_id AS order_key,
               CASE WHEN ev.n = 1 THEN json_build_object('target', row_to_json(settled), 'post', row_to_json(post),
                 'targetEvent', ${p(5)}::text, 'stuckReason', ${p(7)}::text)::text
               ELSE '@' || ${p(6)}::text END AS snapshot,
               ev.n
          FROM settled JOIN post ON post.id = settled.post_id
          CROSS JOIN (VALUES (${p(6)}::text, ${p(5)}::text, 1)${
            events === 2 ? `, (${p(9)}::text, ${p(8)}::text, 2)` : ''
          }) AS ev(id, type, n)`,
  now: p(4),
})}
    SELECT (SELECT count(*) FROM delivered) AS deliveries
      FROM settled JOIN post ON post.id = settled.post_id`
  const pool = store.pgPool as NonNullable<Store['pgPool']>
  const { rows } = await pool.query<{ deliveries: number }>({
    name: `herald_settle_events_${input.outcome.kind}_${columns.length}_${delta}_${events}`,
    text,
    values: [
      ...values,
      input.targetId,
      input.workerId,
      lastError ?? null,
      input.now,
      type,
      newId(input.now),
      stuckReason ?? null,
      ...(postEvent ? [postEvent, newId(input.now)] : []),
    ],
  })
  const row = rows[0]
  if (!row) return false
  if (Number(row.deliveries) > 0) announceEvents()
  return true
}

/**
 * A post follows its targets: published or failed once all settled, processing while any is still open.
 * Derived in the UPDATE itself, from the targets as they stand inside the caller's transaction.
 */
export async function refreshPostStatus(db: Db, postId: string, now: number, lastError?: string) {
  if (lastError === undefined) await refreshKeepingError(db, postId, now)
  else await refreshWithError(db, postId, now, lastError)
}

const postStatusUpdate = (postId: unknown, now: unknown, lastError: RawBuilder<unknown>) => sql`
    UPDATE posts SET
      status = CASE
        WHEN EXISTS (SELECT 1 FROM targets WHERE post_id = ${postId} AND status = 'pending') THEN status
        WHEN EXISTS (SELECT 1 FROM targets WHERE post_id = ${postId} AND status = 'published') THEN 'published'
        ELSE 'failed' END,
      published_at = (SELECT min(published_at) FROM targets WHERE post_id = ${postId}),
      last_error = ${lastError},
      updated_at = ${now}
    WHERE id = ${postId}`
const refreshKeepingError = compiledOnce(2, (db: Db, postId: string, now: number) => ({
  compile: () => postStatusUpdate(postId, now, sql`last_error`).compile(db),
}))
const refreshWithError = compiledOnce(3, (db: Db, postId: string, now: number, lastError: string) => ({
  compile: () => postStatusUpdate(postId, now, sql`${lastError}`).compile(db),
}))

/**
 * {@link refreshPostStatus} for a post whose one target has just settled: the post takes the target's
 * status (it stays as it is while the target is still pending), without looking at other targets.
 */
async function followOnlyTarget(
  db: Db,
  target: TargetRow,
  now: number,
  lastError: string | undefined,
): Promise<PostRow | undefined> {
  const { rows } = await followOnlyTargetQuery(
    db,
    target.status,
    target.published_at,
    lastError ?? null,
    now,
    target.post_id,
  )
  return rows[0]
}

const followOnlyTargetQuery = compiledOnce(
  5,
  (
    db: Db,
    status: string,
    publishedAt: number | null,
    lastError: string | null,
    now: number,
    postId: string,
  ) =>
    db
      .updateTable('posts')
      .set({
        status: sql`CASE WHEN ${status} = 'pending' THEN status ELSE ${status} END`,
        published_at: publishedAt,
        last_error: sql`coalesce(${lastError}, last_error)`,
        updated_at: now,
      })
      .where('id', '=', postId)
      .returningAll(),
)

/** Pushes a throttled profile's other waiting targets past its rate-limit reset. */
export async function deferProfile(db: Db, connectionId: string, until: number, now: number) {
  await db
    .updateTable('targets')
    .set({ run_at: until, updated_at: now })
    .where('connection_id', '=', connectionId)
    .where('status', '=', 'pending')
    .where('lease_owner', 'is', null)
    .where('run_at', '<', until)
    .execute()
  await db
    .updateTable('connections')
    .set({ throttled_until: until, updated_at: now })
    .where('id', '=', connectionId)
    .execute()
}
