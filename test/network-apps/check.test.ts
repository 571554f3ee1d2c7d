import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkApp } from '../../src/modules/network-apps/check.js'
import { loadConfig } from '../../src/platform/config.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { startServer } from '../media/servers.js'

/**
 * The app check asks the network's simulator, over HTTP through Herald's guarded fetcher, whether it knows
 * the app: a right client ID and secret are accepted, a wrong one refused, and nothing is said where the
 * network offers no safe way to ask.
 */
describe('checking a network app against the simulators', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ sandbox: true })
  })
  afterAll(() => h.close())

  it('tells a right X app from one with a wrong secret at X’s token endpoint', async () => {
    h.sandboxes!.twitter.registerClient({ clientId: 'x-checked', clientSecret: 'x-right-secret' })
    await h.app.networkApps.save(
      'twitter',
      { clientId: 'x-checked', clientSecret: 'x-right-secret' },
      h.userId,
    )
    expect(await h.app.networkApps.check('twitter')).toMatchObject({ outcome: 'accepted', status: 400 })
    await h.app.networkApps.save(
      'twitter',
      { clientId: 'x-checked', clientSecret: 'x-wrong-secret' },
      h.userId,
    )
    const refused = await h.app.networkApps.check('twitter')
    expect(refused).toMatchObject({ outcome: 'refused', status: 401 })
    expect(refused.message).toContain('X refused this app')
    expect(h.logs.join('')).not.toMatch(/x-right-secret|x-wrong-secret/)
  })

  it('tells a right Google app from a wrong one at Google’s token endpoint', async () => {
    h.sandboxes!.youtube.options.client = { id: 'g-checked', secret: 'g-right-secret' }
    await h.app.networkApps.save(
      'youtube',
      { clientId: 'g-checked', clientSecret: 'g-right-secret' },
      h.userId,
    )
    expect(await h.app.networkApps.check('youtube')).toMatchObject({ outcome: 'accepted' })
    await h.app.networkApps.save('youtube', { clientId: 'g-other', clientSecret: 'g-right-secret' }, h.userId)
    expect(await h.app.networkApps.check('youtube')).toMatchObject({ outcome: 'refused', status: 401 })
  })

  it('asks Facebook for an app token: the registered app’s own secret gets one, another is refused', async () => {
    const registered = await fetch(`${h.baseUrl}/sandbox/meta/_sandbox/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ appId: '4455667788', appSecret: 'meta-right-secret' }),
    })
    expect(registered.status).toBe(201)
    await h.app.networkApps.save(
      'facebook',
      { clientId: '4455667788', clientSecret: 'meta-right-secret' },
      h.userId,
    )
    expect(await h.app.networkApps.check('facebook')).toMatchObject({ outcome: 'accepted', status: 200 })
    await h.app.networkApps.save('facebook', { clientId: '4455667788', clientSecret: 'meta-wrong' }, h.userId)
    expect(await h.app.networkApps.check('facebook')).toMatchObject({ outcome: 'refused', status: 400 })
  })

  it('gets past LinkedIn’s client check with the app, refused only for the made-up code', async () => {
    await h.app.networkApps.save('linkedin', { clientId: 'li-checked', clientSecret: 'li-secret' }, h.userId)
    expect(await h.app.networkApps.check('linkedin')).toMatchObject({ outcome: 'accepted', status: 400 })
  })

  it('says there is no check for Instagram Login and Threads, and asks nothing', async () => {
    for (const network of ['instagram', 'threads'] as const) {
      const result = await h.app.networkApps.check(network)
      expect(result.outcome).toBe('not_offered')
      expect(result.message).toContain('Connecting the first profile is the check')
    }
  })

  it('does not call a token endpoint on a private address outside sandbox mode', async () => {
    const listener = await startServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end('{"error":"invalid_request"}')
    })
    try {
      const config = loadConfig({
        HERALD_TWITTER_CLIENT_ID: 'x-app',
        HERALD_TWITTER_CLIENT_SECRET: 'x-secret',
        HERALD_TWITTER_API_URL: listener.url,
      })
      const result = await checkApp(config, 'twitter', {})
      expect(result.outcome).toBe('unreachable')
      expect(result.message).toContain('not a public https address')
      expect(listener.requests).toEqual([])
    } finally {
      await listener.close()
    }
  })
})
