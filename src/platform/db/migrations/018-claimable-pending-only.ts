import { type Kysely, sql } from 'kysely'

/**
 * The claim's two indexes hold only targets that can still be sent: pending as well as unleased. Before,
 * a target joined both again when its settle cleared the lease, so every published or failed target stayed
 * in them for good, each settle wrote two index entries no claim would read, and the claim's scans walked
 * past the settled ones (their `run_at` is null).
 */
export function createClaimablePendingOnlyMigration() {
  return {
    async up(db: Kysely<unknown>) {
      const pendingAndUnleased = sql<boolean>`lease_owner IS NULL AND status = 'pending'`
      await db.schema.dropIndex('targets_claimable').execute()
      await db.schema
        .createIndex('targets_claimable')
        .on('targets')
        .column('run_at')
        .where(pendingAndUnleased)
        .execute()
      await db.schema.dropIndex('targets_claimable_by_workspace').execute()
      await db.schema
        .createIndex('targets_claimable_by_workspace')
        .on('targets')
        .columns(['workspace_id', 'run_at'])
        .where(pendingAndUnleased)
        .execute()
    },
  }
}
