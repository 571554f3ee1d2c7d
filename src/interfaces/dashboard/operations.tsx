import type { AppContext } from '../../modules/app-context.js'
import { lastSuccessfulBackup } from '../../modules/backup/runs.js'

/** The last backup that succeeded, as the card shows it. */
export type LastBackup = Awaited<ReturnType<typeof lastSuccessfulBackup>>

/** The last backup that succeeded, read for the card. */
export const lastBackupOf = (app: AppContext): Promise<LastBackup> => lastSuccessfulBackup(app.store.db)

/**
 * What the administrator of this Herald sees of how it runs: when the last backup succeeded (from any
 * process: `herald backup` or the schedule), and how to take one when none did.
 */
export function OperationsCard({ app, last }: { app: AppContext; last: LastBackup }) {
  const every = app.config.backups.everyMs
  return (
    <section class="card" aria-labelledby="operations">
      <h2 id="operations">This Herald</h2>
      {last ? (
        <p>
          Last backup:{' '}
          <time datetime={new Date(last.finishedAt).toISOString()}>
            {new Date(last.finishedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC
          </time>
          , {(last.bytes / 1_048_576).toFixed(1)} MB, in <span class="url">{last.file}</span>.
        </p>
      ) : (
        <p>Last backup: none yet.</p>
      )}
      <p class="muted">
        {every
          ? `Backups are taken every ${describeEvery(every)}, the newest ${app.config.backups.keep} kept.`
          : 'No backups are scheduled: set HERALD_BACKUP_EVERY (for example 24h), or run herald backup.'}{' '}
        The secret key is never in a backup: keep a copy of it apart.
      </p>
    </section>
  )
}

function describeEvery(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} day${ms === 86_400_000 ? '' : 's'}`
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hour${ms === 3_600_000 ? '' : 's'}`
  return `${ms / 60_000} minutes`
}
