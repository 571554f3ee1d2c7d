import fs from 'node:fs'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, type SqliteDialectConfig, sql } from 'kysely'
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration'
import type pg from 'pg'
import { createBatchedTransactions, type RunBatched } from './batched-transactions.js'
import type { Dialect } from './dialect.js'
import { createInitMigration } from './migrations/001-init.js'
import { createTargetProgressMigration } from './migrations/002-target-progress.js'
import { createTargetProfileUniqueMigration } from './migrations/003-target-profile-unique.js'
import { createUnknownOutcomesMigration } from './migrations/004-unknown-outcomes.js'
import { createPendingGrantsMigration } from './migrations/005-pending-grants.js'
import { createRefreshLeaseMigration } from './migrations/006-refresh-lease.js'
import { createMediaLifetimeMigration } from './migrations/007-cache-media-lifetime.js'
import { createLookupsAndStuckReasonsMigration } from './migrations/008-lookups-and-stuck-reasons.js'
import { createInvitationsMigration } from './migrations/010-invitations.js'
import { createOAuthServerMigration } from './migrations/011-oauth-server.js'
import { createEventsWebhooksMigration } from './migrations/012-events-webhooks.js'
import { createThreadItemsMigration } from './migrations/013-thread-items.js'
import { createTeamWorkflowMigration } from './migrations/014-team-workflow.js'
import { createExpiringNoticesMigration } from './migrations/016-expiring-notices.js'
import { type Binder, createBoundSecretsMigration, VaultKeyNeeded } from './migrations/017-bound-secrets.js'
import { createClaimablePendingOnlyMigration } from './migrations/018-claimable-pending-only.js'
import { createEventSnapshotsMigration } from './migrations/019-event-snapshots.js'
import { createOutboxPendingIndexesMigration } from './migrations/020-outbox-pending-indexes.js'
import { createDeliveriesDueIndexMigration } from './migrations/021-deliveries-due-index.js'
import { createDueIndexClaimOnlyMigration } from './migrations/022-due-index-claim-only.js'
import { createAttemptsByDeliveryMigration } from './migrations/023-attempts-by-delivery.js'
import { createWiderLedgerReferenceMigration } from './migrations/024-wider-ledger-reference.js'
import { createNetworkAppsMigration } from './migrations/025-network-apps.js'
import { createInstanceSetupMigration } from './migrations/026-instance-setup.js'
import { createComposeGroupsMigration } from './migrations/027-compose-groups.js'
import { createAltTextsAndAvatarsMigration } from './migrations/028-alt-texts-and-avatars.js'
import { createTargetHistoryMigration } from './migrations/029-target-history.js'
import { createTikTokDetailsMigration } from './migrations/030-tiktok-details.js'
import { createPinterestDetailsMigration } from './migrations/031-pinterest-details.js'
import { createMastodonInstancesMigration } from './migrations/032-mastodon-instances.js'
import { createGoogleBusinessDetailsMigration } from './migrations/033-google-business-details.js'
import { createBackupRunsMigration } from './migrations/034-backup-runs.js'
import type { Database } from './schema.js'
import { copyBeforeMigrating } from './sqlite-copy.js'

export type Db = Kysely<Database>

export interface Store {
  db: Db
  dialect: Dialect
  /** Postgres only: the pool under Kysely, for the worker's named (server-side prepared) statements. */
  pgPool?: pg.Pool
  /** SQLite only: the database file (undefined in memory), for online copies (backups, before migrating). */
  sqliteFile?: string
  /** Runs a short write transaction; on SQLite, those that arrive together share one commit. */
  batchedTransaction: RunBatched
  destroy(): Promise<void>
}

export interface StoreOptions {
  /** A postgres:// URL; undefined opens SQLite at `sqlitePath`. */
  databaseUrl?: string | undefined
  sqlitePath?: string
  /** Postgres only: the schema to create and use (tests isolate themselves this way). */
  schema?: string
  poolSize?: number
  /** The vault, for migration 017 (re-seals stored values bound to their row); see that migration. */
  vault?: Binder
  /**
   * SQLite only: before running pending migrations on a database that holds data, copy it next to itself
   * (default true) and say where through this callback. A restore's staged copy turns it off: it is a copy.
   */
  copyBeforeMigrating?: boolean
  onCopyBeforeMigrating?: (file: string) => void
}

const INT8_OID = 20
const NUMERIC_OID = 1700

/** Opens the database, runs pending migrations and returns the store. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const store = await connectStore(options)
  try {
    await migrate(store, options.vault, {
      copyBeforeMigrating: options.copyBeforeMigrating ?? true,
      ...(options.onCopyBeforeMigrating ? { onCopy: options.onCopyBeforeMigrating } : {}),
    })
  } catch (error) {
    await store.destroy()
    throw error
  }
  return store
}

/** Opens the database without migrating it (a restore looks at what a data folder holds, and changes nothing). */
export async function connectStore(options: StoreOptions): Promise<Store> {
  return options.databaseUrl ? openPostgres(options) : openSqlite(options)
}

