import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { appliedMigrations, heraldMigrations, openStore, type Store } from '../../src/platform/db/db.js'
import { type Backend, postgresTestUrl } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { manage } from '../helpers/team.js'

/**
 * A database made by an older Herald (commit aa63b8c, migrations 001 to 023; made by
 * test/fixtures/upgrade/make-fixture.mjs, whose comment says how) upgraded to today's schema: every answer that
 * Herald gave then is asked again, with the same clock and key, and today's answer must say the same (it may
 * add fields; none may be missing or changed).
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/upgrade')

interface Recorded {
  now: number
  apiKey: string
  answers: Array<{
    tool?: string
    route?: string
    args?: Record<string, unknown>
    status: number
    body: unknown
  }>
}

/**
 * Fields whose value the code, not the data, defines anew after aa63b8c, each with why that keeps its meaning.
 * `approval.version` is a fingerprint of what approving would send; its recipe now also covers thread items
 * and each profile's state, so an owner holding one from before the upgrade is refused (409) and asked to look
 * again, which is the answer the field promises for a post that may have changed.
 */
const REDEFINED = [/\.approval\.version$/]

/** `then` said again in `now`: every field of `then` is in `now`, equal (lists the same length, item by item). */
function expectSaidAgain(then: unknown, now: unknown, where: string) {
  if (REDEFINED.some((field) => field.test(where))) {
    expect(typeof now, where).toBe(typeof then)
    return
  }
  if (Array.isArray(then)) {
    expect(Array.isArray(now), where).toBe(true)
    expect((now as unknown[]).length, `${where}.length`).toBe(then.length)
    for (const [i, item] of then.entries()) expectSaidAgain(item, (now as unknown[])[i], `${where}[${i}]`)
  } else if (then !== null && typeof then === 'object') {
    expect(now !== null && typeof now === 'object', where).toBe(true)
    for (const [key, value] of Object.entries(then))
      expectSaidAgain(value, (now as Record<string, unknown>)[key], `${where}.${key}`)
  } else expect(now, where).toEqual(then)
}

function copyMedia(kind: string, dataDir: string) {
  fs.cpSync(path.join(FIXTURES, kind, 'media'), path.join(dataDir, 'media'), { recursive: true })
}

async function sqliteFixture(dataDir: string): Promise<Backend & { copies: string[] }> {
  const file = path.join(dataDir, 'herald.sqlite')
  const database = new SqliteDatabase(file)
  database.exec(fs.readFileSync(path.join(FIXTURES, 'sqlite', 'herald.sql'), 'utf8'))
  database.close()
  copyMedia('sqlite', dataDir)
  const copies: string[] = []
  return {
    name: 'sqlite',
    copies,
    open: () => openStore({ sqlitePath: file, onCopyBeforeMigrating: (copy) => copies.push(copy) }),
  }
}

async function postgresFixture(url: string, dataDir: string): Promise<Backend & { copies: string[] }> {
  const schema = `herald_upgrade_${randomBytes(5).toString('hex')}`
  const dump = fs.readFileSync(path.join(FIXTURES, 'postgres', 'herald.sql'), 'utf8')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    // The dump names its schema in every statement; the fixture's own is played back under a fresh name.
    // Its psql meta-commands (\restrict, \unrestrict) are psql's own, not SQL, and are left out.
    const statements = dump
      .split('\n')
      .filter((line) => !line.startsWith('\\'))
      .join('\n')
    await client.query(statements.replaceAll('herald_upgrade_fixture', schema))
  } finally {
    await client.end()
  }
  copyMedia('postgres', dataDir)
  return {
    name: 'postgres',
    copies: [],
    async open(): Promise<Store> {
      const store = await openStore({ databaseUrl: url, schema })
      return {
        ...store,
        async destroy() {
          await store.destroy()
          const admin = new pg.Client({ connectionString: url })
          await admin.connect()
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
          await admin.end()
        },
      }
    },
  }
}

