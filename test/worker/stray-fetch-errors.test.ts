import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isStrayFetchStreamError } from '../../src/lib/stray-fetch-errors.js'

const dirs: string[] = []

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

describe('a worker process meeting an error Node fetch throws into no promise', () => {
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  // Before: no guard, and the worker process died of the unhandled ERR_INVALID_STATE (exit 1).
  it('logs it and keeps running', async () => {
    const run = await runService()
    expect(run.stdout).toContain('alive after the stray error')
    expect(run.stdout).toMatch(
      /"level":40.*Node's fetch failed writing the body of a request that had already ended/,
    )
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
