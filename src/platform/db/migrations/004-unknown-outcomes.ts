import type { Kysely } from 'kysely'

/** When an unanswered publishing call of a target is being looked up on the network (see the worker). */
export function createUnknownOutcomesMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('targets').addColumn('unknown_outcome_at', 'bigint').execute()
    },
  }
}
