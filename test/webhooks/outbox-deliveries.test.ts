import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { FakeClock } from '../../src/platform/clock.js'
import { recordEvent } from '../../src/platform/db/statements/events.js'
import { fanOutEvents } from '../../src/platform/db/statements/webhooks.js'
import { writeTransaction } from '../../src/platform/db/write-transaction.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * Where an event's deliveries are made: on Postgres with the event, in its transaction; on SQLite by the
 * worker's fan-out pass. Either way each subscribed, enabled endpoint gets exactly one, and an event an
 * older version left for the fan-out is still fanned out.
 */
describe.each(backends)('the deliveries of an event on $name', (backend) => {
  let h: Harness
  const clock = new FakeClock(Date.now())
  const endpoints: Record<string, string> = {}

  beforeAll(async () => {
    h = await startHarness({ backend, clock, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    const deps = webhookDepsOf(h.app)
    const owner = { workspaceId: h.workspaceId, role: 'owner' as const }
    endpoints.all = (await createEndpoint(deps, owner, { url: 'http://127.0.0.1:9/all' })).id
    endpoints.failed = (
      await createEndpoint(deps, owner, { url: 'http://127.0.0.1:9/failed', eventTypes: ['target.failed'] })
    ).id
    const off = await createEndpoint(deps, owner, { url: 'http://127.0.0.1:9/off' })
    await h.app.store.db
      .updateTable('webhook_endpoints')
      .set({ enabled: 0 })
      .where('id', '=', off.id)
      .execute()
  })
  afterAll(async () => {
    await h.close()
  })

  const record = (type: 'target.published' | 'target.failed', orderKey: string) =>
    writeTransaction(h.app.store, (tx) =>
      recordEvent(tx, {
        workspaceId: h.workspaceId,
        type,
        orderKey,
        data: { n: orderKey },
        now: clock.now(),
      }),
    )
  const deliveriesOf = (eventId: string) =>
    h.app.store.db
      .selectFrom('webhook_deliveries')
      .select(['endpoint_id', 'event_seq', 'status'])
      .where('event_id', '=', eventId)
      .orderBy('endpoint_id')
      .execute()

  it('gives each enabled endpoint subscribed to the type one pending delivery, in the event’s order', async () => {
    const published = await record('target.published', 'post-1')
    const failed = await record('target.failed', 'post-1')
    if (backend.name === 'postgres') expect(await deliveriesOf(published)).toHaveLength(1)
    while ((await fanOutEvents(h.app.store, clock.now())) > 0) {}
    const toPublished = await deliveriesOf(published)
    const toFailed = await deliveriesOf(failed)
    expect(toPublished.map((d) => d.endpoint_id)).toEqual([endpoints.all])
    expect(toFailed.map((d) => d.endpoint_id).sort()).toEqual([endpoints.all, endpoints.failed].sort())
    expect([...toPublished, ...toFailed].every((d) => d.status === 'pending')).toBe(true)
    expect(Number(toPublished[0]?.event_seq)).toBeLessThan(Number(toFailed[0]?.event_seq))
  })

  it('fans out an event an older version wrote without its deliveries, once', async () => {
    const eventId = await record('target.published', 'post-2')
    await h.app.store.db.deleteFrom('webhook_deliveries').where('event_id', '=', eventId).execute()
    await h.app.store.db.updateTable('events').set({ fanned_out: 0 }).where('id', '=', eventId).execute()
    while ((await fanOutEvents(h.app.store, clock.now())) > 0) {}
    while ((await fanOutEvents(h.app.store, clock.now())) > 0) {}
    expect((await deliveriesOf(eventId)).map((d) => d.endpoint_id)).toEqual([endpoints.all])
  })
})