const kinds = ['sqlite', ...(postgresTestUrl ? ['postgres'] : [])] as const

describe.each(kinds)('a database made by an older Herald, upgraded (%s)', (kind) => {
  const dataDir = fs.mkdtempSync(path.join(tmpdir(), `herald-upgrade-${kind}-`))
  const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, kind, 'answers.json'), 'utf8')) as Recorded
  let h: Harness
  let fixture: Backend & { copies: string[] }

  beforeAll(async () => {
    fixture =
      kind === 'sqlite'
        ? await sqliteFixture(dataDir)
        : await postgresFixture(postgresTestUrl as string, dataDir)
    h = await startHarness({
      backend: fixture,
      clock: new FakeClock(recorded.now),
      fresh: true,
      env: { HERALD_DATA_DIR: dataDir },
    })
  })
  afterAll(async () => {
    await h?.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("runs today's migrations, after a copy next to the database on SQLite", async () => {
    const applied = await appliedMigrations(
      h.app.store,
      kind === 'postgres' ? await currentSchema(h) : undefined,
    )
    expect([...(applied ?? [])].sort()).toEqual(Object.keys(heraldMigrations(h.app.store.dialect)).sort())
    if (kind === 'sqlite') {
      expect(fixture.copies).toHaveLength(1)
      const copy = new SqliteDatabase(fixture.copies[0] as string, { readonly: true })
      const last = copy.prepare('SELECT max(name) AS name FROM kysely_migration').get() as { name: string }
      copy.close()
      expect(last.name).toBe('023-attempts-by-delivery')
    }
  })

  it('answers every tool and management call as the older Herald did', async () => {
    expect(recorded.answers.length).toBeGreaterThanOrEqual(19)
    for (const answer of recorded.answers) {
      const again = answer.tool
        ? await h.call(answer.tool, answer.args ?? {}, { key: recorded.apiKey })
        : await manage(h, 'GET', answer.route as string, undefined, { key: recorded.apiKey })
      const what = answer.tool ? `${answer.tool} ${JSON.stringify(answer.args)}` : (answer.route as string)
      expect(again.status, what).toBe(answer.status)
      expectSaidAgain(answer.body, again.body, what)
    }
  })

  it('holds posts in every state, the connections, the webhook endpoint, the approvals and the hosted media', async () => {
    const db = h.app.store.db
    const statuses = (await db.selectFrom('posts').select('status').execute()).map((p) => p.status)
    for (const status of ['scheduled', 'published', 'failed', 'processing', 'draft'])
      expect(statuses).toContain(status)
    const approvals = (await db.selectFrom('posts').select('approval').execute()).map((p) => p.approval)
    for (const state of ['pending', 'approved', 'rejected']) expect(approvals).toContain(state)
    expect(await db.selectFrom('connections').select('id').execute()).toHaveLength(3)
    const media = await db.selectFrom('media').select(['id', 'name']).executeTakeFirstOrThrow()
    const served = await fetch(`${h.baseUrl}/media/${media.id}/${media.name}`)
    expect(served.status).toBe(200)
    expect(
      Buffer.from(await served.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG')
    // Every post has its compose id now (migration 027 gave each older post its own).
    const composes = await db.selectFrom('posts').select(['id', 'compose_id']).execute()
    expect(composes.every((p) => p.compose_id === p.id)).toBe(true)
    // The sealed tokens open with the same key after the migrations.
    const { rows } = await db
      .selectFrom('connections')
      .select(['id', 'credentials'])
      .execute()
      .then((r) => ({ rows: r }))
    for (const row of rows)
      expect(
        h.app.vault.openJson<{ accessToken: string }>(
          { table: 'connections', column: 'credentials', id: row.id },
          row.credentials,
        ).accessToken,
      ).toMatch(/^access-/)
  })
})

async function currentSchema(h: Harness) {
  return (await h.app.store.pgPool?.query('SELECT current_schema() AS s'))?.rows[0].s as string
}
