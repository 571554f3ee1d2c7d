import { createHash, randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Db } from '../../platform/db/db.js'
import type { WithCharge } from '../../platform/db/statements/credits.js'
import { conflict } from '../../platform/errors.js'

/** How long an Idempotency-Key answers with its first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    )
  }
  return value
}

export const requestHash = (body: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex')

/**
 * The stored first response for this key, or undefined when the key is new (or older than 24 hours).
 * The same key with a different body is a conflict: the caller is reusing a key for another request.
 */
export async function replayFor(
  db: Db,
  workspaceId: string,
  key: string,
  hash: string,
  now: number,
): Promise<unknown | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst()
  if (!row) return undefined
  if (row.created_at < now - IDEMPOTENCY_WINDOW_MS) {
    await db
      .deleteFrom('idempotency_keys')
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', key)
      .execute()
    return undefined
  }
  if (row.request_hash !== hash) {
    throw conflict('This Idempotency-Key was already used with a different request body', {
      idempotencyKey: key,
    })
  }
  return JSON.parse(row.response)
}

export async function rememberResponse(
  db: Db,
  workspaceId: string,
  key: string,
  hash: string,
  response: unknown,
  now: number,
) {
  await db
    .insertInto('idempotency_keys')
    .values({
      workspace_id: workspaceId,
      key,
      request_hash: hash,
      response: JSON.stringify(response),
      created_at: now,
    })
    .execute()
}

export async function updateRememberedResponse(db: Db, workspaceId: string, key: string, response: unknown) {
  await db
    .updateTable('idempotency_keys')
    .set({ response: JSON.stringify(response) })
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .execute()
}

/**
 * Stands in for the balance after a charge in a response written by the charge's own statement: a string
 * with a NUL and a random part, which no request can know to repeat.
 */
const BALANCE_AFTER = `\u0000balance-after-${randomUUID()}`

/**
 * The first response of a key, remembered with the charge it reports (see {@link WithCharge}): on Postgres
 * in the charge's statement, the balance after it written into the response there, so that nothing but
 * the COMMIT keeps the workspace's balance locked. `respond` builds the response for a balance.
 */
export function rememberedWithCharge(
  workspaceId: string,
  key: string,
  hash: string,
  respond: (balanceAfter: number) => unknown,
  now: number,
): WithCharge {
  const template = JSON.stringify(respond(BALANCE_AFTER as unknown as number))
  return {
    inStatement: sql`INSERT INTO idempotency_keys (workspace_id, key, request_hash, response, created_at)
      SELECT ${workspaceId}, ${key}, ${hash},
        replace(${template}::text, ${JSON.stringify(BALANCE_AFTER)}::text, charged.credit_balance::text),
        ${now}::bigint
      FROM charged`,
    after: (db, balanceAfter) => rememberResponse(db, workspaceId, key, hash, respond(balanceAfter), now),
  }
}