/**
 * SQLite runs DDL inside transactions (a CREATE or ALTER rolls back like any write), but Kysely's adapter says
 * it does not, so its migrator would run each migration outside one and a migration failing halfway would
 * leave half of it applied. Saying so here makes the migrator run every pending migration in one transaction:
 * a failure leaves the database as it was.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl() {
    return true
  }
}

class HeraldSqliteDialect extends SqliteDialect {
  override createAdapter() {
    return new TransactionalDdlSqliteAdapter()
  }
}

function openSqlite(options: StoreOptions): Store {
  const file = options.sqlitePath ?? ':memory:'
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const database = new SqliteDatabase(file)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = NORMAL')
  database.pragma('busy_timeout = 10000')
  database.pragma('foreign_keys = ON')
  // Fewer, larger checkpoints and a 64 MB page cache: both measurably cheaper per write on the hot path.
  database.pragma('wal_autocheckpoint = 10000')
  database.pragma('cache_size = -65536')
  const db = new Kysely<Database>({
    dialect: new HeraldSqliteDialect({ database: withStatementCache(database) }),
  })
  return {
    db,
    dialect: 'sqlite',
    ...(file !== ':memory:' ? { sqliteFile: path.resolve(file) } : {}),
    batchedTransaction: createBatchedTransactions(db, 'sqlite'),
    destroy: () => db.destroy(),
  }
}

const STATEMENT_CACHE_SIZE = 500

/**
 * Kysely prepares every query afresh; preparing is a sizeable share of a short query's cost in SQLite, so
 * statements are kept by their SQL text (least recently used dropped first). A better-sqlite3 statement is
 * reusable as long as it is not iterated concurrently, and Kysely's driver runs one query at a time.
 */
function withStatementCache(database: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const cache = new Map<string, SqliteDatabase.Statement>()
  return {
    close: () => database.close(),
    prepare(text: string) {
      // Every transaction Kysely opens (`begin`) starts as BEGIN IMMEDIATE: it takes the write lock before
      // its first read, so a transaction that reads and then writes cannot fail with SQLITE_BUSY because
      // another process wrote in between (busy_timeout does not cover that upgrade).
      const sqlText = text === 'begin' ? 'begin immediate' : text
      let statement = cache.get(sqlText)
      if (statement) {
        cache.delete(sqlText)
      } else {
        statement = database.prepare(sqlText)
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
      }
      cache.set(sqlText, statement)
      return statement
    },
  }
}

