import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redirectUriProblem } from '../../src/modules/oauth-server/redirect-uris.js'
import { FakeClock } from '../../src/platform/clock.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import {
  authorize,
  authorizeUrl,
  type CallbackServer,
  type DocumentServer,
  documentFetcher,
  metadataDocument,
  obtainTokens,
  pkcePair,
  register,
  startCallbackServer,
  startDocumentServer,
} from '../helpers/oauth.js'

/**
 * Which redirect URIs a client may have, and how one given at authorization must match them: exactly, except
 * the port of a loopback one (RFC 8252 §7.3). The same for dynamic registrations and metadata documents.
 */
describe('redirect URIs', () => {
  let h: Harness
  let browser: Browser
  let documents: DocumentServer
  let callback: CallbackServer
  /** The callback's loopback URI with another port: what a desktop client registers before it picks one. */
  let otherPort: string
  const clock = new FakeClock(Date.now())

  const clientRows = async () =>
    Number(
      (
        await h.app.store.db
          .selectFrom('oauth_artifacts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('model', '=', 'Client')
          .executeTakeFirstOrThrow()
      ).n,
    )
  /** A registration as the MCP SDK sends it: no application_type. A minute apart: 10 a minute is the limit. */
  const registerLikeSdk = (redirectUris: string[]) => {
    clock.advance(61_000)
    return register(h, redirectUris[0] as string, {
      redirect_uris: redirectUris,
      application_type: undefined,
    })
  }
  const start = (clientId: string, redirectUri: string) =>
    browser.get(
      authorizeUrl(h, {
        clientId,
        redirectUri,
        ...pkcePair(),
        method: 'S256',
        resource: `${h.baseUrl}/mcp`,
        scope: 'posts:read',
      }),
    )

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    h = await startHarness({
      prePickPort: true,
      clock,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
    })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    otherPort = callback.redirectUri.replace(/:\d+\//, ':49152/')
  })
  afterAll(async () => {
    await h.close()
    await documents.close()
    await callback.close()
  })

  it.each([
    ['http to a host that is not loopback', 'http://evil.example/callback'],
    ['a name that only starts like a loopback address', 'http://127.0.0.1.evil.example/callback'],
    ['a fragment', 'https://app.example/callback#done'],
    ['user information', 'https://someone@app.example/callback'],
    ['https on a loopback host', 'https://127.0.0.1/callback'],
    ['a javascript: URI', 'javascript:alert(1)'],
    ['a data: URI', 'data:text/html,hello'],
  ])('a registration with %s is refused with invalid_redirect_uri, nothing stored', async (_label, uri) => {
    const before = await clientRows()
    const answer = await registerLikeSdk(['https://app.example/fine', uri])
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('invalid_redirect_uri')
    expect(await clientRows()).toBe(before)
  })

  it.each([
    ['https', 'https://app.example/callback'],
    ['loopback IPv4 without a port', 'http://127.0.0.1/callback'],
    ['loopback IPv6 with a port', 'http://[::1]:8080/callback'],
    ['localhost with a port', 'http://localhost:33418/callback'],
    ['a private-use scheme (RFC 8252 §7.1)', 'com.example.assistant:/oauth/callback'],
  ])('a registration with %s is accepted', async (_label, uri) => {
    const answer = await registerLikeSdk([uri])
    expect(answer.status).toBe(201)
    expect(answer.body.redirect_uris).toEqual([uri])
  })

  it('lets a registered loopback redirect URI come back on any port, through to tokens', async () => {
    const registration = await registerLikeSdk([otherPort])
    expect(registration.status).toBe(201)
    const tokens = await obtainTokens(browser, h, {
      clientId: registration.body.client_id,
      redirectUri: callback.redirectUri,
    })
    expect(tokens.access_token).toBeTruthy()
  })

  it('lets a metadata document’s loopback redirect URI come back on any port', async () => {
    const id = documents.url('/desktop.json')
    documents.set('/desktop.json', metadataDocument(id, otherPort))
    const answer = await start(id, callback.redirectUri)
    expect(answer.status).toBe(303)
    expect(answer.location).toContain('/oauth/consent/')
  })

  it.each([
    ['another path on loopback', (uri: string) => uri.replace('/callback', '/other')],
    ['an added query on loopback', (uri: string) => `${uri}?next=1`],
    ['localhost for 127.0.0.1', (uri: string) => uri.replace('127.0.0.1', 'localhost')],
    ['https for http on loopback', (uri: string) => uri.replace('http:', 'https:')],
  ])('refuses %s: the rest of a loopback URI matches exactly', async (_label, change) => {
    const registration = await registerLikeSdk([callback.redirectUri])
    const id = documents.url('/exact-loopback.json')
    documents.set('/exact-loopback.json', metadataDocument(id, callback.redirectUri))
    for (const clientId of [registration.body.client_id, id]) {
      const answer = await authorize(browser, h, {
        clientId,
        redirectUri: change(callback.redirectUri),
        ...pkcePair(),
        method: 'S256',
        resource: `${h.baseUrl}/mcp`,
      })
      expect(answer.location).toBeUndefined()
      expect(answer.status).toBe(400)
      expect(answer.text).toContain('invalid_redirect_uri')
    }
  })

  it.each([
    ['a trailing slash', 'https://app.example/callback/'],
    ['an explicit default port', 'https://app.example:443/callback'],
    ['another port', 'https://app.example:8443/callback'],
    ['another host', 'https://app.example.evil.test/callback'],
    ['an added query', 'https://app.example/callback?x=1'],
    ['http', 'http://app.example/callback'],
  ])('refuses an https redirect URI that differs by %s', async (_label, uri) => {
    const registration = await registerLikeSdk(['https://app.example/callback'])
    const id = documents.url('/web.json')
    documents.set('/web.json', metadataDocument(id, 'https://app.example/callback'))
    for (const clientId of [registration.body.client_id, id]) {
      const answer = await start(clientId, uri)
      expect(answer.status).toBe(400)
      expect(answer.location).toBeUndefined()
      expect(answer.text).toContain('invalid_redirect_uri')
    }
  })

  it('refuses a metadata document whose redirect URIs break the rule: no redirect, nothing issued', async () => {
    const id = documents.url('/plain-http.json')
    documents.set('/plain-http.json', metadataDocument(id, 'http://evil.example/callback'))
    const answer = await start(id, 'http://evil.example/callback')
    expect(answer.status).toBe(400)
    expect(answer.location).toBeUndefined()
    expect(answer.text).toMatch(/invalid_(client|redirect_uri)/)
  })
})

describe('the redirect URI rule', () => {
  it.each([
    ['https://app.example/cb', undefined],
    ['http://127.0.0.1:1234/cb', undefined],
    ['http://[::1]/cb', undefined],
    ['http://localhost/cb', undefined],
    ['cursor://anysphere.cursor-mcp/oauth/callback', undefined],
    ['http://10.0.0.1/cb', /only on a loopback host/],
    ['http://127.0.0.2/cb', /only on a loopback host/],
    ['https://localhost/cb', /uses http/],
    ['https://app.example/cb#x', /fragment/],
    ['https://a:b@app.example/cb', /user information/],
    ['file:///etc/passwd', /file scheme/],
    ['wss://app.example/cb', /wss scheme/],
    ['/relative', /not an absolute URL/],
    ['', /non-empty/],
  ])('%s', (uri, expected) => {
    const problem = redirectUriProblem(uri)
    if (expected === undefined) expect(problem).toBeUndefined()
    else expect(problem).toMatch(expected)
  })
})
