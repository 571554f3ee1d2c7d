import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { createAppContext } from '../src/app.js'
import { tools } from '../src/interfaces/tools/registry.js'
import { createToolRunner } from '../src/interfaces/tools/runner.js'
import { importContextFor, importCsv } from '../src/modules/publishing/csv-import.js'
import { loadConfig } from '../src/platform/config.js'
import { connectionCredentials } from '../src/platform/crypto/vault.js'
import { openStore, type Store } from '../src/platform/db/db.js'
import { upsertConnection } from '../src/platform/db/statements/connections.js'
import { createLogger } from '../src/platform/logger.js'
import { csvLine } from '../test/helpers/csv-fixture.js'

/**
 * A 1,000-row CSV without media (the import's limit per file), checked row by row through preflight_post,
 * then imported through create_post, then imported again (every row already imported), in one process
 * through the tool runner as the dashboard and the CLI run it. The target is under 10 s for the import.
 */

export interface ImportBenchRow {
  backend: string
  rows: number
  checkSeconds: number
  importSeconds: number
  againSeconds: number
  created: number
}

export async function benchCsvImport(
  backend: string,
  open: (() => Promise<Store>) | 'file',
  rows = 1000,
): Promise<ImportBenchRow> {
  const dir = await mkdtemp(path.join(tmpdir(), 'herald-bench-import-'))
  // 'file': the embedded default, a SQLite file in WAL mode.
  const store =
    open === 'file' ? await openStore({ sqlitePath: path.join(dir, 'herald.sqlite') }) : await open()
  const config = loadConfig({
    HERALD_DATA_DIR: dir,
    HERALD_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
  })
  const app = await createAppContext(config, {
    store,
    logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
  })
  try {
    const owner = await app.accounts.bootstrap({
      email: `bench-${Date.now()}@example.com`,
      password: 'a long bench password',
      workspace: 'Bench',
      credits: 1_000_000,
    })
    for (const [platform, profileId, username] of [
      ['linkedin', 'li-1', 'acme-li'],
      ['bluesky', 'bs-1', 'acme.bsky.social'],
    ] as const)
      await upsertConnection(
        store.db,
        {
          workspaceId: owner.workspaceId,
          platform,
          profileId,
          username,
          name: username,
          isOrganization: false,
          sealCredentials: (id) =>
            app.vault.sealJson(connectionCredentials(id), { accessToken: 'a', refreshToken: 'r' }),
          tokenExpiresAt: null,
        },
        Date.now(),
      )
    const start = Date.now() + 86_400_000
    const lines = ['content,profiles,date,time,timezone']
    for (let i = 0; i < rows; i++) {
      const at = new Date(start + i * 3_600_000)
      lines.push(
        csvLine([
          `Bench post ${i}: a line of copy, "quoted", long enough to look like a real post #bench`,
          i % 2 ? 'linkedin:acme-li' : 'linkedin; bluesky',
          at.toISOString().slice(0, 10),
          at.toISOString().slice(11, 16),
          'Europe/Berlin',
        ]),
      )
    }
    const csv = lines.join('\n')
    const runner = createToolRunner(app, tools)
    const ctx = () =>
      importContextFor(
        app,
        runner,
        { userId: owner.userId, apiKeyId: 'bench', defaultWorkspaceId: owner.workspaceId },
        { workspaceId: owner.workspaceId, role: 'owner' },
      )
    const timed = async (dryRun: boolean) => {
      const began = performance.now()
      const report = await importCsv(await ctx(), csv, { dryRun })
      return { seconds: (performance.now() - began) / 1000, report }
    }
    const check = await timed(true)
    const imported = await timed(false)
    const again = await timed(false)
    if (again.report.summary.created !== 0) throw new Error('the second import created posts')
    return {
      backend,
      rows,
      checkSeconds: round(check.seconds),
      importSeconds: round(imported.seconds),
      againSeconds: round(again.seconds),
      created: imported.report.summary.created,
    }
  } finally {
    await store.destroy()
    await rm(dir, { recursive: true, force: true })
  }
}

const round = (n: number) => Number(n.toFixed(2))
