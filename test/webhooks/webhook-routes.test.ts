import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { addMember, type Member } from '../helpers/team.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

async function api(
  h: Harness,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  key = h.apiKey,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

const endpointCount = async (h: Harness) =>
  Number(
    (
      await h.app.store.db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

describe.each(backends)('the webhook endpoints REST paths on $name', (backend) => {
  let h: Harness
  let other: Harness
  let editor: Member
  let receiver: Receiver
  let webhooks: WebhookWorker
  const clock = new FakeClock(Date.now())

  beforeAll(async () => {
    // Private receivers are refused here: only this one local receiver is reachable, through a DNS stub.
    h = await startHarness({ backend, clock, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    other = await startHarness({ backend })
    editor = await addMember(h, 'editor', 'editor')
    receiver = await startReceiver()
    webhooks = createAppWebhookWorker(h.app, { id: 'routes' })
  })
  afterAll(async () => {
    await webhooks.stop()
    await receiver.close()
    await other.close()
    await h.close()
  })

  it('creates an endpoint, shows its secret once, lists it without the secret, and stores the secret sealed', async () => {
    const created = await api(h, 'POST', '/api/webhooks/endpoints', {
      url: receiver.url,
      description: 'CRM',
      eventTypes: ['post.published', 'target.failed'],
    })
    expect(created.status).toBe(201)
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/)
    expect(created.body).toMatchObject({
      url: receiver.url,
      enabled: true,
      eventTypes: ['post.published', 'target.failed'],
    })
    const listed = await api(h, 'GET', '/api/webhooks/endpoints')
    expect(listed.status).toBe(200)
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret)
    expect(JSON.stringify(listed.body)).not.toContain('secret')
    const row = await h.app.store.db
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow()
    expect(row.secret).not.toContain(created.body.secret.slice(6))
    expect(h.logs.join('\n')).not.toContain(created.body.secret.slice(6))
  })

  it.each([
    ['a URL that is not http(s)', { url: 'ftp://example.com/hook' }, /https/],
    ['a malformed URL', { url: 'not a url' }, /not a valid URL/],
    ['a URL over 2,000 characters', { url: `https://example.com/${'a'.repeat(2_000)}` }, /must have at most/],
    ['a cloud-metadata address', { url: 'http://169.254.169.254/latest' }, /Refusing to deliver/],
    [
      'an unknown event type',
      { url: 'http://127.0.0.1:9/x', eventTypes: ['post.exploded'] },
      /Unknown event type: post.exploded/,
    ],
    ['an unknown field', { url: 'http://127.0.0.1:9/x', secret: 'whsec_mine' }, /unknown field/],
  ])('refuses %s with a 400 and stores nothing', async (_what, body, message) => {
    const before = await endpointCount(h)
    const answer = await api(h, 'POST', '/api/webhooks/endpoints', body)
    expect(answer.status).toBe(400)
    expect(answer.body.error.message).toMatch(message)
    expect(await endpointCount(h)).toBe(before)
  })

  it('refuses a private receiver when private receivers are not allowed', async () => {
    const before = await endpointCount(other)
    for (const url of ['http://127.0.0.1:8080/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook']) {
      const answer = await api(other, 'POST', '/api/webhooks/endpoints', { url })
      expect(answer.status).toBe(400)
      expect(answer.body.error.message).toMatch(/Refusing to deliver/)
    }
    expect(await endpointCount(other)).toBe(before)
  })

  it('refuses an editor with a 403 on every path and changes nothing', async () => {
    const before = await endpointCount(h)
    const listed = await api(h, 'GET', '/api/webhooks/endpoints', undefined, editor.apiKey)
    expect(listed.status).toBe(403)
    const created = await api(h, 'POST', '/api/webhooks/endpoints', { url: receiver.url }, editor.apiKey)
    expect(created.status).toBe(403)
    expect(await endpointCount(h)).toBe(before)
  })

  it('answers 404 for another workspace endpoint or event, and a redelivery of another workspace event', async () => {
    const mine = await api(h, 'POST', '/api/webhooks/endpoints', { url: receiver.url })
    const theirs = await api(other, 'GET', `/api/webhooks/endpoints/${mine.body.id}`)
    expect(theirs.status).toBe(404)
    const sent = await api(h, 'POST', `/api/webhooks/endpoints/${mine.body.id}/test`, {})
    expect(sent.status).toBe(202)
    await webhooks.drain()
    const otherEndpoint = await api(other, 'POST', '/api/webhooks/endpoints', {
      url: 'https://example.com/hook',
    })
    if (otherEndpoint.status === 201) {
      const redelivered = await api(
        other,
        'POST',
        `/api/webhooks/endpoints/${otherEndpoint.body.id}/redeliver`,
        {
          eventId: sent.body.eventId,
        },
      )
      expect(redelivered.status).toBe(404)
    }
    const cross = await api(other, 'POST', `/api/webhooks/endpoints/${mine.body.id}/redeliver`, {
      eventId: sent.body.eventId,
    })
    expect(cross.status).toBe(404)
    // The owner may redeliver it: the same webhook-id arrives again.
    const again = await api(h, 'POST', `/api/webhooks/endpoints/${mine.body.id}/redeliver`, {
      eventId: sent.body.eventId,
    })
    expect(again.status).toBe(202)
    await webhooks.drain()
    expect(receiver.accepted.filter((r) => r.id === sent.body.eventId)).toHaveLength(2)
    const log = await api(h, 'GET', `/api/webhooks/endpoints/${mine.body.id}/attempts`)
    expect(log.body[0]).toMatchObject({
      eventId: sent.body.eventId,
      eventType: 'webhook.test',
      statusCode: 204,
      outcome: 'delivered',
    })
    expect(typeof log.body[0].latencyMs).toBe('number')
  })

  it('signs with both secrets during the 24-hour overlap after a rotation, and only the new one after it', async () => {
    const created = await api(h, 'POST', '/api/webhooks/endpoints', { url: receiver.url })
    const oldSecret = created.body.secret as string
    const rotated = await api(h, 'POST', `/api/webhooks/endpoints/${created.body.id}/rotate-secret`, {})
    expect(rotated.status).toBe(200)
    const newSecret = rotated.body.secret as string
    expect(newSecret).not.toBe(oldSecret)
    const during = await api(h, 'POST', `/api/webhooks/endpoints/${created.body.id}/test`, {})
    await webhooks.drain()
    const first = receiver.accepted.find((r) => r.id === during.body.eventId)
    expect(first).toBeDefined()
    expect(receiver.verify(first!, oldSecret)).toEqual({ standard: true, svix: true })
    expect(receiver.verify(first!, newSecret)).toEqual({ standard: true, svix: true })
    clock.advance(24 * 3_600_000 + 1_000)
    const after = await api(h, 'POST', `/api/webhooks/endpoints/${created.body.id}/test`, {})
    await webhooks.drain()
    const second = receiver.accepted.find((r) => r.id === after.body.eventId)
    expect(second).toBeDefined()
    expect(receiver.verify(second!, oldSecret)).toEqual({ standard: false, svix: false })
    expect(receiver.verify(second!, newSecret)).toEqual({ standard: true, svix: true })
  })

  it('rotating again during the overlap replaces only the new secret: the one from before keeps signing', async () => {
    const created = await api(h, 'POST', '/api/webhooks/endpoints', { url: receiver.url })
    const original = created.body.secret as string
    const first = await api(h, 'POST', `/api/webhooks/endpoints/${created.body.id}/rotate-secret`, {})
    clock.advance(3_600_000)
    // A retried request, or a double click: the receiver never saw the first answer's secret.
    const second = await api(h, 'POST', `/api/webhooks/endpoints/${created.body.id}/rotate-secret`, {})
    expect(second.status).toBe(200)
    expect(second.body.previousSecretValidUntil).toBe(first.body.previousSecretValidUntil)
    const during = await api(h, 'POST', `/api/webhooks/endpoints/${created.body.id}/test`, {})
    await webhooks.drain()
    const got = receiver.accepted.find((r) => r.id === during.body.eventId)
    expect(got).toBeDefined()
    expect(receiver.verify(got!, original)).toEqual({ standard: true, svix: true })
    expect(receiver.verify(got!, second.body.secret)).toEqual({ standard: true, svix: true })
    expect(receiver.verify(got!, first.body.secret)).toEqual({ standard: false, svix: false })
    // The overlap ends 24 hours after the first rotation, not the second.
    clock.advance(23 * 3_600_000 + 1_000)
    const after = await api(h, 'POST', `/api/webhooks/endpoints/${created.body.id}/test`, {})
    await webhooks.drain()
    const later = receiver.accepted.find((r) => r.id === after.body.eventId)
    expect(receiver.verify(later!, original)).toEqual({ standard: false, svix: false })
    expect(receiver.verify(later!, second.body.secret)).toEqual({ standard: true, svix: true })
  })

  it('answers a repeated or malformed query parameter with a 400, never a 500', async () => {
    const created = await api(h, 'POST', '/api/webhooks/endpoints', { url: receiver.url })
    const twice = `workspaceId=${h.workspaceId}&workspaceId=${h.workspaceId}`
    for (const path of [
      `/api/webhooks/endpoints?${twice}`,
      `/api/webhooks/settings?${twice}`,
      `/api/webhooks/endpoints/${created.body.id}?${twice}`,
      `/api/webhooks/endpoints/${created.body.id}/attempts?${twice}`,
      `/api/approvals?${twice}`,
      `/api/queues?${twice}`,
      ...['1.5', '0', '-5', '501', 'abc', ''].map(
        (limit) => `/api/webhooks/endpoints/${created.body.id}/attempts?limit=${limit}`,
      ),
    ]) {
      const answer = await api(h, 'GET', path)
      expect({ path, status: answer.status, code: answer.body.error?.code }).toEqual({
        path,
        status: 400,
        code: 'invalid_request',
      })
    }
    const removal = await api(h, 'DELETE', `/api/webhooks/endpoints/${created.body.id}?${twice}`)
    expect(removal.status).toBe(400)
    expect((await api(h, 'GET', `/api/webhooks/endpoints/${created.body.id}`)).status).toBe(200)
    const log = await api(h, 'GET', `/api/webhooks/endpoints/${created.body.id}/attempts?limit=2`)
    expect(log.status).toBe(200)
  })

  it('refuses a URL over 2,000 characters once encoded, or on port 0, naming the limit, and stores nothing', async () => {
    const before = await endpointCount(h)
    // 1,922 characters as sent, 11,422 once each é is percent-encoded.
    const encoded = await api(h, 'POST', '/api/webhooks/endpoints', {
      url: `https://93.184.215.14/${'é'.repeat(1900)}`,
    })
    expect(encoded.status).toBe(400)
    expect(encoded.body.error.message).toContain('2000')
    const long = await api(h, 'POST', '/api/webhooks/endpoints', {
      url: `https://93.184.215.14/${'a'.repeat(5000)}`,
    })
    expect(long.status).toBe(400)
    expect(long.body.error.message).toContain('2000')
    expect(long.body.error.message).not.toContain('2001')
    const portZero = await api(h, 'POST', '/api/webhooks/endpoints', { url: 'https://93.184.215.14:0/hook' })
    expect(portZero.status).toBe(400)
    expect(await endpointCount(h)).toBe(before)
  })

  it('edits, disables and deletes an endpoint', async () => {
    const created = await api(h, 'POST', '/api/webhooks/endpoints', { url: receiver.url })
    const edited = await api(h, 'PATCH', `/api/webhooks/endpoints/${created.body.id}`, {
      description: 'Renamed',
      enabled: false,
    })
    expect(edited.body).toMatchObject({ description: 'Renamed', enabled: false })
    const refused = await api(h, 'POST', `/api/webhooks/endpoints/${created.body.id}/test`, {})
    expect(refused.status).toBe(409)
    const removed = await api(h, 'DELETE', `/api/webhooks/endpoints/${created.body.id}`)
    expect(removed.status).toBe(200)
    expect((await api(h, 'GET', `/api/webhooks/endpoints/${created.body.id}`)).status).toBe(404)
  })
})
