import type { Credentials } from '../../adapters/adapter.js'
import { connectionCredentials, type Vault } from '../../platform/crypto/vault.js'
import type { Store } from '../../platform/db/db.js'
import { recordEvent } from '../../platform/db/statements/events.js'
import { writeTransaction } from '../../platform/db/write-transaction.js'
import type { Logger } from '../../platform/logger.js'
import { connectionEndsAt } from '../connections/health.js'
import { activeConnectionsPage } from './sql/active-connections-page.js'
import { markExpiringNotice } from './sql/mark-expiring-notice.js'

/**
 * `account.expiring`: the worker's periodic sweep warns 7 days and again 1 day before a
 * connection stops working (the end {@link connectionEndsAt} computes, the one get_account_health reports:
 * a refresh token's stated or JWT end, or the access token's end when there is no refresh token).
 *
 * Outbox rule: the event is written in the transaction that marks the warning sent
 * (`connections.expiring_notice_end/stage`), with a conditional UPDATE that only one transaction can win,
 * so two workers sweeping at once send it once, and a crash loses neither the mark nor the event.
 * A reconnect that moves the end makes the mark stale: the new end is warned about when it comes near.
 */

const DAY_MS = 86_400_000

/** The warnings, latest stage first: stage 2 one day before the end, stage 1 seven days before. */
export const EXPIRING_WARNINGS = Object.freeze([
  { stage: 2, withinMs: DAY_MS },
  { stage: 1, withinMs: 7 * DAY_MS },
])

/** How often the worker looks (default); a warning goes out at most this late. */
export const EXPIRING_SWEEP_MS = 10 * 60_000

const PAGE = 500

/** Which warning is due for an end `end` at `now`: 0 none (far off, or already ended), 1 or 2. */
export function expiringStage(end: number, now: number): number {
  const left = end - now
  if (left <= 0) return 0
  return EXPIRING_WARNINGS.find((w) => left <= w.withinMs)?.stage ?? 0
}

export interface ExpiringDeps {
  store: Store
  vault: Vault
  now: number
  logger?: Logger
}

/** One sweep over the active connections; returns how many `account.expiring` events it recorded. */
export async function sweepExpiringConnections(deps: ExpiringDeps): Promise<number> {
  const { store, vault, now } = deps
  let recorded = 0
  let after = ''
  for (;;) {
    const rows = await activeConnectionsPage(store.db, after, PAGE)
    for (const row of rows) {
      let credentials: Credentials
      try {
        credentials = vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
      } catch {
        // Sealed under a key this process does not hold: get_account_health reports it; nothing to warn.
        continue
      }
      const end = connectionEndsAt(
        credentials,
        row.token_expires_at === null ? null : Number(row.token_expires_at),
      )
      if (end === undefined) continue
      const stage = expiringStage(end, now)
      if (stage === 0) continue
      const markedEnd = row.expiring_notice_end == null ? null : Number(row.expiring_notice_end)
      if (markedEnd === end && Number(row.expiring_notice_stage ?? 0) >= stage) continue
      const sent = await writeTransaction(store, async (tx) => {
        // Only one sweep wins the mark, and with it the event (see markExpiringNotice).
        if (!(await markExpiringNotice(tx, row, end, stage))) return false
        const left = end - now
        const days = Math.floor(left / DAY_MS)
        const when = days === 0 ? 'within a day' : `in ${days} day${days === 1 ? '' : 's'}`
        await recordEvent(tx, {
          workspaceId: row.workspace_id,
          type: 'account.expiring',
          data: {
            account: {
              platform: row.platform,
              username: row.username,
              name: row.name,
              profileId: row.profile_id,
              isOrganization: row.is_organization === 1,
            },
            expiresAt: new Date(end).toISOString(),
            daysLeft: days,
            warning: stage === 2 ? '1d' : '7d',
            reason: `The ${row.platform} authorisation of this profile ends ${when}; posts to it fail after that.`,
            action:
              'Reconnect this profile from the dashboard (Channels) or with the connect link before then.',
          },
          ids: { profileId: row.profile_id, platform: row.platform },
          now,
        })
        return true
      })
      if (sent) {
        recorded++
        deps.logger?.info(
          { connectionId: row.id, network: row.platform, expiresAt: new Date(end).toISOString(), stage },
          'connection expiring: account.expiring recorded',
        )
      }
    }
    if (rows.length < PAGE) return recorded
    after = rows[rows.length - 1]!.id
  }
}
