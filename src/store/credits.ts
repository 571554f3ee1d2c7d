import { sql } from 'kysely'
import { AppError } from '../errors.js'
import { newId } from '../lib/ids.js'
import { compiledInsert, compiledOnce } from './compiled.js'
import type { Db } from './db.js'
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
 * Takes `amount` credits in the caller's transaction, or throws `insufficient_credits` and takes nothing.
 * The balance check and the decrement are one conditional UPDATE, so two concurrent charges can never
 * overdraw the balance on either backend. Returns the balance after the charge.
 */
export async function charge(db: Db, movement: CreditMovement, now: number): Promise<number> {
  const { workspaceId, amount } = movement
  if (amount === 0) return currentBalance(db, workspaceId)
  const updated = (await chargeQuery(db, amount, workspaceId)).rows[0]
  if (!updated) {
    const balance = await currentBalance(db, workspaceId)
    throw new AppError(
      'insufficient_credits',
      `This needs ${amount} credits and the workspace has ${balance}.`,
      {
        required: amount,
        balance,
      },
    )
  }
  const after = Number(updated.credit_balance)
  await writeLedger(db, { ...movement, amount: -amount }, after, now)
  // The charge that crosses the owner's threshold reports it, in its own transaction (the outbox).
  const threshold = updated.credits_low_threshold === null ? undefined : Number(updated.credits_low_threshold)
  if (threshold !== undefined && after < threshold && after + amount >= threshold)
    await recordEvent(db, {
      workspaceId,
      type: 'credits.low',
      data: { credits: { balance: after, threshold }, reason: movement.reason },
      now,
    })
  return after
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
