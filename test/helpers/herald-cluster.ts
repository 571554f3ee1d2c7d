import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import type { Store } from '../../src/platform/db/db.js'
import { removeDataDir } from './data-dir.js'
import { freePort } from './harness.js'
import { runHerald } from './herald-command.js'
import { type S3Server, startS3Server } from './s3-server.js'
import { type SharedDatabase, sharedPostgres } from './worker-processes.js'

const bin = path.resolve(import.meta.dirname, '../../bin/herald.js')

/** One `herald api` or `herald worker` child process, started through the CLI as users run it. */
export interface HeraldProcess {
  /** `all` is `npm start`: the API and the worker in one process. */
  role: 'api' | 'worker' | 'all'
  child: ChildProcess
  /** Where it listens (the API, or the worker's /healthz and /metrics). */
  url: string
  exited: Promise<number | null>
  /** The last lines it wrote, for a failure message. */
  tail(): string
}

/**
 * Herald scaled out as docs/scale-out.md describes: `apis` × `herald api` and `workers` × `herald worker`
 * on one Postgres schema and one S3 bucket (s3rver), in sandbox mode. The first API serves the network
 * simulators and PUBLIC_BASE_URL points at it, so every process's adapters reach the same simulators.
 */
export interface HeraldCluster {
  db: SharedDatabase
  /** The test's own connection to the shared schema. */
  store: Store
  s3: S3Server
  baseUrl: string
  apis: HeraldProcess[]
  workers: HeraldProcess[]
  apiKey: string
  workspaceId: string
  /** POST /api/tools/<tool> on `api`. */
  call(api: HeraldProcess, tool: string, body: unknown): Promise<{ status: number; body: any }>
  /** A simulator's control surface (`/_sandbox/...`) on the first API. */
  sandbox(network: 'twitter' | 'instagram' | 'facebook', route: string, init?: RequestInit): Promise<any>
  stop(): Promise<void>
}

export async function startHeraldCluster(options: {
  apis: number
  workers: number
  /** The single-process layout instead: one `npm start` (API and worker together); apis and workers ignored. */
  single?: boolean
  /** Extra settings for every process. */
  env?: Record<string, string>
  /** Profiles to connect through `herald sandbox connect` (network and username). */
  profiles: { network: 'twitter' | 'instagram' | 'facebook'; username: string }[]
}): Promise<HeraldCluster> {
  if (!existsSync(path.resolve(import.meta.dirname, '../../dist/cli.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm install and npm test do it)')
  const db = sharedPostgres()
  // Migrations run here once, before four processes start on the schema at the same moment.
  const store = await db.open()
  const s3 = await startS3Server()
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-cluster-'))
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const env: Record<string, string> = {
    ...inheritedEnv(),
    DATABASE_URL: db.env.WORKER_DATABASE_URL as string,
    HERALD_DATA_DIR: dataDir,
    HERALD_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'),
    HERALD_SANDBOX: '1',
    PUBLIC_BASE_URL: baseUrl,
    HOST: '127.0.0.1',
    HERALD_ALLOW_PRIVATE_MEDIA: '1',
    HERALD_DB_POOL_SIZE: '10',
    ...s3.env,
    ...options.env,
    // spawnHerald reads the start lines, which are logged at info.
    LOG_LEVEL: 'info',
    HERALD_LOG_FORMAT: 'json',
  }
  const started: HeraldProcess[] = []
  const stop = async () => {
    for (const p of started)
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM')
    await Promise.all(started.map((p) => p.exited))
    await store.destroy()
    await db.drop()
    await s3.close()
    removeDataDir(dataDir)
  }
  try {
    const apis: HeraldProcess[] = []
    const apiCount = options.single ? 1 : options.apis
    for (let i = 0; i < apiCount; i++) {
      const api = await spawnHerald(options.single ? 'all' : 'api', {
        ...env,
        PORT: i === 0 ? String(port) : '0',
      })
      started.push(api)
      apis.push(api)
    }
    const workers = await Promise.all(
      Array.from({ length: options.single ? 0 : options.workers }, () =>
        spawnHerald('worker', { ...env, PORT: '0' }),
      ),
    )
    started.push(...workers)

    const herald = async (args: string[]) => {
      const { stdout } = await runHerald([...args, '--json'], env)
      return JSON.parse(stdout.trim().split('\n').at(-1) as string)
    }
    const owner = await herald([
      'bootstrap',
      '--email',
      'scale@example.com',
      '--password',
      'correct horse battery',
      '--workspace',
      'Scale',
      '--credits',
      '1000000',
    ])
    for (const profile of options.profiles)
      await herald([
        'sandbox',
        'connect',
        '--workspace',
        owner.workspaceId,
        '--network',
        profile.network,
        '--username',
        profile.username,
      ])

    return {
      db,
      store,
      s3,
      baseUrl,
      apis,
      workers,
      apiKey: owner.apiKey,
      workspaceId: owner.workspaceId,
      async call(api, tool, body) {
        const response = await fetch(`${api.url}/api/tools/${tool}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': owner.apiKey },
          body: JSON.stringify(body),
        })
        return { status: response.status, body: await response.json() }
      },
      async sandbox(network, route, init) {
        const response = await fetch(`${baseUrl}${sandboxPrefixes[network]}/_sandbox/${route}`, init)
        if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`)
        return response.json()
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * Starts `herald <role>` (or, for `all`, `node dist/main.js` as `npm start` does) and resolves once it
 * listens; its output is drained and its tail kept.
 */
export function spawnHerald(
  role: HeraldProcess['role'],
  env: Record<string, string>,
): Promise<HeraldProcess> {
  const args = role === 'all' ? [path.resolve(import.meta.dirname, '../../dist/main.js')] : [bin, role]
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean))
    if (lines.length > 200) lines.splice(0, lines.length - 200)
  }
  child.stderr?.on('data', keep)
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    let output = ''
    let ready = false
    const late = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`herald ${role} did not start within 60 s:\n${lines.join('\n')}`))
    }, 60_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      keep(chunk)
      if (ready) return
      output += chunk.toString()
      const listening = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(output)
      if (!listening || !output.includes('Herald is running')) return
      ready = true
      output = ''
      clearTimeout(late)
      resolve({ role, child, url: listening[1] as string, exited, tail: () => lines.join('\n') })
    })
    child.on('exit', (code) => {
      clearTimeout(late)
      reject(new Error(`herald ${role} exited with ${code}:\n${lines.join('\n')}`))
    })
  })
}

/** The parent's environment without Herald's own settings, so only what the cluster sets applies. */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('HERALD_') && name !== 'DATABASE_URL' && name !== 'PORT')
      env[name] = value
  return env
}
