import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import {
  CLIENT_ID,
  failureOf,
  REDIRECT_URI,
  reportSkippedWithoutOpenApi,
  startTwitterFixture,
  type TwitterFixture,
  xOpenApiAvailable,
} from './twitter-fixture.js'

reportSkippedWithoutOpenApi('X connect flow (adapter against the sandbox)')

describe.runIf(xOpenApiAvailable)('X connect flow (adapter against the sandbox)', () => {
  let fx: TwitterFixture
  beforeAll(async () => {
    fx = await startTwitterFixture()
  })
  afterAll(() => fx.close())
  afterEach(() => {
    expect(fx.validation.problems).toEqual([])
  })

  it('builds the authorize URL with the five scopes, the state and an S256 PKCE challenge', () => {
    const raw = fx.adapter.oauth!.authorizeUrl({
      state: 'st-123',
      codeChallenge: 'challenge-abc',
      redirectUri: REDIRECT_URI,
    })
    const url = new URL(raw)
    expect(`${url.origin}${url.pathname}`).toBe(fx.authorizeUrl)
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      scope: 'tweet.read tweet.write users.read media.write offline.access',
      state: 'st-123',
      code_challenge: 'challenge-abc',
      code_challenge_method: 'S256',
    })
    // Spaces between scopes are %20, as X's docs show.
    expect(raw).toContain('scope=tweet.read%20tweet.write%20users.read%20media.write%20offline.access')
    expect(fx.adapter.oauth!.scopes).toEqual([
      'tweet.read',
      'tweet.write',
      'users.read',
      'media.write',
      'offline.access',
    ])
  })

  it('shows a consent page listing the requested scopes with a username field and Authorize / Cancel', async () => {
    const url = fx.adapter.oauth!.authorizeUrl({ state: 's', codeChallenge: 'c', redirectUri: REDIRECT_URI })
    const response = await fetch(url)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/html')
    const html = await response.text()
    for (const scope of ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access']) {
      expect(html).toContain(`name="granted_scope" value="${scope}" checked`)
    }
    expect(html).toContain('name="username"')
    expect(html).toMatch(/<button[^>]*value="authorize"[^>]*>Authorize app<\/button>/)
    expect(html).toMatch(/<button[^>]*value="cancel"[^>]*>Cancel<\/button>/)
  })

  it('redirects with error=access_denied and the state when the user cancels', async () => {
    const url = new URL(
      fx.adapter.oauth!.authorizeUrl({ state: 'st-cancel', codeChallenge: 'c', redirectUri: REDIRECT_URI }),
    )
    const form = new URLSearchParams(url.searchParams)
    form.set('decision', 'cancel')
    const response = await fetch(`${url.origin}${url.pathname}`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    })
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get('location')!)
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI)
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('state')).toBe('st-cancel')
    expect(location.searchParams.has('code')).toBe(false)
  })

  it('exchanges the callback code for tokens that expire in 7200 s and reports the granted scopes', async () => {
    const connection = await fx.connect('alice')
    expect(connection.grantedScopes.sort()).toEqual(
      ['media.write', 'offline.access', 'tweet.read', 'tweet.write', 'users.read'].sort(),
    )
    expect(connection.credentials.accessToken).toMatch(/.{20,}/)
    expect(connection.credentials.refreshToken).toMatch(/.{20,}/)
    expect(connection.credentials.expiresAt).toBe(fx.clock.now() + 7200 * 1000)
    expect(connection.profile).toMatchObject({ username: 'alice', name: 'alice', isOrganization: false })
    expect(connection.profile.profileId).toMatch(/^[0-9]{1,19}$/)
    expect(connection.profile.avatarUrl).toMatch(/^https:\/\//)
  })

  it('reports fewer scopes when the user unticks one on the consent page', async () => {
    const connection = await fx.connect('partial', { untick: ['media.write'] })
    expect(connection.grantedScopes).not.toContain('media.write')
    expect(connection.grantedScopes).toContain('tweet.write')
  })

  it('refuses a code presented with the wrong PKCE verifier, and the code is spent afterwards', async () => {
    fx.sandbox.createAccount({ username: 'pkce' })
    const { code, verifier } = await fx.authorize('pkce')
    const wrong = await failureOf(() =>
      fx.adapter.oauth!.exchangeCode({ code, codeVerifier: `${verifier}x`, redirectUri: REDIRECT_URI }),
    )
    expect(wrong).toBeInstanceOf(PublishFailure)
    expect(wrong.kind).toBe('auth_expired')
    expect(wrong.message).toContain('Value passed for the authorization code was invalid.')
    expect(wrong.message).not.toContain(code)
    expect(wrong.message).not.toContain(verifier)
    // Single use: even the right verifier cannot redeem a code that was already presented.
    const again = await failureOf(() =>
      fx.adapter.oauth!.exchangeCode({ code, codeVerifier: verifier, redirectUri: REDIRECT_URI }),
    )
    expect(again.kind).toBe('auth_expired')
  })

  it('refuses a code redeemed twice and one older than 30 seconds', async () => {
    fx.sandbox.createAccount({ username: 'twice' })
    const first = await fx.authorize('twice')
    await fx.adapter.oauth!.exchangeCode({
      code: first.code,
      codeVerifier: first.verifier,
      redirectUri: REDIRECT_URI,
    })
    const replay = await failureOf(() =>
      fx.adapter.oauth!.exchangeCode({
        code: first.code,
        codeVerifier: first.verifier,
        redirectUri: REDIRECT_URI,
      }),
    )
    expect(replay.kind).toBe('auth_expired')

    const late = await fx.authorize('twice')
    fx.clock.advance(31_000)
    const expired = await failureOf(() =>
      fx.adapter.oauth!.exchangeCode({
        code: late.code,
        codeVerifier: late.verifier,
        redirectUri: REDIRECT_URI,
      }),
    )
    expect(expired.kind).toBe('auth_expired')
  })

  it('rotates the refresh token on refresh and refuses the old one afterwards', async () => {
    const { credentials } = await fx.connect('rotator')
    fx.clock.advance(60_000)
    const renewed = await fx.adapter.refresh(credentials)
    expect(renewed.accessToken).not.toBe(credentials.accessToken)
    expect(renewed.refreshToken).toBeDefined()
    expect(renewed.refreshToken).not.toBe(credentials.refreshToken)
    expect(renewed.expiresAt).toBe(fx.clock.now() + 7200 * 1000)
    expect((await fx.adapter.resolveProfile(renewed)).username).toBe('rotator')

    const stale = await failureOf(() => fx.adapter.refresh(credentials))
    expect(stale).toBeInstanceOf(PublishFailure)
    expect(stale.kind).toBe('auth_expired')
    expect(stale.message).toMatch(/^Access token for twitter is missing or invalid/)
    expect(stale.message).not.toContain(credentials.refreshToken!)
    // The rotated token still works once.
    expect((await fx.adapter.refresh(renewed)).accessToken).toBeTruthy()
  })

  it('answers 401 for an access token past its 7200 s lifetime, and a refresh recovers', async () => {
    const { credentials } = await fx.connect('expiring')
    fx.clock.advance(7201 * 1000)
    const expired = await failureOf(() => fx.adapter.resolveProfile(credentials))
    expect(expired.kind).toBe('auth_expired')
    expect(expired.options.status).toBe(401)
    const renewed = await fx.adapter.refresh(credentials)
    expect((await fx.adapter.resolveProfile(renewed)).username).toBe('expiring')
  })

  it('authenticates a confidential client with HTTP Basic, and refuses it without the secret', async () => {
    fx.sandbox.registerClient({ clientId: 'confidential-app', clientSecret: 's3cret-value-123' })
    const confidential = fx.adapterWith({ clientId: 'confidential-app', clientSecret: 's3cret-value-123' })
    const connection = await fx.connect('basic', { adapter: confidential })
    expect(connection.profile.username).toBe('basic')
    expect((await confidential.refresh(connection.credentials)).refreshToken).toBeTruthy()

    const noSecret = fx.adapterWith({ clientId: 'confidential-app', clientSecret: undefined })
    const { code, verifier } = await fx.authorize('basic', { adapter: noSecret })
    const refused = await failureOf(() =>
      noSecret.oauth!.exchangeCode({ code, codeVerifier: verifier, redirectUri: REDIRECT_URI }),
    )
    expect(refused.kind).toBe('auth_expired')
    expect(refused.message).not.toContain('s3cret-value-123')
  })
})
