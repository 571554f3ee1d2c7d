import type { Kysely } from 'kysely'

/**
 * What an attempt leaves behind for the next one: the network-side work an adapter recorded before it
 * published (a Meta or Threads container id, an upload's id), and when the attempt began (an unknown
 * outcome is resolved by looking for a post created after that instant).
 */
export function createTargetProgressMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('targets').addColumn('progress', 'text').execute()
      await db.schema.alterTable('targets').addColumn('attempt_started_at', 'bigint').execute()
    },
  }
}
