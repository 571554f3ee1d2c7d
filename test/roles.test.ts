import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-roles-'))

function start(role: 'api' | 'worker'): {
  child: ChildProcess
  running: Promise<{ url: string }>
  exited: Promise<number | null>
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', role], {
    env: {
      ...process.env,
      HERALD_DATA_DIR: dataDir,
      DATABASE_URL: '',
      PORT: '0',
      LOG_LEVEL: 'info',
      HERALD_SECRET_KEY: '',
      HERALD_METRICS_TOKEN: 'metrics-token-for-tests-0123456789',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const running = new Promise<{ url: string }>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += chunk.toString()
      const listening = /"msg":"Server listening at (http:\/\/[^"]+)"/.exec(output)
      if (listening && output.includes('Herald is running')) resolve({ url: listening[1] as string })
    })
    child.on('exit', (code) => reject(new Error(`${role} exited with ${code}: ${output}`)))
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, running, exited }
}

describe('herald api and herald worker as separate processes', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('start together on a brand-new data folder, share one generated key, serve their halves and stop on SIGTERM', async () => {
    const api = start('api')
    const worker = start('worker')
    const [apiUp, workerUp] = await Promise.all([api.running, worker.running])

    expect((await fetch(`${apiUp.url}/api/tools/list_workspaces`, { method: 'POST' })).status).toBe(401)
    expect((await fetch(`${workerUp.url}/healthz`)).status).toBe(200)
    expect(
      await (
        await fetch(`${workerUp.url}/metrics`, {
          headers: { authorization: 'Bearer metrics-token-for-tests-0123456789' },
        })
      ).text(),
    ).toContain('herald_queue_depth')
    expect((await fetch(`${workerUp.url}/api/tools/list_workspaces`, { method: 'POST' })).status).toBe(404)

    const files = readdirSync(dataDir)
    expect(files.filter((f) => f.startsWith('secret.key'))).toEqual(['secret.key'])
    expect(statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600)

    api.child.kill('SIGTERM')
    worker.child.kill('SIGTERM')
    expect(await api.exited).toBe(0)
    expect(await worker.exited).toBe(0)
  }, 60_000)
})
