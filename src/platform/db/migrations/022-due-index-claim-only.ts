import { type Kysely, sql } from 'kysely'

/**
 * The claim walks the due deliveries in the order they fell due (then event order) and stops at its limit:
 * keyed by that order, this index gives it them sorted, where keyed by due time alone each claim read and
 * sorted every due delivery, so a backlog (a busy burst, a receiver back after an outage) made each claim
 * dearer the longer it grew. New deliveries fall due as they are written, so this is still event order for
 * all but retries, which queue by when their retry came.
 *
 * The index used to match the claim's "no earlier pending event of this post" check too, since both name
 * only pending deliveries, and on tables without statistics (a young database, or one that is never
 * analyzed) Postgres sometimes read every pending delivery through it for each candidate instead of the
 * few of one post through `webhook_deliveries_order`: four fifths of the claim's time in the benchmark.
 * `next_attempt_at IS NOT NULL` (always true; the column is NOT NULL) is implied by the claim's
 * `next_attempt_at <= now` but not by the check, which says nothing of the time, so the check can no
 * longer use this index. SQLite matches the term the same way.
 */
export function createDueIndexClaimOnlyMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('webhook_deliveries_due').execute()
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['next_attempt_at', 'event_seq'])
        .where(sql<boolean>`status = 'pending' AND next_attempt_at IS NOT NULL`)
        .execute()
    },
  }
}
