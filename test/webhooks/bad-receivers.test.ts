import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import {
  createEndpoint,
  listAttempts,
  listEndpoints,
  webhookDepsOf,
} from '../../src/modules/outbox/endpoints.js'
import { markNeedsReconnect } from '../../src/platform/db/statements/connections.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/** A receiver that misbehaves in one way. */
async function misbehaving(handler: http.RequestListener) {
  const server = http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

describe('receivers that misbehave', () => {
  let h: Harness
  let healthy: Receiver
  const servers: Array<{ url: string; close(): Promise<void> }> = []

  beforeAll(async () => {
    h = await startHarness({ env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1', HERALD_WEBHOOK_TIMEOUT_MS: '1500' } })
    healthy = await startReceiver()
    servers.push(
      // Slow: never answers.
      await misbehaving(() => {}),
      // Huge: 50 MB of body after a 200 header, written as fast as it is read.
      await misbehaving((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        const chunk = Buffer.alloc(64 * 1024, 97)
        let sent = 0
        const pump = () => {
          while (sent < 50 * 1024 * 1024) {
            sent += chunk.length
            if (!res.write(chunk)) return void res.once('drain', pump)
          }
          res.end()
        }
        pump()
      }),
      // Redirects somewhere that would accept it.
      await misbehaving((_req, res) => {
        res.writeHead(307, { location: healthy.url }).end()
      }),
      // Resets the connection.
      await misbehaving((req) => req.socket.destroy()),
    )
    const deps = webhookDepsOf(h.app)
    for (const { url } of servers)
      await createEndpoint(deps, { workspaceId: h.workspaceId, role: 'owner' }, { url })
    await createEndpoint(deps, { workspaceId: h.workspaceId, role: 'owner' }, { url: healthy.url })
  })
  afterAll(async () => {
    for (const server of servers) await server.close()
    await healthy.close()
    await h.close()
  })

  it('delivers to a healthy endpoint at once while the others hang, flood, redirect and reset; none is followed or read whole', async () => {
    const worker = createAppWebhookWorker(h.app, { id: 'bad-receivers' })
    worker.start()
    const started = Date.now()
    const id = await connectProfile(h, 'twitter', 'tw-bad', 'bad')
    await markNeedsReconnect(h.app.store.db, id, 'refused', Date.now())
    h.app.queue.settled('any')
    for (let i = 0; i < 100 && healthy.accepted.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
    const healthyAfter = Date.now() - started
    expect(healthy.accepted).toHaveLength(1)
    // Well under the 1.5 s the slow receiver holds its delivery.
    expect(healthyAfter).toBeLessThan(1_400)
    await new Promise((r) => setTimeout(r, 2_500))
    await worker.stop()
    const deps = webhookDepsOf(h.app)
    const owner = { workspaceId: h.workspaceId, role: 'owner' as const }
    const endpoints = await listEndpoints(deps, owner)
    const byUrl = new Map(endpoints.map((e) => [e.url, e.id]))
    const first = async (url: string) => (await listAttempts(deps, owner, byUrl.get(url) as string))[0]
    const [slow, huge, redirect, reset] = servers.map((s) => s.url)
    expect(await first(slow as string)).toMatchObject({ statusCode: null, outcome: 'failed' })
    expect((await first(slow as string))?.responseExcerpt).toMatch(/within 1500 ms/)
    const flood = await first(huge as string)
    expect(flood).toMatchObject({ statusCode: 200, outcome: 'delivered' })
    expect(flood?.responseExcerpt.length).toBeLessThanOrEqual(1_024)
    expect(await first(redirect as string)).toMatchObject({ statusCode: 307, outcome: 'failed' })
    expect(await first(reset as string)).toMatchObject({ statusCode: null, outcome: 'failed' })
    // The redirect was not followed: the healthy receiver got the event once, from its own endpoint.
    expect(healthy.requests).toHaveLength(1)
  })
})
