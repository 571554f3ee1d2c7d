import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { NetworkAdapter } from '../../src/adapters/adapter.js'
import { type AppOptions, createAppContext } from '../../src/app.js'
import type { Network } from '../../src/core/networks.js'
import type { AppContext } from '../../src/modules/app-context.js'
import type { Clock, LeaseClock } from '../../src/platform/clock.js'
import { loadConfig } from '../../src/platform/config.js'
import { createLogger } from '../../src/platform/logger.js'
import type { FaultInjector } from '../../src/sandbox/fault-injector.js'
import type { MountedSandboxes } from '../../src/sandbox-mount.js'
import { buildServer } from '../../src/server.js'
import { type Backend, backends } from './backends.js'
import { removeDataDir } from './data-dir.js'

export interface Harness {
  app: AppContext
  baseUrl: string
  apiKey: string
  userId: string
  workspaceId: string
  /** The bootstrapped owner's sign-in (dashboard tests). */
  email: string
  password: string
  /** Every log line the service wrote, for secret-leak checks. */
  logs: string[]
  /** Every route the server registered, `METHOD /path`. */
  routes: string[]
  /** The Fastify instance itself (tests that inject a request from another client address). */
  server: FastifyInstance
  /** In sandbox mode, the simulators themselves: what each network now holds, counted in process. */
  sandboxes?: MountedSandboxes
  call(
    tool: string,
    body?: unknown,
    options?: { key?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>
  close(): Promise<void>
}

export interface HarnessOptions {
  backend?: Backend
  env?: Record<string, string>
  clock?: Clock
  /** The clock leases use (default: the database's, or `clock` when one is given). */
  leaseClock?: LeaseClock
  credits?: number
  adapters?: Partial<Record<Network, NetworkAdapter>>
  /**
   * Pick a free port before the config is built and listen on it, with PUBLIC_BASE_URL pointing at it
   * (what sandbox mode needs: the adapters must know the simulators' URL up front).
   */
  prePickPort?: boolean
  /** HERALD_SANDBOX=1 with a pre-picked port: the simulators are mounted and the real adapters point at them. */
  sandbox?: boolean
  /** How the OAuth server resolves and trusts a client ID metadata document's host (a loopback https server). */
  oauthMetadataFetcher?: AppOptions['oauthMetadataFetcher']
  /** In sandbox mode, asked about every request any simulator serves (see `src/sandbox/fault-injector.ts`). */
  faults?: FaultInjector
  /** A fresh instance: nobody is bootstrapped (the owner's ids, e-mail, password and key are empty strings). */
  fresh?: boolean
}

/** A port that was free a moment ago (listen on 0, read the port, close). */
export async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', resolve)
  })
  const address = probe.address()
  const port = typeof address === 'object' && address ? address.port : 0
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** Starts a whole Herald (store, tools, HTTP) on 127.0.0.1 with a bootstrapped owner and key. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const backend = options.backend ?? backends[0]!
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-test-'))
  const store = await backend.open()
  const fixedPort = options.prePickPort || options.sandbox ? await freePort() : 0
  const config = loadConfig({
    HERALD_DATA_DIR: dataDir,
    HERALD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    LOG_LEVEL: 'info',
    PORT: String(fixedPort),
    ...(fixedPort ? { PUBLIC_BASE_URL: `http://127.0.0.1:${fixedPort}` } : {}),
    ...(options.sandbox ? { HERALD_SANDBOX: '1' } : {}),
    ...options.env,
  })
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(chunk.toString())
      done()
    },
  })
  const app = await createAppContext(config, {
    store,
    logger: createLogger('info', sink),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.leaseClock ? { leaseClock: options.leaseClock } : {}),
    ...(options.adapters ? { adapters: options.adapters } : {}),
    ...(options.oauthMetadataFetcher ? { oauthMetadataFetcher: options.oauthMetadataFetcher } : {}),
  })
  const { server, close, sandboxes, routes } = buildServer(
    app,
    options.faults ? { sandboxFaults: options.faults } : {},
  )
  await server.listen({ host: '127.0.0.1', port: fixedPort })
  const address = server.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const baseUrl = `http://127.0.0.1:${port}`
  const email = `owner-${port}-${Date.now()}@example.com`
  const password = 'correct horse battery'
  const owner = options.fresh
    ? { apiKey: '', userId: '', workspaceId: '' }
    : await app.accounts.bootstrap({ email, password, workspace: 'Acme', credits: options.credits ?? 1000 })

  return {
    app,
    baseUrl,
    apiKey: owner.apiKey,
    userId: owner.userId,
    workspaceId: owner.workspaceId,
    email: options.fresh ? '' : email,
    password: options.fresh ? '' : password,
    logs,
    routes,
    server,
    ...(sandboxes ? { sandboxes } : {}),
    async call(tool, body = {}, callOptions = {}) {
      const response = await fetch(`${baseUrl}/api/tools/${tool}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': callOptions.key ?? owner.apiKey,
          ...callOptions.headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      return { status: response.status, body: parsed, headers: response.headers }
    },
    async close() {
      await close()
      await store.destroy()
      removeDataDir(dataDir)
    },
  }
}
