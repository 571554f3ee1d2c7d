import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { openStore } from '../../src/platform/db/db.js'
import { removeDataDir } from './data-dir.js'
import { type Harness, type HarnessOptions, startHarness } from './harness.js'

const bin = path.resolve(import.meta.dirname, '../../bin/herald.js')

/**
 * Runs the `herald` command as users run it: the compiled build (`npm test` and `npm install` build
 * dist/ first), which starts in a fraction of the time a transpiler would take.
 */
export function runHerald(args: string[], env: NodeJS.ProcessEnv) {
  if (!existsSync(path.resolve(import.meta.dirname, '../../dist/cli.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm install and npm test do it)')
  return promisify(execFile)(process.execPath, [bin, ...args], { env })
}

/** The JSON object a `--json` command prints on its last line. */
export function lastJsonLine(stdout: string): any {
  return JSON.parse(stdout.trim().split('\n').at(-1) as string)
}

/**
 * A sandbox-mode Herald server and the `herald` command beside it sharing its SQLite file, as an operator
 * runs `npm run herald -- sandbox connect` next to `HERALD_SANDBOX=1 npm start`.
 */
export interface SandboxCli {
  readonly harness: Harness
  /** `herald ...args` against the running server. */
  herald(...args: string[]): Promise<{ stdout: string; stderr: string }>
  /** `herald sandbox connect --json` in the harness's workspace: the connected profile it prints. */
  connect(network: string, username: string, ...flags: string[]): Promise<any>
  /** Stops the server and removes its data directory. */
  close(): Promise<void>
}

/** Starts a {@link SandboxCli} in a fresh data directory named after `prefix`. */
export async function startSandboxCli(
  prefix: string,
  options: Omit<HarnessOptions, 'sandbox' | 'backend'> = {},
): Promise<SandboxCli> {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix))
  let harness: Harness
  try {
    harness = await startHarness({
      ...options,
      sandbox: true,
      backend: { name: 'sqlite', open: () => openStore({ sqlitePath: path.join(dataDir, 'herald.sqlite') }) },
    })
  } catch (error) {
    removeDataDir(dataDir)
    throw error
  }
  const env = {
    ...process.env,
    DATABASE_URL: '',
    HERALD_DATA_DIR: dataDir,
    HERALD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    HERALD_SANDBOX: '1',
    PUBLIC_BASE_URL: harness.baseUrl,
    LOG_LEVEL: 'warn',
  }
  const herald = (...args: string[]) => runHerald(args, env)
  return {
    harness,
    herald,
    async connect(network, username, ...flags) {
      const { stdout } = await herald(
        'sandbox',
        'connect',
        '--workspace',
        harness.workspaceId,
        '--network',
        network,
        '--username',
        username,
        ...flags,
        '--json',
      )
      return lastJsonLine(stdout)
    },
    async close() {
      await harness.close()
      removeDataDir(dataDir)
    },
  }
}
