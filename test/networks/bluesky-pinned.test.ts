import { createServer, type Server } from 'node:http'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { findPds, type SessionContext } from '../../src/adapters/bluesky/session.js'
import { createXrpc } from '../../src/adapters/bluesky/xrpc.js'
import { createGuardedHttp } from '../../src/platform/egress/guarded-http.js'
import type { LookupFn } from '../../src/platform/egress/safe-fetch.js'
import { createLogger } from '../../src/platform/logger.js'

/**
 * A PDS or DID host is a host a user's data names, so it is reached only through the guarded client: one
 * whose name does not resolve (or not in time) is refused, and every request to such a host goes through the
 * guarded, address-pinned request, so a stored `pdsUrl` is checked again on each use and a second lookup
 * cannot swap the address. Refusals name the host, never an address.
 */
const logger = createLogger(
  'silent',
  new Writable({
    write(_c, _e, done) {
      done()
    },
  }),
)

describe('Bluesky hosts through the guarded, pinned request', () => {
  let server: Server
  let port = 0
  let hits = 0
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    port = typeof address === 'object' && address ? address.port : 0
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const failing: LookupFn = async () => {
    throw Object.assign(new Error('queryA ETIMEOUT evil.example'), { code: 'ETIMEOUT' })
  }
  const silent: LookupFn = () => new Promise(() => {})

  it('refuses a DID document host whose lookup fails, instead of treating it as allowed', async () => {
    const { xrpc } = createXrpc({ http: fetch, logger, now: () => Date.now() }, { timeoutMs: 2_000 })
    const fetched: string[] = []
    const ctx: SessionContext = {
      xrpc,
      getJson: async <T>(url: string) => {
        fetched.push(url)
        return undefined as T
      },
      logger,
      serviceUrl: 'https://bsky.social',
      plcUrl: 'https://plc.directory',
      allowLocalPds: false,
      lookup: failing,
    }
    const error = await findPds(ctx, 'did:web:evil.example').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PublishFailure)
    expect((error as PublishFailure).message).toContain('evil.example could not be resolved')
    expect(fetched).toEqual([])
  })

  it('refuses a request whose name answers a private address, without connecting', async () => {
    hits = 0
    const http = createGuardedHttp({
      allowPrivate: false,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    })
    const error = await http(`https://pds.example:${port}/xrpc/x`).catch((e: unknown) => e)
    expect((error as { code?: string }).code).toBe('HERALD_BLOCKED_ADDRESS')
    expect((error as Error).message).toBe(`pds.example:${port} is not on a public address`)
    expect((error as Error).message).not.toContain('127.0.0.1')
    expect(hits).toBe(0)
  })

  it('refuses a name that does not resolve in time', async () => {
    const http = createGuardedHttp({ allowPrivate: false, lookup: silent })
    const started = Date.now()
    const error = await http('https://slow.example/xrpc/x').catch((e: unknown) => e)
    expect((error as Error).message).toContain('slow.example did not resolve')
    expect(Date.now() - started).toBeLessThan(8_000)
  }, 10_000)

  it('resolves once and connects to the checked address (no second lookup can swap it)', async () => {
    hits = 0
    let lookups = 0
    const http = createGuardedHttp({
      allowPrivate: true,
      lookup: async () => {
        lookups += 1
        return lookups === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }]
      },
    })
    const answer = await http(`http://pds.local.test:${port}/xrpc/com.atproto.server.describeServer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ ok: true })
    expect(lookups).toBe(1)
    expect(hits).toBe(1)
  })

  it('turns a refused call into a Bluesky failure that was not sent, naming only the host', async () => {
    const { xrpc } = createXrpc(
      {
        http: createGuardedHttp({
          allowPrivate: false,
          lookup: async () => [{ address: '10.0.0.5', family: 4 }],
        }),
        logger,
        now: () => Date.now(),
      },
      { timeoutMs: 2_000 },
    )
    const error = await xrpc({
      service: 'https://stored-pds.example',
      nsid: 'com.atproto.repo.createRecord',
      effectful: true,
      json: {},
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PublishFailure)
    expect((error as PublishFailure).kind).toBe('transient')
    expect((error as PublishFailure).message).toContain('stored-pds.example is not on a public address')
    expect((error as PublishFailure).message).not.toContain('10.0.0.5')
  })
})
