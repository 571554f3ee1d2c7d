import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { type Browser, createBrowser, formFields } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { startServer, type TestServer } from '../media/servers.js'

const DAY = 86_400_000

/**
 * The sandbox demo end to end: a Herald in sandbox mode (the X simulator mounted in its own server, the
 * real X adapter pointed at it over HTTP), a person signing in, connecting an X profile through the
 * connect flow, publishing a post with a real PNG through the worker, reading analytics for a credit,
 * and checking account health, with no token ever leaving the vault.
 */
describe('the sandbox demo, end to end', () => {
  let h: Harness
  let worker: Worker
  let images: TestServer
  let browser: Browser
  /** Every API response body this test received (the secret-leak check reads them). */
  const apiBodies: string[] = []
  let profileId = ''
  let postId = ''

  const call = async (tool: string, body: unknown = {}) => {
    const result = await h.call(tool, body)
    apiBodies.push(JSON.stringify(result.body))
    return result
  }
  const balance = async () => (await call('get_user_info')).body.credits.balance as number
  const sandbox = (path: string, init?: RequestInit) =>
    fetch(`${h.baseUrl}/sandbox/twitter/_sandbox${path}`, init)

  beforeAll(async () => {
    const png = await sharp({
      create: { width: 320, height: 200, channels: 3, background: { r: 30, g: 90, b: 200 } },
    })
      .png()
      .toBuffer()
    images = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) })
      res.end(png)
    })
    h = await startHarness({
      sandbox: true,
      credits: 50,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '20000' },
    })
    worker = createAppWorker(h.app, { id: 'e2e-worker' })
    worker.start()
    browser = createBrowser(h.baseUrl)
  })
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await images?.close()
  })

  it('signs in with the dashboard password (POST /login)', async () => {
    const channels = await browser.login(h.email, h.password)
    expect(channels.status).toBe(200)
    expect(channels.text).toContain('Channels of Acme')
    expect(channels.text).toContain('Sandbox mode')
  })

  it('connects a sandbox X profile through /connect/twitter, following every redirect by hand', async () => {
    const start = await browser.connect('/connect/twitter')
    expect(start.status).toBe(303)
    expect(start.location).toContain(`${h.baseUrl}/sandbox/twitter/i/oauth2/authorize?`)
    const consentPage = await browser.get(start.location!)
    expect(consentPage.status).toBe(200)
    const { action, fields } = formFields(consentPage.text)
    const form: Record<string, string[]> = { decision: ['authorize'], username: ['herald_demo'] }
    for (const [name, value] of fields) if (name !== 'username') form[name] = [...(form[name] ?? []), value]
    const back = await browser.post(new URL(action, h.baseUrl).toString(), form)
    expect(back.status).toBe(302)
    expect(back.location).toContain(`${h.baseUrl}/connect/twitter/callback?`)
    const [, done] = await browser.follow(back, 1)
    expect(done!.status).toBe(303)
    const channels = await browser.get(done!.location!)
    expect(channels.text).toContain('Connected @herald_demo on X.')

    const accounts = await call('get_connected_accounts')
    const account = accounts.body.find((a: { username: string }) => a.username === 'herald_demo')
    expect(account).toMatchObject({ platform: 'twitter', isOrganization: false })
    profileId = account.profileId
  })

  it('publishes an immediate post with a PNG into the sandbox and shows the target published with its url', async () => {
    const created = await call('create_post', {
      content: 'Hello from the Herald sandbox demo',
      targetAccounts: [{ platform: 'twitter', profileId }],
      mediaUrl: `${images.url}/card.png`,
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    postId = created.body.postIds[0]
    const post = await call('get_post', { id: postId })
    expect(post.body.status).toBe('published')
    const target = post.body.targets[0]
    expect(target).toMatchObject({ platform: 'twitter', profileId, status: 'published' })
    expect(target.url).toMatch(/\/sandbox\/twitter\/web\/herald_demo\/status\/\d+$/)
    expect(target.uploadError).toBeUndefined()

    const tweets = (await (await sandbox('/tweets')).json()) as any[]
    expect(tweets).toHaveLength(1)
    expect(tweets[0]).toMatchObject({ text: 'Hello from the Herald sandbox demo', username: 'herald_demo' })
    expect(tweets[0].mediaIds).toHaveLength(1)
    expect(target.url.endsWith(`/${tweets[0].id}`)).toBe(true)
    const media = (await (await sandbox('/media')).json()) as any[]
    expect(media[0]).toMatchObject({ mediaType: 'image/png', finalized: true })
    expect(images.requests.length).toBeGreaterThanOrEqual(1)
  })

  it('reads the post analytics with refresh for exactly 1 credit, refreshing an expired token once on the 401', async () => {
    // X expires the access token early: the read gets a 401, Herald refreshes once and reads again.
    expect((await sandbox('/accounts/herald_demo/expire-tokens', { method: 'POST' })).status).toBe(200)
    const before = await balance()
    const stored = await call('get_post_analytics', { id: postId })
    expect(stored.status).toBe(200)
    expect(stored.body.targets[0].analytics.fetchedAt).toBeNull()
    expect(stored.body.notes[0]).toContain('never read')
    expect(await balance()).toBe(before)

    const refreshed = await call('get_post_analytics', { id: postId, refresh: true })
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
    expect(refreshed.body.credits).toEqual({ charged: 1, remaining: before - 1 })
    expect(await balance()).toBe(before - 1)
    expect(refreshed.body.refresh).toEqual({ read: 1, skipped: 0, failed: 0, errors: [] })
    expect(refreshed.body).toMatchObject({ id: postId, measured: 1, measurable: 1, notes: [] })
    const analytics = refreshed.body.targets[0].analytics
    expect(analytics.source).toContain('x-api-v2')
    expect(analytics.error).toBe('')
    expect(typeof analytics.summary.likes).toBe('number')
    expect(refreshed.body.totals.likes).toBe(analytics.summary.likes)
    const connection = await h.app.store.db.selectFrom('connections').selectAll().executeTakeFirstOrThrow()
    expect(connection.status).toBe('active')

    const again = await call('get_post_analytics', { id: postId })
    expect(again.body.targets[0].analytics).toEqual(analytics)
    expect(again.body.credits).toBeUndefined()
    expect(await balance()).toBe(before - 1)
  })

  it('reports an expiring token with its days left in get_account_health', async () => {
    expect((await call('get_account_health')).body).toMatchObject({ healthy: true, connections: [] })
    // Make the connection one whose grant has no refresh token, with its access token ending in 3 days
    // and 5 hours: it cannot renew itself, so it is listed as expiring.
    const db = h.app.store.db
    const row = await db.selectFrom('connections').selectAll().executeTakeFirstOrThrow()
    const { refreshToken: _dropped, ...rest } = h.app.vault.openJson<Credentials>(
      connectionCredentials(row.id),
      row.credentials,
    )
    const expiresAt = Date.now() + 3 * DAY + 5 * 3_600_000
    await db
      .updateTable('connections')
      .set({
        credentials: h.app.vault.sealJson(connectionCredentials(row.id), { ...rest, expiresAt }),
        token_expires_at: expiresAt,
      })
      .where('id', '=', row.id)
      .execute()
    const health = await call('get_account_health')
    expect(health.body.healthy).toBe(false)
    expect(health.body.connections).toEqual([
      {
        platform: 'twitter',
        profileId,
        username: 'herald_demo',
        needsReconnect: false,
        expired: false,
        daysLeft: 3,
        reason: expect.stringContaining('no refresh token'),
      },
    ])
    expect(health.body.message).toContain('1 of 1 connections need attention')
  })

  it('connects a second profile with `sandbox connect` through the same flow', async () => {
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'twitter',
      username: 'cli_profile',
    })
    apiBodies.push(JSON.stringify(connected))
    expect(connected).toMatchObject({ platform: 'twitter', username: 'cli_profile', status: 'active' })
    const sessions = await h.app.store.db.selectFrom('sessions').select('user_id').execute()
    // The command's short-lived session is gone; only the browser's remains.
    expect(sessions).toHaveLength(1)
  })

  it('never lets an access or refresh token out: not in responses, log lines or the database', async () => {
    const issued = (await (await sandbox('/tokens')).json()) as Array<{ token: string; type: string }>
    expect(issued.filter((t) => t.type === 'access').length).toBeGreaterThanOrEqual(3)
    expect(issued.filter((t) => t.type === 'refresh').length).toBeGreaterThanOrEqual(3)
    const tokens = issued.map((t) => t.token)

    const seen = [...apiBodies, ...browser.bodies]
    expect(seen.length).toBeGreaterThan(10)
    expect(h.logs.length).toBeGreaterThan(0)
    for (const token of tokens) {
      for (const body of seen) expect(body.includes(token)).toBe(false)
      for (const line of h.logs) expect(line.includes(token)).toBe(false)
    }

    const db = h.app.store.db
    const connections = await db.selectFrom('connections').select(['credentials']).execute()
    expect(connections.length).toBe(2)
    for (const { credentials } of connections) {
      expect(credentials.startsWith('v2.')).toBe(true)
      for (const token of tokens) expect(credentials.includes(token)).toBe(false)
    }
    // Every table, not only connections.
    for (const table of [
      'connections',
      'oauth_states',
      'sessions',
      'analytics_readings',
      'targets',
      'posts',
    ] as const) {
      const dump = JSON.stringify(await db.selectFrom(table).selectAll().execute())
      for (const token of tokens) expect(dump.includes(token), table).toBe(false)
    }
  })
})
