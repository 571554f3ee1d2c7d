import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import type { Server } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

/**
 * A real Bluesky PDS (`@atproto/pds`) with an in-memory PLC directory (`@did-plc/server`), both on
 * 127.0.0.1, as TOOLCHAIN.md describes. The PDS has no AppView: `com.atproto.*` works, `app.bsky.*`
 * reads (counts) do not.
 *
 * The packages are typed here by the little this helper uses: their own typings drag in every lexicon.
 */

interface ExpressLike {
  listen: (...args: unknown[]) => Server
}

interface PlcServerLike {
  app: ExpressLike
  start(): Promise<Server>
  destroy(): Promise<void>
}

interface PlcModule {
  PlcServer: { create(opts: { db: unknown; port?: number }): PlcServerLike }
  Database: { mock(): unknown }
}

interface PdsLike {
  app: ExpressLike
  start(): Promise<Server>
  destroy(): Promise<void>
}

interface PdsModule {
  readEnv(): unknown
  envToCfg(env: unknown): unknown
  envToSecrets(env: unknown): unknown
  PDS: { create(cfg: unknown, secrets: unknown): Promise<PdsLike> }
}

export interface TestAccount {
  did: string
  handle: string
}

export interface TestPds {
  /** Base URL of the PDS (the `#atproto_pds` endpoint of every account on it). */
  url: string
  /** Base URL of the in-memory PLC directory. */
  plcUrl: string
  /** Creates an account; `handle` must end in `.test`. */
  createAccount(handle: string, password: string): Promise<TestAccount>
  /** Signs in with the account password and creates an app password, as a user does in the app's settings. */
  createAppPassword(handle: string, password: string, name?: string): Promise<string>
  close(): Promise<void>
}

/**
 * Loads a CommonJS package from ESM. Its exports are named on the namespace when Node detects them,
 * and otherwise only on `default` (which for @did-plc/server is also a class of its own).
 */
async function load<T>(specifier: string, key: string): Promise<T> {
  const mod = (await import(specifier)) as Record<string, unknown>
  if (key in mod) return mod as T
  return mod.default as T
}

/** Makes an express app listen on 127.0.0.1 only (both servers default to every interface). */
function bindLocal(app: ExpressLike): void {
  const listen = app.listen.bind(app)
  app.listen = (port: unknown, ...rest: unknown[]) => listen(port, '127.0.0.1', ...rest)
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Runs `fn` with `vars` set in process.env, restoring every previous value afterwards. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T> | T): Promise<T> {
  const previous = new Map(Object.keys(vars).map((key) => [key, process.env[key]]))
  Object.assign(process.env, vars)
  try {
    return await fn()
  } finally {
    for (const [key, value] of previous) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
}

async function xrpc(
  base: string,
  nsid: string,
  body: unknown,
  token?: string,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}/xrpc/${nsid}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  })
  const json = (await response.json()) as Record<string, unknown>
  if (!response.ok) throw new Error(`${nsid} answered ${response.status}: ${json.error} ${json.message}`)
  return json
}

export async function startTestPds(): Promise<TestPds> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'herald-pds-'))
  const toClose: Array<() => Promise<void>> = []
  const close = async () => {
    for (const step of toClose.reverse()) await step().catch(() => undefined)
    toClose.length = 0
    await rm(dataDir, { recursive: true, force: true })
  }

  try {
    // Both packages read LOG_ENABLED when they load; keep them quiet whatever the shell has set.
    const [plc, pdsPkg] = await withEnv({ LOG_ENABLED: 'false' }, () =>
      Promise.all([load<PlcModule>('@did-plc/server', 'PlcServer'), load<PdsModule>('@atproto/pds', 'PDS')]),
    )

    const plcPort = await freePort()
    const plcServer = plc.PlcServer.create({ db: plc.Database.mock(), port: plcPort })
    bindLocal(plcServer.app)
    await plcServer.start()
    toClose.push(() => plcServer.destroy())
    const plcUrl = `http://127.0.0.1:${plcPort}`

    const port = await freePort()
    const dataDirectory = path.join(dataDir, 'data')
    const blobDirectory = path.join(dataDir, 'blobs')
    await mkdir(dataDirectory)
    await mkdir(blobDirectory)
    const hex = () => randomBytes(32).toString('hex')
    // readEnv() reads these once; they are restored at once so nothing else in the process sees them.
    const env = await withEnv(
      {
        PDS_HOSTNAME: 'localhost',
        PDS_PORT: String(port),
        PDS_DATA_DIRECTORY: dataDirectory,
        PDS_BLOBSTORE_DISK_LOCATION: blobDirectory,
        PDS_JWT_SECRET: hex(),
        PDS_ADMIN_PASSWORD: hex(),
        PDS_PLC_ROTATION_KEY_K256_PRIVATE_KEY_HEX: hex(),
        PDS_DPOP_SECRET: hex(),
        PDS_DID_PLC_URL: plcUrl,
        PDS_INVITE_REQUIRED: 'false',
        PDS_DEV_MODE: 'true',
        PDS_CRAWLERS: '',
      },
      () => pdsPkg.readEnv(),
    )
    const pds = await pdsPkg.PDS.create(pdsPkg.envToCfg(env), pdsPkg.envToSecrets(env))
    bindLocal(pds.app)
    toClose.push(() => pds.destroy())
    await pds.start()
    // The PDS names itself http://localhost:<port> in every DID document it writes.
    const url = `http://localhost:${port}`

    return {
      url,
      plcUrl,
      async createAccount(handle, password) {
        const created = await xrpc(url, 'com.atproto.server.createAccount', {
          handle,
          password,
          email: `${handle.replace(/\.test$/, '')}@example.com`,
        })
        return { did: String(created.did), handle: String(created.handle) }
      },
      async createAppPassword(handle, password, name = 'herald') {
        const session = await xrpc(url, 'com.atproto.server.createSession', { identifier: handle, password })
        const created = await xrpc(
          url,
          'com.atproto.server.createAppPassword',
          { name },
          String(session.accessJwt),
        )
        return String(created.password)
      },
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
