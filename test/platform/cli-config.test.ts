import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort, startHarness } from '../helpers/harness.js'

const run = promisify(execFile)
const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-cli-config-'))
const baseEnv = {
  ...process.env,
  DATABASE_URL: '',
  HERALD_DATA_DIR: dataDir,
  HERALD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  HERALD_ENV_FILE: path.join(dataDir, 'none.env'),
  LOG_LEVEL: 'warn',
}
const herald = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [path.resolve('bin/herald.js'), ...args], { env: { ...baseEnv, ...env } }).catch(
    (error: { code: number; stdout: string; stderr: string }) => error,
  )

// The compiled command, as `npx herald` runs it (`npm test` builds dist/ first).
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('the herald command', { timeout: 120_000 }, () => {
  it('prints its commands with --help from the compiled build (npx herald --help)', async () => {
    const { stdout } = await run(process.execPath, [path.resolve('bin/herald.js'), '--help'], {
      env: baseEnv,
    })
    for (const command of ['bootstrap', 'keys create', 'sandbox connect', 'secrets rotate', 'worker'])
      expect(stdout).toContain(command)
  })

  it('says which data folder it uses, and that it created a new database there', async () => {
    const first = await herald([
      'users',
      'create',
      '--email',
      'x@example.com',
      '--password',
      'long enough pw',
    ])
    expect(first.stderr).toContain(`using data folder ${dataDir}`)
    expect(first.stderr).toMatch(/did not exist and was created empty.*HERALD_DATA_DIR/)
    const second = await herald(['keys', 'list', '--email', 'x@example.com'])
    expect(second.stderr).toContain(`using data folder ${dataDir}`)
    expect(second.stderr).not.toContain('created empty')
  })
})

describe('sandbox connect says what to set', { timeout: 120_000 }, () => {
  const connect = (env: Record<string, string>) =>
    herald(
      [
        'sandbox',
        'connect',
        '--workspace',
        'ffffffffffffffffffffffff',
        '--network',
        'twitter',
        '--username',
        'u',
      ],
      env,
    ) as Promise<{ code?: number; stdout: string; stderr: string }>

  it('when no server answers', async () => {
    const port = await freePort()
    const result = await connect({ PORT: String(port) })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`No Herald answered at http://127.0.0.1:${port}`)
    expect(result.stderr).toMatch(/HERALD_SANDBOX=1 npm start.*PORT/)
  })

  it('when the server is not in sandbox mode', async () => {
    const h = await startHarness()
    try {
      const result = await connect({ PUBLIC_BASE_URL: h.baseUrl })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(
        `The Herald at ${h.baseUrl} is not in sandbox mode: restart it with HERALD_SANDBOX=1`,
      )
    } finally {
      await h.close()
    }
  })
})
