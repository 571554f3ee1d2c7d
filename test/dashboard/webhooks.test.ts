import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import type { WebhookWorker } from '../../src/webhooks/delivery-worker.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { addMember } from '../helpers/team.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/** The Webhooks page: an owner adds, tests, rotates and redelivers; an editor cannot. */
describe('the Webhooks page', () => {
  let h: Harness
  let owner: Browser
  let receiver: Receiver
  let webhooks: WebhookWorker

  beforeAll(async () => {
    h = await startHarness({ env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
    receiver = await startReceiver()
    webhooks = createAppWebhookWorker(h.app, { id: 'dashboard' })
  })
  afterAll(async () => {
    await webhooks.stop()
    await receiver.close()
    await h.close()
  })

  it('adds an endpoint showing its secret once, sends a test event, logs it, and redelivers it', async () => {
    const list = await owner.get('/webhooks')
    expect(list.status).toBe(200)
    const added = await owner.post(`${h.baseUrl}/webhooks`, {
      csrf: [owner.csrf(list)],
      url: [receiver.url],
      description: ['CRM'],
      eventTypes: ['post.published', 'post.failed'],
    })
    expect(added.status).toBe(200)
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(added.text)?.[0]
    expect(secret).toBeDefined()
    const id = /action="\/webhooks\/([0-9a-f]{24})\/test"/.exec(added.text)?.[1] as string
    const again = await owner.get(`/webhooks/${id}`)
    expect(again.text).not.toContain(secret)
    const tested = await owner.post(`${h.baseUrl}/webhooks/${id}/test`, { csrf: [owner.csrf(again)] })
    expect(tested.status).toBe(200)
    await webhooks.drain()
    expect(receiver.accepted).toHaveLength(1)
    expect(receiver.verify(receiver.accepted[0]!, secret as string).standard).toBe(true)
    const logged = await owner.get(`/webhooks/${id}`)
    expect(logged.text).toMatch(/webhook\.test<\/td><td>204<\/td>/)
    const eventId = receiver.accepted[0]!.id
    const redelivered = await owner.post(`${h.baseUrl}/webhooks/${id}/redeliver`, {
      csrf: [owner.csrf(logged)],
      eventId: [eventId],
    })
    expect(redelivered.status).toBe(200)
    await webhooks.drain()
    expect(receiver.accepted.map((r) => r.id)).toEqual([eventId, eventId])
    const rotated = await owner.post(`${h.baseUrl}/webhooks/${id}/rotate`, { csrf: [owner.csrf(logged)] })
    expect(rotated.text).toMatch(/whsec_/)
    expect(rotated.text).not.toContain(secret)
  })

  it('refuses a private-metadata URL with a 400 and stores nothing', async () => {
    const list = await owner.get('/webhooks')
    const before = (await h.app.store.db.selectFrom('webhook_endpoints').select('id').execute()).length
    const refused = await owner.post(`${h.baseUrl}/webhooks`, {
      csrf: [owner.csrf(list)],
      url: ['http://169.254.169.254/latest/meta-data'],
    })
    expect(refused.status).toBe(400)
    expect(refused.text).toContain('Refusing to deliver')
    expect((await h.app.store.db.selectFrom('webhook_endpoints').select('id').execute()).length).toBe(before)
  })

  it('refuses an editor with a 403', async () => {
    const member = await addMember(h, 'hooks-editor', 'editor')
    const editor = createBrowser(h.baseUrl)
    await editor.login(member.email, member.password)
    const shown = await editor.get('/webhooks')
    expect(shown.status).toBe(403)
    const workspace = await editor.get('/workspace')
    const refused = await editor.post(`${h.baseUrl}/webhooks`, {
      csrf: [editor.csrf(workspace)],
      url: [receiver.url],
    })
    expect(refused.status).toBe(403)
  })
})
