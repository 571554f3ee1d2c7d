import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postWebhook, type WebhookClientOptions } from '../../src/webhooks/post-webhook.js'

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
})
