import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { createAppContext } from '../../src/app.js'
import type { AppContext } from '../../src/app-context.js'
import { loadConfig } from '../../src/config.js'
import type { Network } from '../../src/domain/networks.js'
import type { Clock } from '../../src/lib/clock.js'
import { createLogger } from '../../src/logger.js'
import type { NetworkAdapter } from '../../src/networks/adapter.js'
import { buildServer } from '../../src/server.js'
import { type Backend, backends } from './backends.js'

export interface Harness {
  app: AppContext
  baseUrl: string
  apiKey: string
  userId: string
  workspaceId: string
  /** Every log line the service wrote, for secret-leak checks. */
  logs: string[]
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
  credits?: number
  adapters?: Partial<Record<Network, NetworkAdapter>>
}

/** Starts a whole Herald (store, tools, HTTP) on 127.0.0.1 with a bootstrapped owner and key. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const backend = options.backend ?? backends[0]!
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-test-'))
  const store = await backend.open()
  const config = loadConfig({
    HERALD_DATA_DIR: dataDir,
    HERALD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    LOG_LEVEL: 'info',
    PORT: '0',
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
    ...(options.adapters ? { adapters: options.adapters } : {}),
  })
  const { server, close } = buildServer(app)
  await server.listen({ host: '127.0.0.1', port: 0 })
  const address = server.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const baseUrl = `http://127.0.0.1:${port}`
  const owner = await app.accounts.bootstrap({
    email: `owner-${port}-${Date.now()}@example.com`,
    password: 'correct horse battery',
    workspace: 'Acme',
    credits: options.credits ?? 1000,
  })

  return {
    app,
    baseUrl,
    apiKey: owner.apiKey,
    userId: owner.userId,
    workspaceId: owner.workspaceId,
    logs,
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
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
