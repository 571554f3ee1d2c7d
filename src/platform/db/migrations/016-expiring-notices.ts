import type { Kysely } from 'kysely'

/**
 * `account.expiring`: which warning was last sent for a connection, and for which end of its
 * authorisation. `expiring_notice_end` is the end (epoch ms) the warning was about; `expiring_notice_stage`
 * 1 once the 7-day warning went out for that end, 2 once the 1-day one did. A reconnect that moves the end
 * makes both stale, so the new end is warned about again when it comes near.
 */
export function createExpiringNoticesMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('connections').addColumn('expiring_notice_end', 'bigint').execute()
      await db.schema.alterTable('connections').addColumn('expiring_notice_stage', 'integer').execute()
    },
  }
}
