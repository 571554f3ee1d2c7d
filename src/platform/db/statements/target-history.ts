import type { HistoryEntry } from '../../../core/target-history.js'
import { newId } from '../../ids.js'
import type { Db } from '../db.js'
import type { TargetHistoryTable } from '../schema.js'

/**
 * A target's history (migration 029): written by the statement or transaction that makes the change it
 * records, read by the post's page. Every writer passes its own transaction, never the store's pool.
 */

/** The longest detail kept: an error is the network's words, a few sentences at most; a page of HTML is not. */
export const MAX_HISTORY_DETAIL = 2_000

/** The row one entry of `targetId` makes at `at`. */
export function historyRow(targetId: string, at: number, entry: HistoryEntry): TargetHistoryTable {
  return {
    id: newId(at),
    target_id: targetId,
    at,
    kind: entry.kind,
    result: entry.result,
    sent: entry.sent === undefined ? null : entry.sent ? 1 : 0,
    detail: entry.detail ? entry.detail.slice(0, MAX_HISTORY_DETAIL) : null,
  }
}

/** Writes the entries, each for its target, inside the caller's transaction. */
export async function recordHistory(
  tx: Db,
  at: number,
  entries: ReadonlyArray<{ targetId: string; entry: HistoryEntry }>,
): Promise<void> {
  if (entries.length === 0) return
  await tx
    .insertInto('target_history')
    .values(entries.map(({ targetId, entry }) => historyRow(targetId, at, entry)))
    .execute()
}

/** The same entry for each of `targetIds`. */
export const sameEntry = (targetIds: readonly string[], entry: HistoryEntry) =>
  targetIds.map((targetId) => ({ targetId, entry }))

/** The history of these targets, oldest first (ids break ties within a millisecond in writing order). */
export async function historyOf(db: Db, targetIds: readonly string[]): Promise<TargetHistoryTable[]> {
  if (targetIds.length === 0) return []
  const rows = await db
    .selectFrom('target_history')
    .selectAll()
    .where('target_id', 'in', [...targetIds])
    .execute()
  return rows
    .map((row) => ({ ...row, at: Number(row.at) }))
    .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}
