import { X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { checkServerIdentity } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MediaError } from '../../src/core/media-port.js'
import { createSafeFetcher, type LookupFn } from '../../src/platform/egress/safe-fetch.js'
import { startServer, type TestServer } from './servers.js'
import { testCertificate, testCertificateKey } from './tls-fixture.js'

/** What a public DNS would answer; anything else does not exist. */
const PUBLIC = '93.184.216.34'
const names: Record<string, string> = {
  'public.test': PUBLIC,
  'evil.test': '127.0.0.1',
  'internal.test': '10.0.0.7',
  'metadata.test': '169.254.169.254',
  'sneaky.test': '::ffff:127.0.0.1',
  'other.test': PUBLIC,
}
const lookup: LookupFn = async (hostname) => {
  const address = names[hostname]
  if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
  return [{ address, family: address.includes(':') ? 6 : 4 }]
}

const failure = async (promise: Promise<unknown>): Promise<MediaError> => {
  try {
    await promise
  } catch (error) {
    return error as MediaError
  }
  throw new Error('expected the fetch to be refused')
}

describe('safe fetching', () => {
  /** The forbidden target: a refusal is honest only if this server never hears a request. */
  let trap: TestServer
  /** Plays the "public" web: public.test (93.184.216.34) is routed here by the dial seam. */
  let web: TestServer
  let dials: string[]
  let redirectTo = ''

  beforeAll(async () => {
    trap = await startServer((_req, res) => res.end('secret'))
    web = await startServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: redirectTo }).end()
      } else if (req.url?.startsWith('/hop/')) {
        const n = Number(req.url.slice(5))
        res.writeHead(301, { location: n > 0 ? `/hop/${n - 1}` : '/file' }).end()
      } else if (req.url === '/file') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('pretend png bytes'))
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-length': String(2_000_000) }).end(Buffer.alloc(2_000_000))
      } else if (req.url === '/big-chunked') {
        res.writeHead(200)
        for (let i = 0; i < 20; i++) res.write(Buffer.alloc(100_000))
        res.end()
      } else if (req.url === '/stall') {
        res.writeHead(200)
        res.write('a')
      } else if (req.url === '/missing') {
        res.writeHead(404).end()
      } else res.end('ok')
    })
  })
  afterAll(async () => {
    await trap.close()
    await web.close()
  })

  const fetcher = (overrides: Parameters<typeof createSafeFetcher>[0] = {}) => {
    dials = []
    return createSafeFetcher({
      lookup,
      dial: ({ address, port }) => {
        dials.push(`${address}:${port}`)
        return address === PUBLIC ? { host: '127.0.0.1', port: web.port } : { host: address, port }
      },
      ...overrides,
    })
  }

  const forbidden = () => [
    ['a private 10.x address', 'http://10.1.2.3/a.png'],
    ['a private 172.16.x address', 'http://172.16.5.4/a.png'],
    ['a private 192.168.x address', 'http://192.168.1.10/a.png'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a carrier-grade NAT address', 'http://100.64.0.1/a.png'],
    ['0.0.0.0', `http://0.0.0.0:${trap.port}/a.png`],
    ['loopback', `http://127.0.0.1:${trap.port}/a.png`],
    ['the IPv6 loopback', `http://[::1]:${trap.port}/a.png`],
    ['an IPv4-mapped loopback', `http://[::ffff:127.0.0.1]:${trap.port}/a.png`],
    ['an IPv4-mapped loopback in hex', `http://[::ffff:7f00:1]:${trap.port}/a.png`],
    ['a decimal loopback', `http://2130706433:${trap.port}/a.png`],
    ['an octal loopback', `http://0177.0.0.1:${trap.port}/a.png`],
    ['a hex loopback', `http://0x7f.0.0.1:${trap.port}/a.png`],
    ['a host that resolves to loopback', `http://evil.test:${trap.port}/a.png`],
    ['a host that resolves to a mapped loopback', `http://sneaky.test:${trap.port}/a.png`],
    ['a host that resolves to a private address', 'http://internal.test/a.png'],
    ['a host that resolves to the metadata address', 'http://metadata.test/latest/meta-data/'],
  ]

  it('refuses every forbidden address with a clear reason and never connects to it', async () => {
    for (const [label, url] of forbidden()) {
      const error = await failure(fetcher().fetchToFile(url!, { maxBytes: 1_000_000 }))
      expect(error.reason, label).toBe('blocked_address')
      expect(error.message, label).toMatch(/Refusing to fetch from .+: .+/)
      expect(dials, label).toEqual([])
    }
    expect(trap.requests).toEqual([])
  })

  it.each([
    ['file:///etc/passwd'],
    ['ftp://public.test/a.png'],
    ['gopher://public.test:70/_GET'],
    ['data:image/png;base64,iVBORw0KGgo='],
    ['javascript:alert(1)'],
    ['http://user:pass@public.test/a.png'],
    ['not a url'],
  ])('refuses the URL %s before any lookup or connection', async (url) => {
    const error = await failure(fetcher().fetchToFile(url, { maxBytes: 1_000_000 }))
    expect(error.reason).toBe('bad_url')
    expect(dials).toEqual([])
  })

  it.each([
    ['a loopback literal', () => `http://127.0.0.1:${trap.port}/secret`],
    ['a host that resolves to loopback', () => `http://evil.test:${trap.port}/secret`],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a file URL', () => 'file:///etc/passwd'],
  ])('refuses a public URL that redirects to %s', async (_label, target) => {
    redirectTo = target()
    const before = web.requests.length
    const error = await failure(fetcher().fetchToFile('http://public.test/redirect', { maxBytes: 1_000_000 }))
    expect(['blocked_address', 'bad_url']).toContain(error.reason)
    expect(web.requests.length - before).toBe(1)
    expect(dials).toEqual([`${PUBLIC}:80`])
    expect(trap.requests).toEqual([])
  })

  it('refuses a connection that lands on another address than the one checked, before sending a byte', async () => {
    const error = await failure(
      createSafeFetcher({ lookup, dial: () => ({ host: 'localhost', port: trap.port }) }).fetchToFile(
        'http://public.test/a.png',
        { maxBytes: 1000 },
      ),
    )
    expect(error.reason).toBe('blocked_address')
    expect(trap.requests).toEqual([])
  })

  it('fetches a public URL into a temporary file, following up to 5 redirects', async () => {
    const file = await fetcher().fetchToFile('http://public.test/hop/4', { maxBytes: 1000 })
    expect(await readFile(file.path, 'utf8')).toBe('pretend png bytes')
    expect(file).toMatchObject({
      size: 17,
      contentType: 'image/png',
      name: '4',
      finalUrl: 'http://public.test/file',
    })
    expect(file.sha256).toMatch(/^[0-9a-f]{64}$/)
    await file.dispose()
    await expect(readFile(file.path)).rejects.toThrow()
  })

  it('gives up after 5 redirects', async () => {
    const error = await failure(fetcher().fetchToFile('http://public.test/hop/5', { maxBytes: 1000 }))
    expect(error.reason).toBe('fetch_failed')
    expect(error.message).toMatch(/More than 5 redirects/)
  })

  it('refuses a body over the cap, by Content-Length and while streaming', async () => {
    const declared = await failure(fetcher().fetchToFile('http://public.test/big', { maxBytes: 1_000_000 }))
    expect(declared.reason).toBe('too_large')
    const streamed = await failure(
      fetcher().fetchToFile('http://public.test/big-chunked', { maxBytes: 1_000_000 }),
    )
    expect(streamed.reason).toBe('too_large')
    const tightened = await failure(
      fetcher().fetchToFile('http://public.test/big-chunked', {
        maxBytes: 5_000_000,
        capForHead: () => 500_000,
      }),
    )
    expect(tightened.reason).toBe('too_large')
  })

  it('times out a server that stops sending', async () => {
    const error = await failure(
      fetcher({ idleTimeoutMs: 200 }).fetchToFile('http://public.test/stall', { maxBytes: 1000 }),
    )
    expect(error.reason).toBe('timeout')
    const total = await failure(
      fetcher({ totalTimeoutMs: 300 }).fetchToFile('http://public.test/stall', { maxBytes: 1000 }),
    )
    expect(total.reason).toBe('timeout')
  })

  it('reports an error status and an unknown host as fetch failures', async () => {
    expect(
      (await failure(fetcher().fetchToFile('http://public.test/missing', { maxBytes: 10 }))).message,
    ).toMatch(/HTTP 404/)
    expect((await failure(fetcher().fetchToFile('http://nowhere.test/a.png', { maxBytes: 10 }))).reason).toBe(
      'fetch_failed',
    )
  })

  it('allows loopback only when private media is allowed, and never the metadata address', async () => {
    const open = createSafeFetcher({ lookup, allowPrivate: true })
    const file = await open.fetchToFile(`http://127.0.0.1:${web.port}/file`, { maxBytes: 1000 })
    expect(file.size).toBe(17)
    await file.dispose()
    const error = await failure(
      open.fetchToFile('http://169.254.169.254/latest/meta-data/', { maxBytes: 1000 }),
    )
    expect(error.reason).toBe('blocked_address')
  })

  describe('over https', () => {
    let server: https.Server
    let port = 0
    /** When each connection the server accepted was closed (by either side). */
    const connections: Array<{ closedAt: number | undefined }> = []
    beforeAll(async () => {
      server = https.createServer({ cert: testCertificate, key: testCertificateKey }, (req, res) => {
        if (req.url === '/endless') {
          // Streams past any cap and never ends: only the fetcher can stop it.
          res.writeHead(200)
          const timer = setInterval(() => res.write(Buffer.alloc(16_384)), 5)
          res.on('close', () => clearInterval(timer))
        } else if (req.url === '/whole') {
          // A small body over the cap, sent whole on a kept-alive connection the server never closes.
          res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(20_000))
        } else res.end('secure')
      })
      server.on('secureConnection', (socket) => {
        const entry: { closedAt: number | undefined } = { closedAt: undefined }
        connections.push(entry)
        socket.on('close', () => {
          entry.closedAt = Date.now()
        })
      })
      server.keepAliveTimeout = 60_000
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      port = (server.address() as AddressInfo).port
    })
    afterAll(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    )

    const tlsFetcher = () =>
      createSafeFetcher({ lookup, ca: testCertificate, dial: () => ({ host: '127.0.0.1', port }) })

    it('connects to the checked address and verifies the certificate for the URL’s host name', async () => {
      const file = await tlsFetcher().fetchToFile('https://public.test/a.png', { maxBytes: 100 })
      expect(await readFile(file.path, 'utf8')).toBe('secure')
      await file.dispose()
    })

    it.each([
      ['a body that never ends', '/endless', 100_000],
      ['a small body sent whole on a kept-alive connection', '/whole', 5_000],
    ])(
      'refuses %s over the cap at once, and closes the connection',
      async (_label, path, maxBytes) => {
        const started = Date.now()
        const error = await failure(
          createSafeFetcher({
            lookup,
            ca: testCertificate,
            dial: () => ({ host: '127.0.0.1', port }),
            totalTimeoutMs: 10_000,
          }).fetchToFile(`https://public.test${path}`, { maxBytes }),
        )
        expect(error.reason).toBe('too_large')
        expect(error.message).toMatch(/the limit for this use is \d+ (KB|MB)/)
        expect(error.message).not.toMatch(/ 0 MB/)
        expect(Date.now() - started).toBeLessThan(2_000)
        const connection = connections.at(-1)
        await expect.poll(() => connection?.closedAt, { timeout: 2_000 }).toBeDefined()
        expect(connection!.closedAt! - started).toBeLessThan(2_000)
      },
      15_000,
    )

    it('refuses a certificate that does not name the host', async () => {
      // The message carries the code Node's TLS gives the mismatch, ERR_TLS_CERT_ALTNAME_INVALID on 22.23.5,
      // 24.21.0 and 24.22.3, the code src/adapters/network-errors.ts counts as "nothing was sent".
      const mismatch = checkServerIdentity(
        'other.test',
        new X509Certificate(testCertificate).toLegacyObject(),
      ) as NodeJS.ErrnoException | undefined
      expect(
        mismatch?.code,
        "this Node's TLS names a certificate for another host ERR_TLS_CERT_ALTNAME_INVALID",
      ).toBe('ERR_TLS_CERT_ALTNAME_INVALID')
      const error = await failure(tlsFetcher().fetchToFile('https://other.test/a.png', { maxBytes: 100 }))
      expect(error.reason).toBe('fetch_failed')
      expect(error.message).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/)
    })
  })
})
