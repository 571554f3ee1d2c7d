import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { restoreBackup } from '../../src/modules/backup/restore.js'
import { type BackupResult, takeBackup } from '../../src/modules/backup/take.js'
import { verifyBackup } from '../../src/modules/backup/verify.js'
import { loadConfig } from '../../src/platform/config.js'
import { openStore, type Store } from '../../src/platform/db/db.js'
import { PostgresToolMissing } from '../../src/platform/db/postgres-dump.js'
import { backends, postgresTestUrl } from '../helpers/backends.js'
import { hostMedia } from '../helpers/backup-rig.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const KEY = Buffer.alloc(32, 7).toString('base64')

const hasPgDump = (() => {
  try {
    execFileSync('pg_dump', ['--version'])
    return true
  } catch {
    return false
  }
})()

const postgres = backends.find((b) => b.name === 'postgres')

async function admin(url: string, statement: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** The URL of another database on the same server, using `schema`. */
function urlOf(base: string, database: string, schema: string) {
  const url = new URL(base)
  url.pathname = `/${database}`
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url.href
}

const postsOf = async (store: Store) =>
  (await store.db.selectFrom('posts').select(['id', 'content', 'status']).orderBy('id').execute()).map(
    (p) => ({ ...p }),
  )

describe.runIf(postgres && postgresTestUrl && hasPgDump)(
  'a backup of a Postgres Herald (pg_dump installed)',
  () => {
    const base = postgresTestUrl as string
    const restoreDb = `herald_restore_${randomBytes(4).toString('hex')}`
    const scratch = fs.mkdtempSync(path.join(tmpdir(), 'herald-pg-backup-'))
    let h: Harness
    let schema: string
    let backup: BackupResult

    beforeAll(async () => {
      h = await startHarness({ backend: postgres, env: { DATABASE_URL: base } })
      schema = (await h.app.store.pgPool?.query('SELECT current_schema() AS s'))?.rows[0].s
      await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
      for (let i = 0; i < 12; i++) {
        const answer = await h.call('create_post', {
          content: `Postgres post ${i}, with a "quote", a tab\tand a\nnew line`,
          targetAccounts: [{ platform: 'bluesky', profileId: 'bs-1' }],
          scheduleDate: '2031-01-02',
          scheduleTime: '08:00',
        })
        expect(answer.status).toBe(200)
      }
      await hostMedia(h.app, h.workspaceId, Buffer.from('a hosted image on postgres'))
      await admin(base, `CREATE DATABASE ${restoreDb}`)
    })
    afterAll(async () => {
      await h?.close()
      await admin(base, `DROP DATABASE IF EXISTS ${restoreDb} WITH (FORCE)`)
      fs.rmSync(scratch, { recursive: true, force: true })
    })

    it('writes the same archive shape from pg_dump, verified by its counts', async () => {
      backup = await takeBackup(h.app, { dir: scratch })
      expect(backup.manifest.database).toBe('postgres')
      expect(backup.manifest.databaseEntry).toBe('database.sql')
      expect(backup.manifest.postgresSchema).toBe(schema)
      expect(backup.manifest.counts).toMatchObject({
        people: 1,
        workspaces: 1,
        posts: 12,
        targets: 12,
        media: 1,
      })
      const listing = execFileSync('tar', ['tzf', backup.file], { encoding: 'utf8' }).trim().split('\n')
      expect(listing.map((line) => line.split('/').slice(1).join('/')).slice(0, 4)).toEqual([
        'manifest.json',
        'database.sql',
        'settings.json',
        'media.json',
      ])
      const report = await verifyBackup(
        loadConfig({ HERALD_SECRET_KEY: KEY, HERALD_DATA_DIR: scratch }),
        backup.file,
      )
      expect(report.problems).toEqual([])
      expect(report.counts).toEqual(backup.manifest.counts)
    })

    it('restores into an empty database in one transaction, migrated, with the same rows', async () => {
      const target = urlOf(base, restoreDb, schema)
      const dataDir = path.join(scratch, 'restored')
      const config = loadConfig({ DATABASE_URL: target, HERALD_SECRET_KEY: KEY, HERALD_DATA_DIR: dataDir })
      const report = await restoreBackup(config, backup.file, { force: false })
      expect(report.counts).toEqual(backup.manifest.counts)
      const restored = await openStore({ databaseUrl: target })
      try {
        expect(await postsOf(restored)).toEqual(await postsOf(h.app.store))
        const media = fs.readdirSync(path.join(dataDir, 'media'), { recursive: true })
        expect(media.length).toBeGreaterThan(0)
      } finally {
        await restored.destroy()
      }
      // Again into the same database: it holds data now, so without --force nothing is played.
      await expect(restoreBackup(config, backup.file, { force: false })).rejects.toThrow(/already holds data/)
      const forced = await restoreBackup(config, backup.file, { force: true })
      expect(forced.counts).toEqual(backup.manifest.counts)
    })
  },
)

describe.runIf(postgres && postgresTestUrl && !hasPgDump)(
  'a backup of a Postgres Herald (no pg_dump here)',
  () => {
    it('says which package brings pg_dump and which command to run', async () => {
      const h = await startHarness({ backend: postgres, env: { DATABASE_URL: postgresTestUrl as string } })
      try {
        await expect(takeBackup(h.app, { dir: tmpdir() })).rejects.toBeInstanceOf(PostgresToolMissing)
      } finally {
        await h.close()
      }
    })
  },
)
