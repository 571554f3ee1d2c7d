import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../../src/store/db.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const run = promisify(execFile)

/** `npm run herald -- sandbox connect --network linkedin [--organization]` against a running sandbox-mode server. */
describe('`npm run herald -- sandbox connect --network linkedin`', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-linkedin-cli-'))
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
  const connect = async (...extra: string[]) => {
    const { stdout } = await herald(
      'sandbox',
      'connect',
      '--workspace',
      h.workspaceId,
      '--network',
      'linkedin',
      '--username',
      'Jo Park',
      ...extra,
      '--json',
    )
    return JSON.parse(stdout.trim().split('\n').at(-1)!)
  }

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

  it("connects the member's personal profile and prints it as JSON on the last line", async () => {
    expect(await connect()).toMatchObject({
      workspaceId: h.workspaceId,
      platform: 'linkedin',
      username: 'Jo Park',
      name: 'Jo Park',
      isOrganization: false,
      status: 'active',
    })
  }, 60_000)

  it('with --organization connects a page the member administers', async () => {
    const page = await connect('--organization')
    expect(page).toMatchObject({
      platform: 'linkedin',
      username: 'jo-park-studio',
      name: 'Jo Park Studio',
      isOrganization: true,
      status: 'active',
    })
    expect(page.profileId).toMatch(/^\d+$/)
  }, 60_000)

  it('refuses --organization for a network that has no pages to choose', async () => {
    const failed = await herald(
      'sandbox',
      'connect',
      '--workspace',
      h.workspaceId,
      '--network',
      'twitter',
      '--username',
      'someone',
      '--organization',
    ).catch((error: { code: number; stderr: string }) => error)
    expect((failed as { code: number }).code).not.toBe(0)
    expect((failed as { stderr: string }).stderr).toMatch(/--organization is for linkedin/)
  }, 60_000)
})
