import type { AppContext } from '../../modules/app-context.js'
import { lastSuccessfulBackup } from '../../modules/backup/runs.js'
import { escapeHtml } from './html.js'

/**
 * What the administrator of this Herald sees of how it runs: for now, when the last backup succeeded (from
 * any process: `herald backup` or the schedule), and how to take one when none did.
 */
export async function operationsCard(app: AppContext): Promise<string> {
  const last = await lastSuccessfulBackup(app.store.db)
  const every = app.config.backups.everyMs
  const schedule = every
    ? `Backups are taken every ${escapeHtml(describeEvery(every))}, the newest ${app.config.backups.keep} kept.`
    : 'No backups are scheduled: set HERALD_BACKUP_EVERY (for example 24h), or run herald backup.'
  const line = last
    ? `Last backup: <time datetime="${new Date(last.finishedAt).toISOString()}">${escapeHtml(new Date(last.finishedAt).toISOString().slice(0, 16).replace('T', ' '))} UTC</time>, ${escapeHtml((last.bytes / 1_048_576).toFixed(1))} MB, in <span class="url">${escapeHtml(last.file)}</span>.`
    : 'Last backup: none yet.'
  return `<section class="card" aria-labelledby="operations"><h2 id="operations">This Herald</h2>
<p>${line}</p>
<p class="muted">${schedule} The secret key is never in a backup: keep a copy of it apart.</p></section>`
}

function describeEvery(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} day${ms === 86_400_000 ? '' : 's'}`
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hour${ms === 3_600_000 ? '' : 's'}`
  return `${ms / 60_000} minutes`
}
