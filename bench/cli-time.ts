import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface CliTimeResult {
  command: string
  medianMs: number
  minMs: number
  runs: number
}

/**
 * How long an admin command takes from spawn to exit against a data folder that already holds a person
 * (so migrations are up to date and the command reads a few rows), beside a bare `node -e 0` in the same run.
 */
export async function benchCliTime(runs = 15): Promise<CliTimeResult[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-cli-bench-'))
  const env = {
    ...process.env,
    HERALD_DATA_DIR: dataDir,
    DATABASE_URL: '',
    HERALD_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
    LOG_LEVEL: 'warn',
  }
  const herald = (...args: string[]) => run(process.execPath, ['bin/herald.js', ...args], { env })
  await herald(
    'bootstrap',
    '--email',
    'bench@example.com',
    '--password',
    'a long password',
    '--workspace',
    'B',
  )
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['node -e 0', () => run(process.execPath, ['-e', '0'], { env })],
    [
      'herald keys list --email bench@example.com',
      () => herald('keys', 'list', '--email', 'bench@example.com'),
    ],
    [
      'herald credits add --amount -5 (a usage error)',
      () => herald('credits', 'add', '--amount', '-5').catch(() => 0),
    ],
  ]
  const results: CliTimeResult[] = []
  for (const [command, once] of cases) {
    await once()
    const times: number[] = []
    for (let i = 0; i < runs; i++) {
      const started = performance.now()
      await once()
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    results.push({
      command,
      medianMs: Math.round(times[Math.floor(times.length / 2)] as number),
      minMs: Math.round(times[0] as number),
      runs,
    })
  }
  rmSync(dataDir, { recursive: true, force: true })
  return results
}
