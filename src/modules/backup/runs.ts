import type { Db } from '../../platform/db/db.js'
import { newId } from '../../platform/ids.js'

/** The record of the backups taken (table backup_runs, migration 034). */

export type BackupTrigger = 'command' | 'schedule'

export interface LastBackup {
  finishedAt: number
  file: string
  bytes: number
}

/** Records a run that starts now; returns its id. */
export async function startRun(db: Db, trigger: BackupTrigger, now: number): Promise<string> {
  const id = newId(now)
  await db
    .insertInto('backup_runs')
    .values({ id, trigger, period: null, status: 'running', started_at: now })
    .execute()
  return id
}

/**
 * Claims a scheduled period for this process: true when this call made its row, false when another process
 * (or an earlier tick of this one) already did. The unique index on `period` decides.
 */
export async function claimPeriod(db: Db, period: number, now: number): Promise<string | undefined> {
  const id = newId(now)
  const result = await db
    .insertInto('backup_runs')
    .values({ id, trigger: 'schedule', period, status: 'running', started_at: now })
    .onConflict((oc) => oc.column('period').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1 ? id : undefined
}

export async function finishRun(
  db: Db,
  id: string,
  outcome: { ok: true; file: string; bytes: number } | { ok: false; error: string },
  now: number,
): Promise<void> {
  await db
    .updateTable('backup_runs')
    .set(
      outcome.ok
        ? { status: 'succeeded', finished_at: now, file: outcome.file, bytes: outcome.bytes }
        : { status: 'failed', finished_at: now, error: outcome.error.slice(0, 2_000) },
    )
    .where('id', '=', id)
    .execute()
}

/** The newest backup that succeeded, from any process; undefined when none ever did. */
export async function lastSuccessfulBackup(db: Db): Promise<LastBackup | undefined> {
  const row = await db
    .selectFrom('backup_runs')
    .select(['finished_at', 'file', 'bytes'])
    .where('status', '=', 'succeeded')
    .orderBy('finished_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row
    ? { finishedAt: Number(row.finished_at), file: row.file ?? '', bytes: Number(row.bytes) }
    : undefined
}

/**
 * A restored database holds the run that was under way when its backup was taken, as running: the backup
 * itself (its id is the manifest's), which succeeded since it is being restored, and any other run, which
 * ended in the database the backup came from and is said here to have ended with the restore.
 */
export async function settleRunsOpenAtBackup(
  db: Db,
  backup: { id: string; file: string; bytes: number; createdAt: number },
  now: number,
): Promise<void> {
  await db
    .updateTable('backup_runs')
    .set({ status: 'succeeded', finished_at: backup.createdAt, file: backup.file, bytes: backup.bytes })
    .where('id', '=', backup.id)
    .execute()
  await db
    .updateTable('backup_runs')
    .set({
      status: 'failed',
      finished_at: now,
      error: 'Under way when the backup that was restored was taken',
    })
    .where('status', '=', 'running')
    .execute()
}
