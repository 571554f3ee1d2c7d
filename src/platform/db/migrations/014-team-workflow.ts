import { type Kysely, sql } from 'kysely'

/**
 * Team workflow: approvals (a workspace setting, an approval state on posts, targets that are not
 * paid for until their post is approved), posting queues (weekly posting times per profile), and CSV
 * imports (uploads waiting to be imported, and the rows already imported, so a file imported twice
 * creates nothing new). One file for every change of the team workflow (migration number 014).
 */
export function createTeamWorkflowMigration() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('workspaces')
        .addColumn('requires_approval', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()

      // Each column is its own ALTER: SQLite adds one column per statement.
      const postColumns: Array<[string, 'varchar(16)' | 'varchar(24)' | 'text' | 'bigint']> = [
        ['approval', 'varchar(16)'],
        ['approval_note', 'text'],
        ['approval_by', 'varchar(24)'],
        ['approval_at', 'bigint'],
        ['charge_group', 'varchar(24)'],
      ]
      for (const [name, type] of postColumns)
        await db.schema.alterTable('posts').addColumn(name, type).execute()
      await db.schema
        .alterTable('posts')
        .addColumn('from_queue', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      await db.schema
        .alterTable('targets')
        .addColumn('paid', 'integer', (c) => c.notNull().defaultTo(1))
        .execute()
      // The approval filter and the pending count read only posts that have an approval state.
      await db.schema
        .createIndex('posts_workspace_approval')
        .on('posts')
        .columns(['workspace_id', 'approval', 'id'])
        .where(sql.ref('approval'), 'is not', null)
        .execute()
      // Queue slots taken and recent copies to compare: the workspace's posts around an instant.
      await db.schema
        .createIndex('posts_workspace_due')
        .on('posts')
        .columns(['workspace_id', 'due_at'])
        .execute()

      await db.schema
        .createTable('paid_surcharges')
        .addColumn('charge_group', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('post_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('paid_at', 'bigint', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('posting_queues')
        .addColumn('connection_id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) =>
          c.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('timezone', 'varchar(64)', (c) => c.notNull())
        .addColumn('slots', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('posting_queues_workspace')
        .on('posting_queues')
        .column('workspace_id')
        .execute()

      await db.schema
        .createTable('import_rows')
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('row_key', 'varchar(64)', (c) => c.notNull())
        .addColumn('post_ids', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('import_rows_pk', ['workspace_id', 'row_key'])
        .execute()

      await db.schema
        .createTable('csv_uploads')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) =>
          c.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
    },
  }
}