async function openPostgres(options: StoreOptions): Promise<Store> {
  // Loaded here, so that a process on SQLite (the embedded default, every CLI command on it) never loads it.
  const { default: pg } = await import('pg')
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      // Counts and epoch-millisecond timestamps are int8; they fit in a double.
      oid === INT8_OID || oid === NUMERIC_OID ? Number : pg.types.getTypeParser(oid, format),
  }
  if (options.schema) {
    const admin = new pg.Client({ connectionString: options.databaseUrl })
    await admin.connect()
    await admin.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema.replace(/"/g, '')}"`)
    await admin.end()
  }
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolSize ?? 10,
    types,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    db,
    dialect: 'postgres',
    pgPool: pool,
    batchedTransaction: createBatchedTransactions(db, 'postgres'),
    destroy: () => db.destroy(),
  }
}

class StaticMigrations implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations() {
    return this.migrations
  }
}

export interface MigrateOptions {
  /** SQLite: copy a database that holds data next to itself before migrating it (see {@link StoreOptions}). */
  copyBeforeMigrating?: boolean
  onCopy?: (file: string) => void
  /** The migrations to run instead of Herald's (tests of the migration run itself). */
  migrations?: Record<string, Migration>
}

/** Herald's migrations by name, in the order they were written. */
export function heraldMigrations(dialect: Dialect, vault?: Binder): Record<string, Migration> {
  return {
    '001-init': createInitMigration(dialect),
    '002-target-progress': createTargetProgressMigration(),
    '003-target-profile-unique': createTargetProfileUniqueMigration(),
    '004-unknown-outcomes': createUnknownOutcomesMigration(),
    '005-pending-grants': createPendingGrantsMigration(),
    '006-refresh-lease': createRefreshLeaseMigration(),
    '007-cache-media-lifetime': createMediaLifetimeMigration(),
    '008-lookups-and-stuck-reasons': createLookupsAndStuckReasonsMigration(),
    '010-invitations': createInvitationsMigration(),
    '011-oauth-server': createOAuthServerMigration(),
    '012-events-webhooks': createEventsWebhooksMigration(dialect),
    '013-thread-items': createThreadItemsMigration(),
    '014-team-workflow': createTeamWorkflowMigration(),
    '016-expiring-notices': createExpiringNoticesMigration(),
    '017-bound-secrets': createBoundSecretsMigration(vault),
    '018-claimable-pending-only': createClaimablePendingOnlyMigration(),
    '019-event-snapshots': createEventSnapshotsMigration(),
    '020-outbox-pending-indexes': createOutboxPendingIndexesMigration(),
    '021-deliveries-due-index': createDeliveriesDueIndexMigration(),
    '022-due-index-claim-only': createDueIndexClaimOnlyMigration(),
    '023-attempts-by-delivery': createAttemptsByDeliveryMigration(),
    '024-wider-ledger-reference': createWiderLedgerReferenceMigration(dialect),
    '025-network-apps': createNetworkAppsMigration(),
    '026-instance-setup': createInstanceSetupMigration(),
    '027-compose-groups': createComposeGroupsMigration(),
    '029-target-history': createTargetHistoryMigration(),
    '033-google-business-details': createGoogleBusinessDetailsMigration(),
    '028-alt-texts-and-avatars': createAltTextsAndAvatarsMigration(),
    '030-tiktok-details': createTikTokDetailsMigration(),
    '031-pinterest-details': createPinterestDetailsMigration(),
    '032-mastodon-instances': createMastodonInstancesMigration(),
    '034-backup-runs': createBackupRunsMigration(),
  }
}

/** The name of the latest migration Herald knows: the schema version a backup records. */
export const latestMigration = (dialect: Dialect) => Object.keys(heraldMigrations(dialect)).at(-1) as string

export async function migrate(store: Store, vault?: Binder, options: MigrateOptions = {}): Promise<void> {
  // Postgres: keep Kysely's bookkeeping in the schema in use; its existence check would otherwise find the
  // migration table of another schema in the same database and skip creating this one's.
  const schema =
    store.dialect === 'postgres'
      ? (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(store.db)).rows[0]?.schema
      : undefined
  const migrations = options.migrations ?? heraldMigrations(store.dialect, vault)
  const applied = await appliedMigrations(store, schema)
  if (applied && Object.keys(migrations).every((name) => applied.has(name))) return
  const copy =
    store.sqliteFile && applied && applied.size > 0 && options.copyBeforeMigrating !== false
      ? await copyBeforeMigrating(store.db, store.sqliteFile)
      : undefined
  if (copy) options.onCopy?.(copy)
  const migrator = new Migrator({
    db: store.db,
    provider: new StaticMigrations(migrations),
    ...(schema ? { migrationTableSchema: schema } : {}),
    // Migration numbers are handed out per change in parallel work, so a database may already hold a later
    // one (011, 014) when an earlier number (008) lands; each migration only adds what it names.
    allowUnorderedMigrations: true,
  })
  // Kysely locks migrations on Postgres but not on SQLite (one connection per process). When two processes
  // (`herald api` and `herald worker`) start on a new SQLite file at once, the loser's migration can fail
  // because the winner's tables exist; every pending migration runs in one transaction (on SQLite too, see
  // TransactionalDdlSqliteAdapter), so it rolled back whole, and it waits and looks again.
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest()
    if (!error) return
    const race =
      !(error instanceof VaultKeyNeeded) &&
      (store.dialect === 'sqlite' ? sqliteRace(error) : catalogRace(error, schema))
    if (race && attempt < 10) {
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
      continue
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    const kept = copy ? ` The database is as it was before the run; a copy from before it is at ${copy}.` : ''
    throw new Error(`Database migration ${failed ?? ''} failed: ${(error as Error).message}.${kept}`)
  }
}

/** Another process migrating the same new SQLite file at the same moment (its tables, or its write lock). */
const sqliteRace = (error: unknown) =>
  /already exists|database is locked|SQLITE_BUSY/i.test(String((error as Error).message))

/**
 * The migrations recorded already (undefined for a new database, which has no migration table yet): whether
 * every one is applied is the usual case at every start and every CLI command, answered with one query
 * instead of Kysely's migrator, which reads the whole catalog (each table's columns) first.
 */
export async function appliedMigrations(store: Store, schema?: string): Promise<Set<string> | undefined> {
  // On Postgres the table of the schema in use, never another schema's that the search path also reaches.
  const table = schema ? sql.id(schema, 'kysely_migration') : sql.id('kysely_migration')
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM ${table}`.execute(store.db)
    return new Set(rows.map((row) => row.name))
  } catch {
    // No migration table yet (a new database): the migrator creates it.
    return undefined
  }
}

/**
 * Kysely's migrator reads the catalog of every schema (table and schema introspection) before it takes its
 * lock. A schema or table that another session drops at that moment fails the read with "schema … does not
 * exist" (3F000), "relation … does not exist" (42P01) or "column … of relation … does not exist" (42703)
 * naming that other schema's object, or with "cache lookup failed" (XX000); nothing was written, so the
 * migration is tried again.
 */
export function catalogRace(error: unknown, ownSchema: string | undefined): boolean {
  const { code, message } = error as { code?: string; message?: string }
  const text = String(message)
  if (!ownSchema || text.includes(`"${ownSchema}"`) || text.includes(`${ownSchema}.`)) return false
  return (
    code === '3F000' ||
    code === '42P01' ||
    code === '42703' ||
    (code === 'XX000' && text.includes('cache lookup failed'))
  )
}

/** True when the database answers a trivial query (readiness probe). */
export async function isReachable(store: Store): Promise<boolean> {
  try {
    await sql`SELECT 1`.execute(store.db)
    return true
  } catch {
    return false
  }
}
