import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postWebhook, type WebhookClientOptions } from '../../src/modules/outbox/post-webhook.js'
import { waitFor } from '../helpers/worker-processes.js'
import { testCertificate } from '../media/tls-fixture.js'

/** A local receiver that answers with `answer` and counts the connections it was given. */
async function receiver(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      bodies.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      answer(req, res)
    })
  })
  const bodies: Array<{ headers: http.IncomingHttpHeaders; body: string }> = []
  let connections = 0
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks?source=herald`,
    bodies,
    connections: () => connections,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

const local: WebhookClientOptions = { policy: { allowPrivate: true }, timeoutMs: 1_500 }

describe('one webhook call through the guarded client', () => {
  let ok: Awaited<ReturnType<typeof receiver>>
  let big: Awaited<ReturnType<typeof receiver>>

  beforeAll(async () => {
    ok = await receiver((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'))
    big = await receiver((_req, res) => res.writeHead(200).end('x'.repeat(256 * 1024)))
  })
  afterAll(async () => {
    await ok.close()
    await big.close()
  })

  it('posts the body and headers as given, and keeps connections for the next calls', async () => {
    const before = ok.connections()
    for (const n of [1, 2, 3, 4, 5, 3]) {
      const result = await postWebhook(ok.url, `{"n":${n}}`, { 'webhook-id': `msg_${n}` }, local)
      expect(result).toMatchObject({ statusCode: 200, excerpt: 'thanks' })
    }
    // The pool may open a second connection for a call that comes while the first is being handed back.
    expect(ok.connections() - before).toBeLessThanOrEqual(2)
    expect(ok.bodies.at(-1)).toMatchObject({
      body: '{"n":3}',
      headers: {
        'webhook-id': 'msg_3',
        'content-type': 'application/json',
        'content-length': '7',
        host: `127.0.0.1:${ok.port}`,
      },
    })
  })

  it('keeps the first kilobyte of a huge answer and closes that connection rather than reading on', async () => {
    const first = await postWebhook(big.url, '{}', {}, local)
    expect(first.statusCode).toBe(200)
    expect(first.excerpt).toBe('x'.repeat(1_024))
    const second = await postWebhook(big.url, '{}', {}, local)
    expect(second.statusCode).toBe(200)
    expect(big.connections()).toBe(2)
  })

  it('refuses a host that resolves to a private address, without connecting', async () => {
    const before = ok.connections()
    const result = await postWebhook(
      `http://hooks.example.test:${ok.port}/hooks`,
      '{}',
      {},
      { policy: {}, timeoutMs: 1_500, lookup: async () => [{ address: '127.0.0.1', family: 4 }] },
    )
    expect(result.statusCode).toBeNull()
    expect(result.excerpt).toMatch(/^Refusing to deliver to hooks\.example\.test/)
    expect(ok.connections()).toBe(before)
  })

  it('refuses a connection that reaches another address than the one checked', async () => {
    const result = await postWebhook(
      `http://hooks.example.test:${ok.port}/hooks`,
      '{}',
      {},
      {
        policy: {},
        timeoutMs: 1_500,
        lookup: async () => [{ address: '93.184.216.34', family: 4 }],
        // The route a rebinding network would take: the checked public address, but the socket lands here.
        dial: () => ({ host: 'localhost', port: ok.port }),
      },
    )
    expect(result.statusCode).toBeNull()
    expect(result.excerpt).toMatch(/unexpected address/)
  })

  it('ends a call the receiver never answers within the timeout', async () => {
    const silent = await receiver(() => {})
    try {
      const result = await postWebhook(silent.url, '{}', {}, { ...local, timeoutMs: 300 })
      expect(result.statusCode).toBeNull()
      expect(result.excerpt).toMatch(/within 300 ms/)
      expect(result.latencyMs).toBeLessThan(1_500)
    } finally {
      await silent.close()
    }
  })

  it('ends a call whose TLS handshake never finishes within the timeout, and lets go of the socket', async () => {
    const sockets = new Set<net.Socket>()
    const tarpit = net.createServer((socket) => {
      sockets.add(socket)
      socket.resume()
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    })
    await new Promise<void>((resolve) => tarpit.listen(0, '127.0.0.1', resolve))
    const port = (tarpit.address() as AddressInfo).port
    try {
      const options: WebhookClientOptions = {
        policy: { allowPrivate: true },
        timeoutMs: 300,
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        ca: testCertificate,
      }
      for (const _ of [1, 2]) {
        const result = await postWebhook(`https://hooks.example.test:${port}/hooks`, '{}', {}, options)
        expect(result.statusCode).toBeNull()
        expect(result.latencyMs).toBeLessThan(1_500)
      }
      await waitFor(async () => sockets.size === 0, 3_000, 'the sockets to close')
    } finally {
      for (const socket of sockets) socket.destroy()
      tarpit.close()
    }
  })

  it('ends a call whose name never resolves within the timeout', async () => {
    const result = await postWebhook(
      'http://hooks.example.test/hooks',
      '{}',
      {},
      {
        policy: {},
        timeoutMs: 300,
        lookup: () => new Promise(() => {}),
      },
    )
    expect(result).toMatchObject({ statusCode: null, excerpt: expect.stringMatching(/within 300 ms/) })
    expect(result.latencyMs).toBeLessThan(1_500)
  })

  it('lets a call under way finish when 256 other receivers push its pool out of the cache', async () => {
    const slow = await receiver((_req, res) => setTimeout(() => res.writeHead(200).end('slow ok'), 500))
    try {
      const options: WebhookClientOptions = {
        policy: { allowPrivate: true },
        timeoutMs: 5_000,
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      }
      const underWay = postWebhook(`http://busy.example.test:${slow.port}/hooks`, '{}', {}, options)
      await waitFor(async () => slow.bodies.length === 1, 2_000, 'the slow call')
      const others = await Promise.all(
        Array.from({ length: 256 }, (_, i) =>
          postWebhook(`http://r${i}.example.test:${ok.port}/hooks`, '{}', {}, options),
        ),
      )
      expect(others.every((r) => r.statusCode === 200)).toBe(true)
      expect(await underWay).toMatchObject({ statusCode: 200, excerpt: 'slow ok' })
    } finally {
      await slow.close()
    }
  })
})
