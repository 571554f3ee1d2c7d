import { PostgresAdapter, type RawBuilder, sql } from 'kysely'
import { AppError } from '../../errors.js'
import { newId } from '../../ids.js'
import { compiledInsert, compiledOnce } from '../compiled.js'
import type { Db } from '../db.js'
import { recordEvent } from './events.js'

export interface CreditMovement {
  workspaceId: string
  amount: number
  reason: string
  reference?: string | null
}

const chargeQuery = compiledOnce(2, (db: Db, amount: number, workspaceId: string) =>
  db
    .updateTable('workspaces')
    .set({ credit_balance: sql`credit_balance - ${amount}` })
    .where('id', '=', workspaceId)
    .where('credit_balance', '>=', amount)
    .returning(['credit_balance', 'credits_low_threshold']),
)

const insertLedgerRow = compiledInsert('credit_ledger', [
  'id',
  'workspace_id',
  'delta',
  'reason',
  'reference',
  'balance_after',
  'created_at',
])

/**
 * A write that belongs with a charge (create_post's idempotency record, which holds the balance after it).
 * On Postgres it is a step of the charge's own statement; elsewhere it runs after the charge.
 */
export interface WithCharge {
  /** Postgres: a data-modifying statement over `FROM charged`, whose `credit_balance` is the balance after. */
  inStatement: RawBuilder<unknown>
  /** Other backends (and a charge of nothing): the same write, given the balance after. */
  after(db: Db, balanceAfter: number): Promise<unknown>
}

/**
 * Takes `amount` credits in the caller's transaction, or throws `insufficient_credits` and takes nothing.
 * The balance check and the decrement are one conditional UPDATE, so two concurrent charges can never
 * overdraw the balance on either backend. Returns the balance after the charge.
 */
export async function charge(
  db: Db,
  movement: CreditMovement,
  now: number,
  withCharge?: WithCharge,
): Promise<number> {
  const { workspaceId, amount } = movement
  if (amount === 0) {
    const balance = await currentBalance(db, workspaceId)
    await withCharge?.after(db, balance)
    return balance
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter)
    return chargeInOneStatement(db, movement, now, withCharge)
  const updated = (await chargeQuery(db, amount, workspaceId)).rows[0]
  if (!updated) throw await insufficient(db, workspaceId, amount)
  const balance = Number(updated.credit_balance)
  await writeLedger(db, { ...movement, amount: -amount }, balance, now)
  await withCharge?.after(db, balance)
  await reportLowCredits(db, movement, balance, updated.credits_low_threshold, now)
  return balance
}

/**
 * The charge that takes the balance from at or above the owner's threshold to below it records
 * `credits.low`, in the charge's own transaction (the outbox); once per crossing.
 */
async function reportLowCredits(
  db: Db,
  movement: CreditMovement,
  after: number,
  thresholdValue: number | string | null | undefined,
  now: number,
) {
  if (thresholdValue === null || thresholdValue === undefined) return
  const threshold = Number(thresholdValue)
  if (!(after < threshold && after + movement.amount >= threshold)) return
  await recordEvent(db, {
    workspaceId: movement.workspaceId,
    type: 'credits.low',
    data: {
      credits: { balance: after, threshold },
      reason: `A ${movement.reason} charge of ${movement.amount} credits took the balance to ${after}, below ${threshold}.`,
      operation: movement.reason,
    },
    now,
  })
}

/**
 * Postgres: the conditional decrement, its ledger row and the write that goes with it in one statement.
 * The workspace's balance row is locked from the UPDATE until the transaction commits and every charge of
 * the workspace waits for it, so each round trip after it is one more wait for all of them (a CSV import
 * creates a thousand posts): here only the COMMIT follows.
 */
async function chargeInOneStatement(
  db: Db,
  movement: CreditMovement,
  now: number,
  withCharge: WithCharge | undefined,
): Promise<number> {
  const { workspaceId, amount } = movement
  const { rows } = await sql<{ balance_after: number | string; threshold: number | string | null }>`
    WITH charged AS (
      UPDATE workspaces SET credit_balance = credit_balance - ${amount}
      WHERE id = ${workspaceId} AND credit_balance >= ${amount}
      RETURNING credit_balance, credits_low_threshold
    ),
    ledger AS (
      INSERT INTO credit_ledger (id, workspace_id, delta, reason, reference, balance_after, created_at)
      SELECT ${newId(now)}, ${workspaceId}, ${-amount}::bigint, ${movement.reason},
        ${movement.reference ?? null}::varchar, credit_balance, ${now}::bigint
      FROM charged
      RETURNING balance_after
    )${withCharge ? sql`, also AS (${withCharge.inStatement})` : sql``}
    SELECT ledger.balance_after, charged.credits_low_threshold AS threshold FROM ledger, charged`.execute(db)
  const row = rows[0]
  if (!row) throw await insufficient(db, workspaceId, amount)
  // Only the rare charge that crosses the threshold adds a statement before the COMMIT.
  await reportLowCredits(db, movement, Number(row.balance_after), row.threshold, now)
  return Number(row.balance_after)
}

async function insufficient(db: Db, workspaceId: string, amount: number) {
  const balance = await currentBalance(db, workspaceId)
  return new AppError(
    'insufficient_credits',
    `This needs ${amount} credits and the workspace has ${balance}.`,
    {
      required: amount,
      balance,
    },
  )
}

/** Adds credits (a top-up or a refund) and records it. Returns the balance after. */
export async function credit(db: Db, movement: CreditMovement, now: number): Promise<number> {
  const updated = await db
    .updateTable('workspaces')
    .set({ credit_balance: sql`credit_balance + ${movement.amount}` })
    .where('id', '=', movement.workspaceId)
    .returning('credit_balance')
    .executeTakeFirstOrThrow()
  await writeLedger(db, movement, Number(updated.credit_balance), now)
  return Number(updated.credit_balance)
}

export async function currentBalance(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('workspaces')
    .select('credit_balance')
    .where('id', '=', workspaceId)
    .executeTakeFirst()
  return Number(row?.credit_balance ?? 0)
}

async function writeLedger(db: Db, movement: CreditMovement, balanceAfter: number, now: number) {
  await insertLedgerRow(db, {
    id: newId(now),
    workspace_id: movement.workspaceId,
    delta: movement.amount,
    reason: movement.reason,
    reference: movement.reference ?? null,
    balance_after: balanceAfter,
    created_at: now,
  })
}

export function ledgerFor(db: Db, workspaceId: string) {
  return db
    .selectFrom('credit_ledger')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute()
}
