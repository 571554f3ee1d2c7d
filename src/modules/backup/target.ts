import fs from 'node:fs'
import { rename } from 'node:fs/promises'
import path from 'node:path'
import { sql } from 'kysely'
import type { Config } from '../../platform/config.js'
import { connectStore } from '../../platform/db/db.js'
import { holdsHeraldTables } from '../../platform/db/postgres-dump.js'
import type { Database } from '../../platform/db/schema.js'

/**
 * Where a restore goes: whether it already holds data (a restore refuses to replace that unless forced), and
 * the swap that puts restored files in place, moving what was there aside first and back again if a step
 * fails, so the data folder ends either as it was or wholly restored.
 */

export const sqliteFileOf = (config: Config) => path.join(config.dataDir, 'herald.sqlite')

const nonEmptyDir = (dir: string) => {
  try {
    return fs.readdirSync(dir).length > 0
  } catch {
    return false
  }
}

/** The tables whose rows make a Postgres database one that holds data (one a first command made has none). */
const DATA_TABLES: (keyof Database)[] = ['users', 'workspaces', 'posts', 'connections', 'media']

async function rowsIn(db: import('kysely').Kysely<Database>): Promise<number> {
  let total = 0
  for (const table of DATA_TABLES) {
    const row = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)
    total += Number(row.rows[0]?.n ?? 0)
  }
  return total
}

/** What the configured database and media folder hold, in words; empty when they hold nothing. */
export async function dataHeldAt(config: Config): Promise<string[]> {
  const held: string[] = []
  if (config.media.driver === 'local' && nonEmptyDir(config.media.dir))
    held.push(`hosted media in ${config.media.dir}`)
  if (config.databaseUrl) {
    const store = await connectStore({ databaseUrl: config.databaseUrl, poolSize: 1 })
    try {
      if ((await holdsHeraldTables(store.db)) && (await rowsIn(store.db)) > 0)
        held.push("Herald's tables with rows in the database of DATABASE_URL")
    } finally {
      await store.destroy()
    }
    return held
  }
  // The file is not opened: even a read-only connection to a WAL database leaves files beside it, and a
  // refused restore changes nothing. Any database file there is data (a first command's empty one included).
  const file = sqliteFileOf(config)
  if (fs.existsSync(file)) held.push(`the database ${file}`)
  return held
}

/** One file or folder to put in place: `from` (restored) becomes `to`; what was at `to` goes into `aside`. */
export interface Placement {
  from: string | undefined
  to: string
}

export interface Placed {
  /** Whether anything that was there was moved aside. */
  movedAside: boolean
  /** Moves everything back as it was (a later step failed). */
  undo(): Promise<void>
}

/**
 * Moves each `to` that exists into `aside` (kept, named as it was), then each `from` to its `to`. A failure
 * moves everything back, and so does `undo`.
 */
export async function place(placements: Placement[], aside: string): Promise<Placed> {
  const movedAside: Array<[string, string]> = []
  const placed: Array<[string, string]> = []
  const undo = async () => {
    for (const [to, from] of placed.reverse()) await rename(to, from).catch(() => undefined)
    for (const [kept, to] of movedAside.reverse()) await rename(kept, to).catch(() => undefined)
  }
  try {
    for (const { to } of placements) {
      if (!fs.existsSync(to)) continue
      fs.mkdirSync(aside, { recursive: true })
      const kept = path.join(aside, path.basename(to))
      await rename(to, kept)
      movedAside.push([kept, to])
    }
    for (const { from, to } of placements) {
      if (!from) continue
      fs.mkdirSync(path.dirname(to), { recursive: true })
      await rename(from, to)
      placed.push([to, from])
    }
    return { movedAside: movedAside.length > 0, undo }
  } catch (error) {
    await undo()
    throw error
  }
}
