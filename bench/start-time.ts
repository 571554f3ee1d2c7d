import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '../test/helpers/harness.js'

export interface StartTimeResult {
  command: string
  medianMs: number
  minMs: number
  runs: number
}

/**
 * How long a command takes from spawn to its /healthz answering, on a fresh data folder each run (so the
 * migrations are part of it), median of `runs`. The whole process group is stopped after each run.
 */
export async function benchStartTime(command: string, runs = 7): Promise<StartTimeResult> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-start-'))
    const port = await freePort()
    const started = performance.now()
    const child = spawn('bash', ['-c', command], {
      detached: true,
      stdio: 'ignore',
      env: {
        ...process.env,
        HERALD_DATA_DIR: dataDir,
        PORT: String(port),
        HERALD_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
        LOG_LEVEL: 'warn',
      },
    })
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (up) break
      if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    times.push(performance.now() - started)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    process.kill(-(child.pid as number), 'SIGTERM')
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
  times.sort((a, b) => a - b)
  return {
    command,
    medianMs: Math.round(times[Math.floor(times.length / 2)] as number),
    minMs: Math.round(times[0] as number),
    runs,
  }
}
