import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isStrayFetchStreamError } from '../../src/platform/egress/stray-fetch-errors.js'

const dirs: string[] = []
const strayWarning = /"level":40.*Node's fetch failed writing the body of a request that had already ended/

/** Runs test/fixtures/stray-fetch-error-service.ts: a real worker service that meets the undici error. */
function runService(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-stray-'))
  dirs.push(dataDir)
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/stray-fetch-error-service.ts'], {
    env: {
      ...process.env,
      HERALD_DATA_DIR: dataDir,
      DATABASE_URL: '',
      PORT: '0',
      LOG_LEVEL: 'warn',
      HERALD_SECRET_KEY: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  )
}

/** Whether this Node's fetch rejects into no promise when a FormData upload is cancelled (nodejs/undici#5835). */
function thisNodeHasTheUndiciBug(): boolean {
  const probe = `
    process.on('unhandledRejection', (reason) => { process.stdout.write(reason?.code ?? 'other'); process.exit(0) })
    const form = new FormData()
    form.append('media', new Blob([Buffer.alloc(1024 * 1024, 7)]), 'clip.mp4')
    await fetch('http://127.0.0.1:9/upload', { method: 'POST', body: form, signal: AbortSignal.abort() }).catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 300))`
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', probe], {
    encoding: 'utf8',
    timeout: 20_000,
  })
  return run.stdout === 'ERR_INVALID_STATE'
}

describe('a worker process meeting an error Node fetch throws into no promise', () => {
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  // Before: no guard, and the worker process died of the unhandled ERR_INVALID_STATE (exit 1).
  it('logs it and keeps running', async () => {
    const run = await runService()
    expect(run.stdout).toContain('alive after the stray error')
    expect(run.stdout).toMatch(strayWarning)
    expect(run.code, run.stderr).toBe(0)
  }, 60_000)

  // Where this Node's fetch still rejects into no promise (Node 24.21.0 does, 24.22.3 does not), the real
  // rejection is the one the guard recognises: the worker logs it as well and stays up.
  it('keeps running through the real fetch that met the undici bug, and logs it where this Node has it', async () => {
    const run = await runService({ REAL_FETCH: '1' })
    expect(run.stdout).toContain('alive after the stray error')
    const warnings = run.stdout.match(new RegExp(strayWarning.source, 'g'))?.length ?? 0
    expect(warnings).toBe(thisNodeHasTheUndiciBug() ? 2 : 1)
    expect(run.code, run.stderr).toBe(0)
  }, 60_000)

  it('still ends on any other unhandled rejection, as Node does by default', async () => {
    const run = await runService({ UNRELATED: '1' })
    expect(run.stdout).toContain('alive after the stray error')
    expect(run.stdout).not.toContain('alive after the unrelated rejection')
    expect(run.stderr).toContain('an unrelated bug')
    expect(run.code).toBe(1)
  }, 60_000)
})

describe('isStrayFetchStreamError', () => {
  const stateError = (message: string, frame: string) =>
    Object.assign(new TypeError(`Invalid state: ${message}`), {
      code: 'ERR_INVALID_STATE',
      stack: `TypeError [ERR_INVALID_STATE]: Invalid state: ${message}\n    at ${frame}`,
    })

  it.each([
    [stateError('ReadableStream is already closed', 'node:internal/deps/undici/undici:6940:28'), true],
    [stateError('Controller is already closed', 'node:internal/deps/undici/undici:1480:28'), true],
    // The same error from Herald's own code or another library is a bug to see, not to swallow.
    [stateError('ReadableStream is already closed', 'file:///app/dist/lib/thing.js:3:1'), false],
    [stateError('ReadableStream is locked', 'node:internal/deps/undici/undici:1:1'), false],
    [new Error('ReadableStream is already closed'), false],
    ['ReadableStream is already closed', false],
  ])('%#: recognises only the undici stream-state errors', (reason, expected) => {
    expect(isStrayFetchStreamError(reason)).toBe(expected)
  })
})
