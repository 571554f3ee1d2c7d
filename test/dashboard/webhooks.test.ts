import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { openSignedIn } from '../helpers/signed-in-tab.js'
import { addMember, manage } from '../helpers/team.js'
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

  const threshold = async () =>
    (await manage(h, 'GET', '/api/webhooks/settings')).body.creditsLowThreshold as number | null

  it('lets the owner set the credits.low threshold, which a charge crossing it then sends', async () => {
    const lowReceiver = await startReceiver()
    try {
      expect(
        (
          await manage(h, 'POST', '/api/webhooks/endpoints', {
            url: lowReceiver.url,
            eventTypes: ['credits.low'],
          })
        ).status,
      ).toBe(201)
      const list = await owner.get('/webhooks')
      expect(list.text).toContain('name="creditsLowThreshold"')
      const balance = Number(
        (
          await h.app.store.db
            .selectFrom('workspaces')
            .select('credit_balance')
            .where('id', '=', h.workspaceId)
            .executeTakeFirstOrThrow()
        ).credit_balance,
      )
      const saved = await owner.post(`${h.baseUrl}/webhooks/settings`, {
        csrf: [owner.csrf(list)],
        creditsLowThreshold: [String(balance)],
      })
      expect(saved.status).toBe(200)
      expect(saved.text).toContain(`below ${balance}`)
      expect(saved.text).toContain(
        `name="creditsLowThreshold" min="1" max="1000000000" step="1" inputmode="numeric" value="${balance}"`,
      )
      expect(await threshold()).toBe(balance)

      await connectProfile(h, 'twitter', 'tw-low', 'acme')
      const created = await h.call('create_post', {
        content: 'Charged below the threshold',
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-low' }],
        scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
        scheduleTime: '10:00',
        timezone: 'UTC',
      })
      expect(created.status).toBe(200)
      await webhooks.drain()
      const low = lowReceiver.accepted.filter((r) => r.event.type === 'credits.low')
      expect(low).toHaveLength(1)
      expect(low[0]?.event.data.credits.threshold).toBe(balance)

      // Empty turns it off.
      const off = await owner.post(`${h.baseUrl}/webhooks/settings`, {
        csrf: [owner.csrf(saved)],
        creditsLowThreshold: [''],
      })
      expect(off.status).toBe(200)
      expect(off.text).toContain('The low-credits warning is off.')
      expect(await threshold()).toBeNull()
    } finally {
      await lowReceiver.close()
    }
  })

  it('refuses a threshold that is not a whole number from 1, or comes without its CSRF token, changing nothing', async () => {
    const list = await owner.get('/webhooks')
    await owner.post(`${h.baseUrl}/webhooks/settings`, {
      csrf: [owner.csrf(list)],
      creditsLowThreshold: ['250'],
    })
    expect(await threshold()).toBe(250)
    for (const value of ['0', '-5', '1.5', 'abc', '1e3', '10000000000']) {
      const refused = await owner.post(`${h.baseUrl}/webhooks/settings`, {
        csrf: [owner.csrf(list)],
        creditsLowThreshold: [value],
      })
      expect(refused.status).toBe(400)
      expect(refused.text).toContain('Type a whole number of credits from 1 to 1,000,000,000')
    }
    const forged = await owner.post(`${h.baseUrl}/webhooks/settings`, { creditsLowThreshold: ['7'] })
    expect(forged.status).toBe(403)
    expect(await threshold()).toBe(250)
  })

  it('shows an editor no threshold form and refuses their change with a 403', async () => {
    const member = await addMember(h, 'threshold-editor', 'editor')
    const editor = createBrowser(h.baseUrl)
    await editor.login(member.email, member.password)
    const shown = await editor.get('/webhooks')
    expect(shown.status).toBe(403)
    expect(shown.text).not.toContain('creditsLowThreshold')
    const workspace = await editor.get('/workspace')
    const refused = await editor.post(`${h.baseUrl}/webhooks/settings`, {
      csrf: [editor.csrf(workspace)],
      creditsLowThreshold: ['5'],
    })
    expect(refused.status).toBe(403)
    expect(await threshold()).toBe(250)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'sets the threshold in Chromium',
    async () => {
      const browser = await openSignedIn(h.baseUrl, h, '/webhooks')
      const tab = browser.tab
      try {
        await tab.getByLabel('Warn below this balance (credits)').fill('40')
        await tab.getByRole('button', { name: 'Save threshold' }).click()
        await expect.poll(() => tab.getByRole('status').first().textContent()).toContain('below 40')
        expect(await threshold()).toBe(40)
        expect(await lookAt(tab, 'webhooks')).toEqual([])
        const endpoint = tab.locator('td.url a').first()
        if ((await endpoint.count()) > 0) {
          await endpoint.click()
          await tab.waitForURL(/\/webhooks\/[0-9a-f]+$/)
          expect(await lookAt(tab, 'webhook-endpoint')).toEqual([])
        }
        expect(browser.errors).toEqual([])
      } finally {
        await browser.close()
      }
    },
    60_000,
  )
})
