import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/networks/registry.js'
import { openStore } from '../../src/store/db.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const run = promisify(execFile)

/** `npm run herald -- sandbox connect --network threads --username U` against a running sandbox-mode server. */
describe('`npm run herald -- sandbox connect --network threads`', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-threads-cli-'))
  let h: Harness
  const herald = (...args: string[]) =>
    run(path.resolve('node_modules/.bin/tsx'), ['src/cli.ts', ...args], {
      env: {
        ...process.env,
        DATABASE_URL: '',
        HERALD_DATA_DIR: dataDir,
        HERALD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
        HERALD_SANDBOX: '1',
        PUBLIC_BASE_URL: h.baseUrl,
        LOG_LEVEL: 'warn',
      },
    })

  beforeAll(async () => {
    h = await startHarness({
      sandbox: true,
      backend: { name: 'sqlite', open: () => openStore({ sqlitePath: path.join(dataDir, 'herald.sqlite') }) },
    })
  })
  afterAll(async () => {
    await h?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('connects the simulated profile through the whole flow and prints it as JSON on the last line', async () => {
    const { stdout } = await herald(
      'sandbox',
      'connect',
      '--workspace',
      h.workspaceId,
      '--network',
      'threads',
      '--username',
      'Dock Radio',
      '--json',
    )
    const connected = JSON.parse(stdout.trim().split('\n').at(-1)!)
    expect(connected).toMatchObject({
      workspaceId: h.workspaceId,
      platform: 'threads',
      username: 'dockradio',
      name: 'Dock Radio',
      isOrganization: false,
      status: 'active',
    })
    expect(connected.profileId).toMatch(/^\d+$/)
    const row = await h.app.store.db
      .selectFrom('connections')
      .select(['token_expires_at'])
      .where('id', '=', connected.connectionId)
      .executeTakeFirstOrThrow()
    // Herald refreshes the 60-day token ten days early.
    expect(Number(row.token_expires_at) - Date.now()).toBeGreaterThan(49 * 24 * 60 * 60 * 1000)
    const sandbox = (await (await fetch(`${h.baseUrl}${sandboxPrefixes.threads}/_sandbox/state`)).json()) as {
      violations: string[]
    }
    expect(sandbox.violations).toEqual([])
  }, 60_000)
})
