import { type Kysely, sql } from 'kysely'
import { z } from 'zod'
import type { Database } from '../../platform/db/schema.js'

/**
 * What a backup says about itself (`manifest.json`, the archive's first entry): which Herald made it, of
 * which schema, how many of each thing it holds, and which keys sealed its secrets (their ids only: the key
 * itself is never in a backup). Restore and verify read it before anything else.
 */

export const BACKUP_FORMAT = 'herald-backup'
export const BACKUP_FORMAT_VERSION = 1

export const countsSchema = z.object({
  people: z.number().int().min(0),
  workspaces: z.number().int().min(0),
  posts: z.number().int().min(0),
  targets: z.number().int().min(0),
  media: z.number().int().min(0),
  connections: z.number().int().min(0),
  webhookEndpoints: z.number().int().min(0),
})

export type BackupCounts = z.infer<typeof countsSchema>

/** Which table each count is of (the same on both databases). */
export const COUNTED_TABLES: Record<keyof BackupCounts, keyof Database> = {
  people: 'users',
  workspaces: 'workspaces',
  posts: 'posts',
  targets: 'targets',
  media: 'media',
  connections: 'connections',
  webhookEndpoints: 'webhook_endpoints',
}

export const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  formatVersion: z.literal(BACKUP_FORMAT_VERSION),
  id: z.string().min(1),
  createdAt: z.string(),
  heraldVersion: z.string(),
  database: z.enum(['sqlite', 'postgres']),
  /** Postgres: the schema the dump is of (a restore plays it back into the same schema). */
  postgresSchema: z.string().optional(),
  /** The latest migration applied, and every one. */
  schemaVersion: z.string(),
  migrations: z.array(z.string()),
  counts: countsSchema,
  /** The archive's entry holding the database: `database.sqlite` or `database.sql`. */
  databaseEntry: z.string(),
  media: z.object({ driver: z.enum(['local', 's3']) }),
  secrets: z.object({
    /** Sealed values in the database (tokens, webhook secrets, network app secrets); they stay sealed. */
    sealedValues: z.number().int().min(0),
    /** The ids of the keys that sealed them (first 8 hex of each key's SHA-256). */
    keyIds: z.array(z.string()),
    /** A value sealed with the backing-up key, so a restore knows the key before it writes anything. */
    keyCheck: z.string(),
  }),
})

export type BackupManifest = z.infer<typeof manifestSchema>

export const checksumsSchema = z.object({
  sha256: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
  /** Hosted media whose row the database holds but whose bytes were gone when the backup read them. */
  missingMedia: z.array(z.string()),
})

export type BackupChecksums = z.infer<typeof checksumsSchema>

/** Where the backup's key check is sealed: a place no table has, so it opens nowhere else. */
export const keyCheckAt = (backupId: string) => ({
  table: 'herald_backup',
  column: 'key_check',
  id: backupId,
})

/** Every column that holds vault ciphertext (the same list `herald secrets rotate` walks). */
const SEALED_COLUMNS = [
  ['connections', 'credentials'],
  ['oauth_states', 'code_verifier'],
  ['pending_grants', 'sealed'],
  ['webhook_endpoints', 'secret'],
  ['webhook_endpoints', 'previous_secret'],
  ['network_apps', 'client_secret'],
] as const

export async function countRows(db: Kysely<Database>): Promise<BackupCounts> {
  const entries = await Promise.all(
    Object.entries(COUNTED_TABLES).map(async ([name, table]) => {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      return [name, Number(row.n)] as const
    }),
  )
  return Object.fromEntries(entries) as BackupCounts
}

/** How many sealed values the database holds, and the ids of the keys that sealed them. */
export async function sealedKeyIds(
  db: Kysely<Database>,
): Promise<{ sealedValues: number; keyIds: string[] }> {
  const ids = new Set<string>()
  let sealedValues = 0
  for (const [table, column] of SEALED_COLUMNS) {
    // The key id is the second dot-separated part of `v2.<keyId>.<iv>.<tag>.<data>`.
    const { rows } = await sql<{ key_id: string; n: number }>`
      SELECT substr(${sql.ref(column)}, 4, 8) AS key_id, count(*) AS n FROM ${sql.table(table)}
      WHERE ${sql.ref(column)} IS NOT NULL GROUP BY substr(${sql.ref(column)}, 4, 8)`.execute(db)
    for (const row of rows) {
      ids.add(row.key_id)
      sealedValues += Number(row.n)
    }
  }
  return { sealedValues, keyIds: [...ids].sort() }
}

/** The migrations applied, oldest first by name (each name starts with its number). */
export async function appliedMigrationNames(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db)
  return rows.map((row) => row.name)
}

/** `media.json`: each hosted file the backup takes, with what storage needs to put it back. */
export const mediaListSchema = z.array(
  z.object({ key: z.string(), contentType: z.string(), size: z.number().int().min(0) }),
)

export type MediaList = z.infer<typeof mediaListSchema>
