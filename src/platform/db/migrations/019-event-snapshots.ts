import type { Kysely } from 'kysely'

/**
 * An event may be written as a snapshot of the rows it reports (JSON) instead of its rendered body: the
 * Postgres settle of a post's only target records its outcome and its events in one statement, where
 * rendering the body (the tools' post and target shapes) needs JavaScript. The delivery renders the body
 * from the snapshot, which holds the rows as that statement left them; `payload` is empty for such events.
 */
export function createEventSnapshotsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('events').addColumn('snapshot', 'text').execute()
    },
  }
}
