import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebhookWorker, type WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { recordEvent } from '../../src/platform/db/statements/events.js'
import { writeTransaction } from '../../src/platform/db/write-transaction.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * A receiver that takes an event (2xx) but answers a body holding a NUL byte. Postgres text cannot hold
 * NUL: before the excerpt replaced it, neither the batch record (json_to_recordset) nor the single-attempt
 * fallback could record the answer, so the delivery stayed leased and was sent again each time its lease
 * ran out. It is recorded once, as delivered.
 */
describe.each(backends)('a 2xx answer with a NUL byte on $name', (backend) => {
  let h: Harness
  let server: http.Server
  let url = ''
  const got: string[] = []
  let webhooks: WebhookWorker

  beforeAll(async () => {
    h = await startHarness({ backend, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    server = http.createServer((req, res) => {
      got.push(String(req.headers['webhook-id']))
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        res.end(Buffer.from([0x6f, 0x6b, 0x00, 0x21]))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
    await createEndpoint(webhookDepsOf(h.app), { workspaceId: h.workspaceId, role: 'owner' }, { url })
    webhooks = createWebhookWorker(
      {
        store: h.app.store,
        vault: h.app.vault,
        clock: h.app.clock,
        logger: h.app.logger,
        metrics: h.app.metrics,
      },
      {
        id: 'nul',
        pollMs: 20,
        client: { policy: { allowPrivate: true }, timeoutMs: 5_000 },
      },
    )
  })
  afterAll(async () => {
    await webhooks.stop()
    server.close()
    server.closeAllConnections()
    await h.close()
  })

  it('is delivered once and recorded as delivered', async () => {
    const eventId = await writeTransaction(h.app.store, (tx) =>
      recordEvent(tx, {
        workspaceId: h.workspaceId,
        type: 'target.published',
        orderKey: 'p',
        data: { n: 1 },
        now: h.app.clock.now(),
      }),
    )
    webhooks.start()
    // Unrecordable, it stayed pending under its lease and was sent again when the lease ran out.
    const status = () =>
      h.app.store.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('event_id', '=', eventId)
        .execute()
    for (let waited = 0; waited < 10_000 && (await status())[0]?.status !== 'delivered'; waited += 50)
      await new Promise((r) => setTimeout(r, 50))
    expect({ sent: got.filter((id) => id === eventId).length, status: await status() }).toEqual({
      sent: 1,
      status: [{ status: 'delivered', attempts: 1 }],
    })
  })
})
