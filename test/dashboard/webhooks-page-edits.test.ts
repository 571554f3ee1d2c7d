import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker } from '../../src/main.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { markNeedsReconnect } from '../../src/platform/db/statements/connections.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'

/** The Webhooks page holds to the API's limits, keeps an endpoint's failure record through routine saves, and keeps long URLs inside the page. */
describe('the Webhooks page with long, failing and edited endpoints', () => {
  let h: Harness
  let owner: Browser
  let server: http.Server
  let base = ''
  let webhooks: WebhookWorker
  const idOf = (text: string) => /action="\/webhooks\/([0-9a-f]{24})\/test"/.exec(text)?.[1] as string

  beforeAll(async () => {
    h = await startHarness({ env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
    server = http.createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(500)
        res.end('down')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    webhooks = createAppWebhookWorker(h.app, { id: 'page' })
  })
  afterAll(async () => {
    await webhooks.stop()
    server.closeAllConnections()
    server.close()
    await h.close()
  })

  it('refuses a description over 500 characters, as the REST API does, storing nothing', async () => {
    const list = await owner.get('/webhooks')
    const before = (await h.app.store.db.selectFrom('webhook_endpoints').select('id').execute()).length
    const added = await owner.post(`${h.baseUrl}/webhooks`, {
      csrf: [owner.csrf(list)],
      url: [`${base}/long-description`],
      description: ['d'.repeat(5000)],
    })
    expect(added.status).toBe(400)
    expect((await h.app.store.db.selectFrom('webhook_endpoints').select('id').execute()).length).toBe(before)
  })

  it('does not restart the 3-day failure clock when the owner only edits the description', async () => {
    const list = await owner.get('/webhooks')
    const added = await owner.post(`${h.baseUrl}/webhooks`, {
      csrf: [owner.csrf(list)],
      url: [`${base}/failing`],
      description: ['failing'],
    })
    const id = idOf(added.text)
    const connection = await connectProfile(h, 'twitter', 'review-1', 'review-1')
    await markNeedsReconnect(h.app.store.db, connection, 'refused', h.app.clock.now())
    await webhooks.drain()
    const failingSince = async () =>
      (
        await h.app.store.db
          .selectFrom('webhook_endpoints')
          .select('failing_since')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).failing_since
    const before = await failingSince()
    expect(before).not.toBeNull()
    const saved = await owner.post(`${h.baseUrl}/webhooks/${id}`, {
      csrf: [owner.csrf(list)],
      url: [`${base}/failing`],
      description: ['failing, renamed'],
      enabled: ['on'], // the box is ticked already: the form always sends it
    })
    expect(saved.status).toBe(200)
    expect(await failingSince()).toBe(before)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'keeps a 2,000-character URL inside the page and every endpoint status in view',
    async () => {
      const list = await owner.get('/webhooks')
      const longUrl = `${base}/${'segment'.repeat(300)}`.slice(0, 2000)
      const added = await owner.post(`${h.baseUrl}/webhooks`, { csrf: [owner.csrf(list)], url: [longUrl] })
      const id = idOf(added.text)
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1280, height: 900 },
      })
      try {
        const tab = await context.newPage()
        await tab.goto(`${h.baseUrl}/login?next=%2Fwebhooks%2F${id}`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(new RegExp(`/webhooks/${id}$`))
        const width = await tab.evaluate('document.documentElement.scrollWidth')
        expect(width).toBeLessThanOrEqual(1280)
        expect(await lookAt(tab, 'webhook-long-url')).toEqual([])
        await tab.setViewportSize({ width: 1280, height: 900 })
        await tab.goto(`${h.baseUrl}/webhooks`)
        const status = await tab.getByRole('columnheader', { name: 'Status' }).boundingBox()
        expect(status).not.toBeNull()
        expect((status?.x ?? 0) + (status?.width ?? 0)).toBeLessThanOrEqual(1280)
        expect(await lookAt(tab, 'webhooks-failing')).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
