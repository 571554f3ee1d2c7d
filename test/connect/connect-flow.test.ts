import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { STATE_TTL_MS } from '../../src/platform/crypto/state-tokens.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { type Browser, createBrowser, decodeEntities, formFields, type Page } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const TWITTER_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access']

/** The consent form of a sandbox authorize page, with fields changed or dropped as a user would. */
function consentForm(
  page: Page,
  changes: { set?: Record<string, string>; untick?: string[]; decision?: string } = {},
): Record<string, string[]> {
  const form: Record<string, string[]> = {}
  for (const [name, value] of formFields(page.text).fields) {
    if (changes.untick?.includes(value)) continue
    const values = form[name] ?? []
    values.push(value)
    form[name] = values
  }
  // The first submit button is the consent (Authorize on X, Allow on Google).
  form.decision = [/<button type="submit" name="decision" value="([^"]+)"/.exec(page.text)![1]!]
  for (const [name, value] of Object.entries(changes.set ?? {})) form[name] = [value]
  return form
}

describe('the connect flow', () => {
  let h: Harness
  let clock: FakeClock
  let browser: Browser

  beforeAll(async () => {
    clock = new FakeClock(Date.now())
    h = await startHarness({ sandbox: true, clock })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  /** GET /connect/<network> and the sandbox consent page it redirects to. */
  async function begin(network: 'twitter' | 'youtube', b: Browser = browser) {
    const start = await b.connect(`/connect/${network}`)
    expect(start.status).toBe(303)
    const consent = await b.get(start.location!)
    expect(consent.status).toBe(200)
    return { start, consent }
  }

  /** Submits the consent form and returns the sandbox's redirect back to Herald's callback. */
  async function consent(page: Page, form: Record<string, string[]>, b: Browser = browser) {
    const action = new URL(formFields(page.text).action, h.baseUrl).toString()
    const answer = await b.post(action, form)
    expect(answer.status).toBe(302)
    expect(answer.location).toContain('/callback?')
    return answer.location!
  }

  const connections = () => h.app.store.db.selectFrom('connections').selectAll().execute()

  it('connects an X profile with a signed state and a PKCE S256 challenge, and lists it on the channels page', async () => {
    const { start, consent: page } = await begin('twitter')
    const authorize = new URL(start.location!)
    expect(authorize.pathname).toBe('/sandbox/twitter/i/oauth2/authorize')
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${h.baseUrl}/connect/twitter/callback`)
    expect(authorize.searchParams.get('scope')?.split(' ').sort()).toEqual([...TWITTER_SCOPES].sort())

    const callback = await consent(page, consentForm(page, { set: { username: 'acme_news' } }))
    const done = await browser.get(callback)
    expect(done.status).toBe(303)
    expect(done.location).toMatch(/\/channels\?connected=[0-9a-f]{24}$/)
    const channels = await browser.get(done.location!)
    expect(channels.status).toBe(200)
    expect(channels.text).toContain('Connected @acme_news on X.')
    expect(channels.text).toContain('@acme_news')

    const row = (await connections()).find((c) => c.username === 'acme_news')!
    expect(row).toMatchObject({ platform: 'twitter', status: 'active', workspace_id: h.workspaceId })
    expect(row.credentials.startsWith('v2.')).toBe(true)
    expect(row.scopes.split(' ').sort()).toEqual([...TWITTER_SCOPES].sort())
    expect(Number(row.token_expires_at)).toBe(clock.now() + 7200 * 1000)
    const state = await h.app.store.db.selectFrom('oauth_states').selectAll().executeTakeFirstOrThrow()
    expect(state.code_verifier.startsWith('v2.')).toBe(true)
    expect(state.used_at).not.toBeNull()

    const accounts = await h.call('get_connected_accounts')
    expect(accounts.body).toContainEqual({
      platform: 'twitter',
      username: 'acme_news',
      name: expect.any(String),
      profileId: row.profile_id,
      isOrganization: false,
    })
  })

  it('refuses a replayed state with a page saying the link was already used', async () => {
    const { consent: page } = await begin('twitter')
    const callback = await consent(page, consentForm(page, { set: { username: 'replay_me' } }))
    expect((await browser.get(callback)).status).toBe(303)
    const before = (await connections()).length

    const replay = await browser.get(callback)
    expect(replay.status).toBe(400)
    expect(replay.headers.get('content-type')).toContain('text/html')
    expect(replay.text).toContain('Connection link already used')
    expect(replay.text).toContain('each connection link works once')
    expect((await connections()).length).toBe(before)
  })

  it.each([
    ['an altered signature', (state: string) => `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`],
    ['a made-up state', () => 'not-a-state-at-all.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['no state', () => ''],
  ])('refuses a forged state (%s) with a page that says so', async (_name, forge) => {
    const { consent: page } = await begin('twitter')
    const callback = new URL(await consent(page, consentForm(page, { set: { username: 'forged' } })))
    const forged = forge(callback.searchParams.get('state')!)
    if (forged) callback.searchParams.set('state', forged)
    else callback.searchParams.delete('state')
    const answer = await browser.get(callback.toString())
    expect(answer.status).toBe(400)
    expect(answer.text).toMatch(/Connection link (not valid|incomplete)/)
    expect(answer.text).toContain('Nothing was connected.')
    expect((await connections()).some((c) => c.username === 'forged')).toBe(false)
  })

  it('refuses a state signed for another network', async () => {
    const { consent: page } = await begin('twitter')
    const callback = new URL(await consent(page, consentForm(page, { set: { username: 'wrong_path' } })))
    callback.pathname = '/connect/youtube/callback'
    const answer = await browser.get(callback.toString())
    expect(answer.status).toBe(400)
    expect(answer.text).toContain('Connection link not valid')
  })

  it('refuses an expired state after 10 minutes with a page that says so', async () => {
    const { consent: page } = await begin('twitter')
    const callback = await consent(page, consentForm(page, { set: { username: 'too_slow' } }))
    clock.advance(STATE_TTL_MS + 1000)
    const answer = await browser.get(callback)
    expect(answer.status).toBe(400)
    expect(answer.text).toContain('Connection link expired')
    expect(answer.text).toContain('within 10 minutes')
    expect((await connections()).some((c) => c.username === 'too_slow')).toBe(false)
  })

  it('refuses a grant missing a scope and names the missing scope', async () => {
    const { consent: page } = await begin('twitter')
    const callback = await consent(
      page,
      consentForm(page, { set: { username: 'no_media' }, untick: ['media.write'] }),
    )
    expect(new URL(callback).searchParams.get('code')).toBeTruthy()
    const answer = await browser.get(callback)
    expect(answer.status).toBe(400)
    expect(answer.text).toContain('Permission missing')
    expect(answer.text).toContain('Missing: media.write.')
    expect((await connections()).some((c) => c.username === 'no_media')).toBe(false)
  })

  it('says consent was declined when the user cancels on the network', async () => {
    const { consent: page } = await begin('twitter')
    const callback = await consent(
      page,
      consentForm(page, { set: { username: 'declines', decision: 'cancel' } }),
    )
    expect(new URL(callback).searchParams.get('error')).toBe('access_denied')
    const answer = await browser.get(callback)
    expect(answer.status).toBe(400)
    expect(answer.text).toContain('Access declined')
    expect(decodeEntities(answer.text)).toContain('You declined to give Herald access on X.')
  })

  it('refuses a callback that arrives without a signed-in session', async () => {
    const { consent: page } = await begin('twitter')
    const callback = await consent(page, consentForm(page, { set: { username: 'no_session' } }))
    const stranger = createBrowser(h.baseUrl)
    const answer = await stranger.get(callback)
    expect(answer.status).toBe(401)
    expect(answer.text).toContain('Not signed in')
    expect(answer.text).toContain('Nothing was connected.')
    expect((await connections()).some((c) => c.username === 'no_session')).toBe(false)
  })

  it('refuses a state that another signed-in person started', async () => {
    await h.app.accounts.createUser({
      email: `editor-${h.workspaceId}@example.com`,
      password: 'editor password',
    })
    await h.app.accounts.addMember({
      workspaceId: h.workspaceId,
      email: `editor-${h.workspaceId}@example.com`,
      role: 'editor',
    })
    const editor = createBrowser(h.baseUrl)
    await editor.login(`editor-${h.workspaceId}@example.com`, 'editor password')
    const { consent: page } = await begin('twitter', editor)
    const callback = await consent(page, consentForm(page, { set: { username: 'hijack' } }), editor)
    const answer = await browser.get(callback)
    expect(answer.status).toBe(400)
    expect(answer.text).toContain('Connection started by someone else')
    // The state is spent: the person who started it cannot finish with it either.
    expect((await editor.get(callback)).status).toBe(400)
  })

  it('sends a signed-out visitor of /connect/twitter to the sign-in page and back', async () => {
    const visitor = createBrowser(h.baseUrl)
    const answer = await visitor.get('/connect/twitter')
    expect(answer.status).toBe(303)
    expect(answer.location).toBe(`${h.baseUrl}/login?next=%2Fconnect%2Ftwitter`)
  })

  describe('YouTube', () => {
    it('connects a channel through the Google sandbox', async () => {
      const { start, consent: page } = await begin('youtube')
      const authorize = new URL(start.location!)
      expect(authorize.pathname).toBe('/sandbox/youtube/o/oauth2/v2/auth')
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
      expect(authorize.searchParams.get('access_type')).toBe('offline')
      const callback = await consent(page, consentForm(page, { set: { account: 'creator@example.com' } }))
      const done = await browser.get(callback)
      expect(done.status).toBe(303)
      const row = (await connections()).find((c) => c.platform === 'youtube')!
      expect(row).toMatchObject({ username: '@heralddemo', name: 'Herald Demo Channel', is_organization: 1 })
      expect(row.profile_id).toMatch(/^UC/)
    })

    it('refuses a grant without any scope that can upload (upload and force-ssl unticked) and says so', async () => {
      // A Google account that never granted upload before (Google's incremental consent would report
      // an earlier grant of the scope again).
      const created = await fetch(`${h.baseUrl}/sandbox/youtube/_sandbox/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: 'careful@example.com',
          channel: { title: 'Careful', handle: '@careful' },
        }),
      })
      expect(created.status).toBe(201)
      const { consent: page } = await begin('youtube')
      const upload = 'https://www.googleapis.com/auth/youtube.upload'
      // youtube.force-ssl (asked for first comments) also allows uploads: untick it too.
      const forceSsl = 'https://www.googleapis.com/auth/youtube.force-ssl'
      const callback = await consent(
        page,
        consentForm(page, { set: { account: 'careful@example.com' }, untick: [upload, forceSsl] }),
      )
      const answer = await browser.get(callback)
      expect(answer.status).toBe(400)
      expect(decodeEntities(answer.text)).toContain('YouTube upload permission was not granted')
      expect(answer.text).toContain(`Missing scope: ${upload}`)
    })

    it('refuses a Google account that has no channel and says so', async () => {
      const { consent: page } = await begin('youtube')
      const callback = await consent(page, consentForm(page, { set: { account: 'nochannel@example.com' } }))
      const answer = await browser.get(callback)
      expect(answer.status).toBe(400)
      expect(answer.text).toContain('This Google account has no YouTube channel')
    })
  })

  it('connects a Bluesky account through the /connect/bluesky form to the simulator, keeping no app password', async () => {
    const channelsBefore = await browser.get('/channels')
    expect(channelsBefore.text).toContain('href="/connect/bluesky"')
    const form = await browser.get('/connect/bluesky')
    expect(form.status).toBe(200)
    expect(form.text).toContain('name="appPassword"')
    expect(form.text).toContain(`${h.baseUrl}/sandbox/bluesky/_sandbox/accounts`)
    const made = await fetch(`${h.baseUrl}/sandbox/bluesky/_sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'formdemo', displayName: 'Form Demo' }),
    })
    const { handle, appPassword } = (await made.json()) as { handle: string; appPassword: string }
    expect(handle).toBe('formdemo.bsky.social')

    const wrong = await browser.post('/connect/bluesky', {
      csrf: browser.csrf(form),
      identifier: handle,
      appPassword: 'aaaa-bbbb-cccc-dddd',
    })
    expect(wrong.status).toBe(400)
    expect(wrong.text).toContain('Bluesky refused that handle and app password')

    const done = await browser.post('/connect/bluesky', {
      csrf: browser.csrf(form),
      identifier: handle,
      appPassword,
    })
    expect(done.status).toBe(303)
    expect(done.location).toMatch(/\/channels\?connected=[0-9a-f]{24}$/)
    const row = (await connections()).find((c) => c.platform === 'bluesky')!
    expect(row).toMatchObject({ username: 'formdemo.bsky.social', name: 'Form Demo', status: 'active' })
    expect(row.profile_id).toMatch(/^did:plc:[a-z2-7]{24}$/)
    const stored = JSON.stringify(row)
    expect(stored).not.toContain(appPassword)
  })

  it('disconnects a profile from the channels page and deletes its tokens', async () => {
    const channels = await browser.get('/channels')
    const row = (await connections()).find((c) => c.username === 'replay_me')!
    const answer = await browser.post('/channels/disconnect', {
      csrf: browser.csrf(channels),
      connectionId: row.id,
    })
    expect(answer.status).toBe(303)
    const after = (await connections()).find((c) => c.id === row.id)!
    expect(after.status).toBe('removed')
    expect(h.app.vault.openJson(connectionCredentials(after.id), after.credentials)).toEqual({
      accessToken: '',
    })
    expect((await h.call('get_connected_accounts')).body.some((a: any) => a.username === 'replay_me')).toBe(
      false,
    )
  })
})

describe('dashboard sign-in and forms', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ sandbox: true })
  })
  afterAll(() => h.close())

  it('signs in with e-mail and password into an httpOnly SameSite=Lax session cookie', async () => {
    const browser = createBrowser(h.baseUrl)
    const form = await browser.get('/login')
    const answer = await browser.post('/login', {
      csrf: browser.csrf(form),
      email: h.email,
      password: h.password,
    })
    expect(answer.status).toBe(303)
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('herald_session='))!
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).not.toContain('Secure')
    const session = await h.app.store.db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow()
    // Only the token's hash is stored.
    expect(cookie).not.toContain(session.id)
    expect((await browser.get('/channels')).status).toBe(200)
  })

  it('refuses a wrong password with 401 and no session', async () => {
    const browser = createBrowser(h.baseUrl)
    const form = await browser.get('/login')
    const answer = await browser.post('/login', {
      csrf: browser.csrf(form),
      email: h.email,
      password: 'wrong password',
    })
    expect(answer.status).toBe(401)
    expect(answer.text).toContain('do not match an account')
    expect(browser.cookies.has('herald_session')).toBe(false)
  })

  it('signs out and the session stops working', async () => {
    const browser = createBrowser(h.baseUrl)
    const channels = await browser.login(h.email, h.password)
    const out = await browser.post('/logout', { csrf: browser.csrf(channels) })
    expect(out.status).toBe(303)
    expect((await browser.get('/channels')).status).toBe(303)
  })

  describe('refuses every POST form without its CSRF token with 403', () => {
    it.each([
      ['/login', { email: 'x@example.com', password: 'whatever1' }],
      ['/logout', {}],
      ['/channels/disconnect', { connectionId: 'abc' }],
      ['/channels/workspace', { workspaceId: 'abc' }],
      ['/connect/bluesky', { identifier: 'a.bsky.social', appPassword: 'aaaa-bbbb-cccc-dddd' }],
    ])('%s', async (path, form) => {
      const browser = createBrowser(h.baseUrl)
      await browser.login(h.email, h.password)
      const missing = await browser.post(path, form)
      expect(missing.status).toBe(403)
      expect(missing.text).toContain('security token')
      const wrong = await browser.post(path, { ...form, csrf: 'not-the-token' })
      expect(wrong.status).toBe(403)
      expect((await browser.get('/channels')).status).toBe(200)
    })
  })

  it('keeps the API refusing form bodies with 415', async () => {
    const response = await fetch(`${h.baseUrl}/api/tools/list_workspaces`, {
      method: 'POST',
      headers: { 'x-api-key': h.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=b',
    })
    expect(response.status).toBe(415)
  })

  it('switches workspace for a person in several and connects into the chosen one', async () => {
    const second = await h.app.accounts.createWorkspace({ name: 'Second', ownerEmail: h.email })
    const browser = createBrowser(h.baseUrl)
    const channels = await browser.login(h.email, h.password)
    expect(channels.text).toContain('name="workspaceId"')
    const switched = await browser.post('/channels/workspace', {
      csrf: browser.csrf(channels),
      workspaceId: second.workspaceId,
    })
    expect(switched.status).toBe(303)
    expect((await browser.get('/channels')).text).toContain('Channels of Second')
    const confirm = await browser.get(`/connect/twitter?workspaceId=${h.workspaceId}`)
    expect(confirm.text).toContain('Connect X to Acme')
    // Opening the page changes nothing; submitting its form switches and starts.
    expect((await browser.get('/channels')).text).toContain('Channels of Second')
    const start = await browser.connect(`/connect/twitter?workspaceId=${h.workspaceId}`)
    expect(start.status).toBe(303)
    expect((await browser.get('/channels')).text).toContain('Channels of Acme')
  })
})

describe('dashboard cookies behind https', () => {
  it('names the session cookie __Host- and marks it Secure when PUBLIC_BASE_URL is https', async () => {
    const h = await startHarness({ env: { PUBLIC_BASE_URL: 'https://herald.example.com' } })
    try {
      const browser = createBrowser(h.baseUrl)
      const form = await browser.get('/login')
      expect(form.headers.getSetCookie()[0]).toContain('Secure')
      const answer = await browser.post('/login', {
        csrf: browser.csrf(form),
        email: h.email,
        password: h.password,
      })
      const session = answer.headers.getSetCookie().find((c) => c.startsWith('__Host-herald_session='))
      expect(session).toContain('Secure')
      expect(session).toContain('Path=/')
      expect(session).not.toContain('Domain=')
      // The cookie is read back under that name.
      expect((await browser.get('/posts')).status).toBe(200)
    } finally {
      await h.close()
    }
  })
})
