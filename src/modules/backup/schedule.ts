import { readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { claimPeriod } from './runs.js'
import { ARCHIVE_PREFIX, ARCHIVE_SUFFIX, type BackupDeps, type BackupResult, takeBackup } from './take.js'

/**
 * Scheduled backups (HERALD_BACKUP_EVERY): time is cut into periods of that length, and in each one the first
 * worker process to claim it (a row per period in backup_runs) takes a backup into HERALD_BACKUP_DIR, then
 * keeps the newest HERALD_BACKUP_KEEP archives there. Every worker looks once a minute at most; a period
 * another process claimed is left to it, even when its run failed (the next period tries again).
 */

/** How often a worker looks whether the current period has its backup. */
export const lookIntervalMs = (everyMs: number) => Math.min(everyMs, 60_000)

export async function runScheduledBackup(deps: BackupDeps): Promise<BackupResult | undefined> {
  const everyMs = deps.config.backups.everyMs
  if (!everyMs) return undefined
  const now = deps.clock.now()
  const runId = await claimPeriod(deps.store.db, Math.floor(now / everyMs), now)
  if (!runId) return undefined
  const result = await takeBackup(deps, { runId })
  await keepNewest(deps.config.backups.dir, deps.config.backups.keep)
  return result
}

/** Removes all but the newest `keep` archives Herald named in `dir` (their names sort by when they were taken). */
export async function keepNewest(dir: string, keep: number): Promise<string[]> {
  const archives = (await readdir(dir))
    .filter((name) => name.startsWith(ARCHIVE_PREFIX) && name.endsWith(ARCHIVE_SUFFIX))
    .sort()
  const removed = archives.slice(0, Math.max(0, archives.length - keep))
  for (const name of removed) await rm(path.join(dir, name), { force: true })
  return removed
}
