import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../../src/store/db.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const run = promisify(execFile)

/**
 * `npm run herald -- sandbox connect` against a running sandbox-mode server that shares its SQLite file,
 * as an operator runs it beside `HERALD_SANDBOX=1 npm start`.
 */
describe('`npm run herald -- sandbox connect`', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-sandbox-cli-'))
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

  it('connects an X profile through the running server and prints it as JSON on the last line', async () => {
    const { stdout } = await herald(
      'sandbox',
      'connect',
      '--workspace',
      h.workspaceId,
      '--network',
      'twitter',
      '--username',
      'cli_demo',
      '--json',
    )
    const connected = JSON.parse(stdout.trim().split('\n').at(-1)!)
    expect(connected).toMatchObject({
      workspaceId: h.workspaceId,
      platform: 'twitter',
      username: 'cli_demo',
      isOrganization: false,
      status: 'active',
    })
    const accounts = await h.call('get_connected_accounts')
    expect(accounts.body).toContainEqual(
      expect.objectContaining({ profileId: connected.profileId, username: 'cli_demo' }),
    )
    // The command's session was removed once it was done.
    expect(await h.app.store.db.selectFrom('sessions').selectAll().execute()).toEqual([])
  })

  it('connects a YouTube channel, creating the Google account in the simulator when needed', async () => {
    const { stdout } = await herald(
      'sandbox',
      'connect',
      '--workspace',
      h.workspaceId,
      '--network',
      'youtube',
      '--username',
      'newcreator@example.com',
      '--json',
    )
    const connected = JSON.parse(stdout.trim().split('\n').at(-1)!)
    expect(connected).toMatchObject({ platform: 'youtube', username: '@newcreator', isOrganization: true })
  })

  it('connects an Instagram professional account through Instagram Login and prints it as JSON on the last line', async () => {
    const { stdout } = await herald(
      'sandbox',
      'connect',
      '--workspace',
      h.workspaceId,
      '--network',
      'instagram',
      '--username',
      'cli.maker',
      '--json',
    )
    const connected = JSON.parse(stdout.trim().split('\n').at(-1)!)
    expect(connected).toMatchObject({ platform: 'instagram', username: 'cli.maker', status: 'active' })
  })

  it('connects a Facebook Page named after the user, ticked on the choose-profiles page', async () => {
    const { stdout } = await herald(
      'sandbox',
      'connect',
      '--workspace',
      h.workspaceId,
      '--network',
      'facebook',
      '--username',
      'Corner Shop',
      '--json',
    )
    const connected = JSON.parse(stdout.trim().split('\n').at(-1)!)
    expect(connected).toMatchObject({
      platform: 'facebook',
      name: 'Corner Shop',
      isOrganization: true,
      status: 'active',
    })
  })

  it('explains itself when the workspace does not exist', async () => {
    const failed = await herald(
      'sandbox',
      'connect',
      '--workspace',
      'ffffffffffffffffffffffff',
      '--network',
      'twitter',
      '--username',
      'x',
    ).catch((error) => error)
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain('No workspace ffffffffffffffffffffffff')
  })
})
