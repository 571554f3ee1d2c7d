import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * SQLite: tables keyed by a text id are stored clustered on it (WITHOUT ROWID), so every insert writes one
 * b-tree fewer than a rowid table plus its separate primary-key index. Postgres has no such option.
 */
function clusteredBy(dialect: Dialect) {
  return <T extends { modifyEnd(node: ReturnType<typeof sql>): T }>(builder: T): T =>
    dialect === 'sqlite' ? builder.modifyEnd(sql`WITHOUT ROWID`) : builder
}

/** The whole first schema. Later changes are new numbered files; this one never changes once released. */
export function createInitMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      const clusteredById = clusteredBy(dialect)
      await db.schema
        .createTable('users')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('email', 'varchar(320)', (c) => c.notNull().unique())
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('workspaces')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('plan', 'varchar(40)', (c) => c.notNull())
        .addColumn('credit_balance', 'bigint', (c) => c.notNull().check(sql`credit_balance >= 0`))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('memberships')
        .addColumn('workspace_id', 'varchar(24)', (c) =>
          c.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'varchar(16)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('memberships_pk', ['workspace_id', 'user_id'])
        .execute()
      await db.schema.createIndex('memberships_user').on('memberships').column('user_id').execute()

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('default_workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
        .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .execute()
      await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute()

      await db.schema
        .createTable('credit_ledger')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) =>
          c.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('delta', 'bigint', (c) => c.notNull())
        .addColumn('reason', 'varchar(64)', (c) => c.notNull())
        .addColumn('reference', 'varchar(200)')
        .addColumn('balance_after', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .$call(clusteredById)
        .execute()
      await db.schema
        .createIndex('credit_ledger_workspace')
        .on('credit_ledger')
        .columns(['workspace_id', 'id'])
        .execute()

      await db.schema
        .createTable('connections')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) =>
          c.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('platform', 'varchar(16)', (c) => c.notNull())
        .addColumn('profile_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('username', 'varchar(200)', (c) => c.notNull())
        .addColumn('name', 'varchar(400)', (c) => c.notNull())
        .addColumn('is_organization', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('avatar_url', 'text')
        .addColumn('credentials', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('token_expires_at', 'bigint')
        .addColumn('status', 'varchar(24)', (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('throttled_until', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('connections_profile', ['workspace_id', 'platform', 'profile_id'])
        .execute()

      await db.schema
        .createTable('posts')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) =>
          c.notNull().references('workspaces.id').onDelete('cascade'),
        )
        .addColumn('author_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('media_urls', 'text', (c) => c.notNull())
        .addColumn('youtube', 'text')
        .addColumn('variants', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('schedule_date', 'varchar(10)')
        .addColumn('schedule_time', 'varchar(5)')
        .addColumn('timezone', 'varchar(64)', (c) => c.notNull())
        .addColumn('due_at', 'bigint')
        .addColumn('publish_immediately', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('published_at', 'bigint')
        .$call(clusteredById)
        .execute()
      // list_posts pages newest first by id (ids are time-ordered), with and without a status filter.
      await db.schema.createIndex('posts_workspace_id').on('posts').columns(['workspace_id', 'id']).execute()
      await db.schema
        .createIndex('posts_workspace_status_id')
        .on('posts')
        .columns(['workspace_id', 'status', 'id'])
        .execute()

      await db.schema
        .createTable('targets')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('post_id', 'varchar(24)', (c) => c.notNull().references('posts.id').onDelete('cascade'))
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('connection_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('platform', 'varchar(16)', (c) => c.notNull())
        .addColumn('profile_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('username', 'varchar(200)', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('media_urls', 'text', (c) => c.notNull())
        .addColumn('youtube', 'text')
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('run_at', 'bigint')
        .addColumn('lease_owner', 'varchar(64)')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('remote_id', 'text')
        .addColumn('url', 'text')
        .addColumn('error', 'text')
        .addColumn('upload_error', 'text')
        .addColumn('stuck_at', 'bigint')
        .addColumn('published_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .$call(clusteredById)
        .execute()
      await db.schema.createIndex('targets_post').on('targets').columns(['post_id', 'position']).execute()
      // The work queue: only claimable rows are in this index, so the claim scan stays small.
      await db.schema
        .createIndex('targets_claimable')
        .on('targets')
        .column('run_at')
        .where(sql.ref('lease_owner'), 'is', null)
        .execute()
      await db.schema
        .createIndex('targets_leased')
        .on('targets')
        .column('lease_expires_at')
        .where(sql.ref('lease_owner'), 'is not', null)
        .execute()

      await db.schema
        .createTable('post_counts')
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        .addColumn('n', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('post_counts_pk', ['workspace_id', 'status', 'shard'])
        .execute()
      await createPostCountTriggers(db, dialect)

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('response', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'key'])
        .execute()

      await db.schema
        .createTable('analytics_readings')
        .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('target_id', 'varchar(24)')
        .addColumn('connection_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('fetched_at', 'bigint', (c) => c.notNull())
        .addColumn('summary', 'text', (c) => c.notNull())
        .addColumn('metrics', 'text', (c) => c.notNull())
        .addColumn('window', 'varchar(64)')
        .addColumn('source', 'varchar(200)', (c) => c.notNull())
        .addColumn('error', 'text', (c) => c.notNull())
        .addColumn('unavailable', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      await db.schema
        .createIndex('analytics_target')
        .on('analytics_readings')
        .columns(['target_id', 'fetched_at'])
        .execute()
      await db.schema
        .createIndex('analytics_connection')
        .on('analytics_readings')
        .columns(['connection_id', 'kind', 'fetched_at'])
        .execute()

      await db.schema
        .createTable('media')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)')
        .addColumn('source_url', 'text')
        .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
        .addColumn('content_type', 'varchar(100)', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('duration_ms', 'bigint')
        .addColumn('storage_key', 'text', (c) => c.notNull())
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('oauth_states')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('user_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('platform', 'varchar(16)', (c) => c.notNull())
        .addColumn('code_verifier', 'text', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute()

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull())
        .addColumn('csrf_token', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('quota_usage')
        .addColumn('key', 'varchar(64)', (c) => c.notNull())
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('units', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('quota_usage_pk', ['key', 'day'])
        .execute()
    },
  }
}

/**
 * post_counts mirrors `SELECT status, count(*) FROM posts GROUP BY workspace_id, status`, kept by triggers so
 * list_posts answers its `counts` with one indexed read instead of scanning every post of the workspace.
 * On Postgres each (workspace, status) is spread over up to 64 rows: one counter row would be locked by every
 * status change of the workspace until its transaction commits, serialising the workers. SQLite has one
 * writer anyway and uses shard 0. Readers sum the shards.
 */
async function createPostCountTriggers(db: Kysely<unknown>, dialect: Dialect) {
  if (dialect === 'sqlite') {
    await sql`CREATE TRIGGER posts_count_insert AFTER INSERT ON posts BEGIN
      INSERT INTO post_counts (workspace_id, status, shard, n) VALUES (NEW.workspace_id, NEW.status, 0, 1)
        ON CONFLICT (workspace_id, status, shard) DO UPDATE SET n = n + 1;
    END`.execute(db)
    await sql`CREATE TRIGGER posts_count_delete AFTER DELETE ON posts BEGIN
      UPDATE post_counts SET n = n - 1 WHERE workspace_id = OLD.workspace_id AND status = OLD.status AND shard = 0;
    END`.execute(db)
    await sql`CREATE TRIGGER posts_count_update AFTER UPDATE OF status ON posts WHEN OLD.status <> NEW.status BEGIN
      UPDATE post_counts SET n = n - 1 WHERE workspace_id = OLD.workspace_id AND status = OLD.status AND shard = 0;
      INSERT INTO post_counts (workspace_id, status, shard, n) VALUES (NEW.workspace_id, NEW.status, 0, 1)
        ON CONFLICT (workspace_id, status, shard) DO UPDATE SET n = n + 1;
    END`.execute(db)
    return
  }
  // Each database connection counts into its own shard (its backend pid), so concurrent transactions never
  // wait on one another's counter rows; within a transaction the two rows of a status change are taken in
  // alphabetical order of status, so two connections that share a shard cannot deadlock either.
  await sql`CREATE FUNCTION post_counts_bump(ws varchar, st varchar, delta int) RETURNS void AS $$
    INSERT INTO post_counts (workspace_id, status, shard, n) VALUES (ws, st, pg_backend_pid() % 64, delta)
      ON CONFLICT (workspace_id, status, shard) DO UPDATE SET n = post_counts.n + delta
    $$ LANGUAGE sql`.execute(db)
  await sql`CREATE FUNCTION posts_count_change() RETURNS trigger AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM post_counts_bump(NEW.workspace_id, NEW.status, 1);
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM post_counts_bump(OLD.workspace_id, OLD.status, -1);
      ELSIF OLD.status < NEW.status THEN
        PERFORM post_counts_bump(OLD.workspace_id, OLD.status, -1);
        PERFORM post_counts_bump(NEW.workspace_id, NEW.status, 1);
      ELSE
        PERFORM post_counts_bump(NEW.workspace_id, NEW.status, 1);
        PERFORM post_counts_bump(OLD.workspace_id, OLD.status, -1);
      END IF;
      RETURN NULL;
    END $$ LANGUAGE plpgsql`.execute(db)
  await sql`CREATE TRIGGER posts_count_insert_delete AFTER INSERT OR DELETE ON posts
    FOR EACH ROW EXECUTE FUNCTION posts_count_change()`.execute(db)
  await sql`CREATE TRIGGER posts_count_update AFTER UPDATE OF status ON posts
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION posts_count_change()`.execute(
    db,
  )
}
