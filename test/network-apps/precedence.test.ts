import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveApp } from '../../src/adapters/apps.js'
import { linkedinSettings, twitterSettings } from '../../src/adapters/registry.js'
import { createNetworkApps } from '../../src/modules/network-apps/service.js'
import { loadConfig } from '../../src/platform/config.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

describe('which app a network signs in with', () => {
  const saved = { twitter: { clientId: 'page-x', clientSecret: 'page-secret' } }

  it('takes the environment’s app over the saved one, and the saved one when the environment has none', () => {
    const env = loadConfig({ HERALD_TWITTER_CLIENT_ID: 'env-x', HERALD_TWITTER_CLIENT_SECRET: 'env-secret' })
    expect(resolveApp(env, 'twitter', saved)).toEqual({
      source: 'environment',
      clientId: 'env-x',
      clientSecret: 'env-secret',
      communityManagement: false,
      audited: false,
    })
    // The environment's id alone (a public app) still wins whole: the saved secret is not mixed in.
    const publicEnv = loadConfig({ HERALD_TWITTER_CLIENT_ID: 'env-public' })
    expect(twitterSettings(publicEnv, saved)).toEqual({
      clientId: 'env-public',
      apiUrl: 'https://api.x.com',
      authorizeUrl: 'https://x.com/i/oauth2/authorize',
      webUrl: 'https://x.com',
    })
    expect(resolveApp(loadConfig({}), 'twitter', saved)).toMatchObject({
      source: 'saved',
      clientId: 'page-x',
    })
    expect(resolveApp(loadConfig({}), 'twitter', {})).toBeUndefined()
    expect(resolveApp(loadConfig({}), 'bluesky', {})).toBeUndefined()
  })

  it('falls back to the simulator’s own app in sandbox mode, after the saved one', () => {
    const sandbox = loadConfig({ HERALD_SANDBOX: '1', PUBLIC_BASE_URL: 'http://127.0.0.1:4000' })
    expect(resolveApp(sandbox, 'twitter', {})).toMatchObject({
      source: 'sandbox',
      clientId: 'herald-sandbox',
    })
    expect(twitterSettings(sandbox, saved)).toEqual({
      clientId: 'page-x',
      clientSecret: 'page-secret',
      apiUrl: 'http://127.0.0.1:4000/sandbox/twitter/api',
      authorizeUrl: 'http://127.0.0.1:4000/sandbox/twitter/i/oauth2/authorize',
      webUrl: 'http://127.0.0.1:4000/sandbox/twitter/web',
    })
  })

  it('asks LinkedIn for the page scopes when the saved app or HERALD_LINKEDIN_COMMUNITY_MANAGEMENT says it may', () => {
    const li = { linkedin: { clientId: 'li', clientSecret: 's' } }
    expect(linkedinSettings(loadConfig({}), li).communityManagement).toBe(false)
    expect(
      linkedinSettings(loadConfig({}), { linkedin: { ...li.linkedin, communityManagement: true } })
        .communityManagement,
    ).toBe(true)
    expect(
      linkedinSettings(loadConfig({ HERALD_LINKEDIN_COMMUNITY_MANAGEMENT: '1' }), li).communityManagement,
    ).toBe(true)
  })
})

describe('the connect flow with apps from the environment and the page', () => {
  let h: Harness
  let owner: Browser
  beforeAll(async () => {
    h = await startHarness({ env: { HERALD_TWITTER_CLIENT_ID: 'env-x' } })
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const authorizeClientId = async (network: string) => {
    const started = await owner.connect(`/connect/${network}`)
    expect(started.status).toBe(303)
    return new URL(started.location!).searchParams.get('client_id')
  }

  it('sends X the environment’s app even with another saved on the page', async () => {
    await h.app.networkApps.save('twitter', { clientId: 'page-x', clientSecret: 'page-secret' }, h.userId)
    expect(await authorizeClientId('twitter')).toBe('env-x')
  })

  it('uses an app another process saved, read again as the connection starts', async () => {
    // Another Herald process on the same database: this one has not seen its change.
    const other = createNetworkApps({
      config: h.app.config,
      store: h.app.store,
      vault: h.app.vault,
      clock: h.app.clock,
      logger: h.app.logger,
      adapters: {},
      initial: {},
    })
    const form = await owner.get('/workspaces')
    await other.save('youtube', { clientId: 'page-google', clientSecret: 'page-google-secret' }, h.userId)
    expect(h.app.networkApps.canConnect('youtube')).toBe(false)
    // Straight to the start, as a form left open before the change would.
    const started = await owner.post('/connect/youtube', {
      csrf: owner.csrf(form),
      workspaceId: h.workspaceId,
    })
    expect(started.status).toBe(303)
    expect(new URL(started.location!).searchParams.get('client_id')).toBe('page-google')
    await other.remove('youtube')
    const page = await owner.get('/connect/youtube')
    expect(page.status).toBe(404)
    expect(page.text).toContain('YouTube is not set up')
    expect(page.text).not.toContain('Continue to')
  })
})
