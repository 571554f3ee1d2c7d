import type { Kysely } from 'kysely'

/**
 * Every backup Herald took (`herald backup`, or the schedule of HERALD_BACKUP_EVERY): when it started and
 * ended, how it ended, the archive it wrote and its size. /metrics and the dashboard read the last success
 * here, so every process sees a backup another one took. A scheduled run first claims its period (one row
 * per `period`, a unique index): of several workers on one database, only the one that claimed it backs up.
 */
export function createBackupRunsMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('backup_runs')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('trigger', 'varchar(16)', (c) => c.notNull())
        .addColumn('period', 'bigint')
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'bigint')
        .addColumn('file', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
        .execute()
      await db.schema.createIndex('backup_runs_period').on('backup_runs').column('period').unique().execute()
      await db.schema
        .createIndex('backup_runs_status_finished')
        .on('backup_runs')
        .columns(['status', 'finished_at'])
        .execute()
    },
  }
}
