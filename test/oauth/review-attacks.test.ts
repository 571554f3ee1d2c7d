import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { removeEditor } from '../../src/platform/db/statements/accounts.js'
import { backends } from '../helpers/backends.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import {
  authorize,
  authorizeUrl,
  type CallbackServer,
  type DocumentServer,
  documentFetcher,
  mcpCall,
  metadataDocument,
  obtainTokens,
  pkcePair,
  startCallbackServer,
  startDocumentServer,
  tokenRequest,
} from '../helpers/oauth.js'

/**
 * What OAuth for MCP clients promises (docs/adr/0025-oauth-for-mcp-clients.md), attacked item by item: each
 * test tries to get more than was granted (another resource, more scope, a longer life, a token past its
 * revocation) and checks that nothing more is given.
 */
describe.each(backends)('the OAuth server under attack, on $name', (backend) => {
  const clock = new FakeClock(Date.now())
  let h: Harness
  let browser: Browser
  let documents: DocumentServer
  let callback: CallbackServer
  let clientId: string
  let mcp: string

  const rest = (token: string, tool: string, body: Record<string, unknown> = {}) =>
    fetch(`${h.baseUrl}/api/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    })
  const grantCode = async (options: { scope?: string; resource?: string } = {}) => {
    const { verifier, challenge } = pkcePair()
    const done = await authorize(browser, h, {
      clientId,
      redirectUri: callback.redirectUri,
      challenge,
      method: 'S256',
      resource: options.resource ?? mcp,
      scope: options.scope ?? 'posts:read',
    })
    const code = done.location?.searchParams.get('code')
    if (!code) throw new Error(`no code: ${done.location ?? done.text.slice(0, 200)}`)
    return { code, verifier }
  }

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    h = await startHarness({
      backend,
      prePickPort: true,
      clock,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
    })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    clientId = documents.url('/client.json')
    documents.set('/client.json', metadataDocument(clientId, callback.redirectUri), {
      headers: { 'cache-control': 'max-age=86400' },
    })
    mcp = `${h.baseUrl}/mcp`
  })
  afterAll(async () => {
    await h.close()
    await documents.close()
    await callback.close()
  })

  it('PKCE: refuses a challenge that is not a S256 digest, and a code without its verifier', async () => {
    const malformed = await authorize(browser, h, {
      clientId,
      redirectUri: callback.redirectUri,
      challenge: 'short',
      method: 'S256',
      resource: mcp,
      scope: 'posts:read',
    })
    expect(malformed.location?.searchParams.get('error')).toBe('invalid_request')
    const { code } = await grantCode()
    const answer = await tokenRequest(h, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback.redirectUri,
      client_id: clientId,
      resource: mcp,
    })
    expect(answer.status).toBe(400)
    expect(answer.body.access_token).toBeUndefined()
  })

  it('resource: a code granted for /mcp is not exchanged for a token for the whole service', async () => {
    const { code, verifier } = await grantCode()
    const answer = await tokenRequest(h, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: callback.redirectUri,
      client_id: clientId,
      resource: h.baseUrl,
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('invalid_target')
    expect(answer.body.access_token).toBeUndefined()
  })

  it('resource: a refresh cannot widen a /mcp token to the whole service, and the refused try costs nothing', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    for (const resource of [h.baseUrl, 'https://elsewhere.example/mcp']) {
      const widened = await tokenRequest(h, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
        resource,
      })
      expect(widened.status).toBe(400)
      expect(widened.body.error).toBe('invalid_target')
      expect(widened.body.access_token).toBeUndefined()
    }
    // The refresh token was not used up by the refusals: the same one still refreshes (no reuse alarm).
    const refreshed = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource: mcp,
    })
    expect(refreshed.status).toBe(200)
    expect((await mcpCall(h, refreshed.body.access_token, 'list_workspaces')).status).toBe(200)
    expect((await rest(refreshed.body.access_token, 'list_workspaces')).status).toBe(401)
  })

  it('scopes: a refresh cannot add a scope the person did not grant', async () => {
    const tokens = await obtainTokens(
      browser,
      h,
      { clientId, redirectUri: callback.redirectUri },
      { scope: 'posts:read' },
    )
    const wider = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      scope: 'posts:read posts:write',
    })
    expect(wider.status).toBe(400)
    expect(wider.body.error).toBe('invalid_scope')
    expect(wider.body.access_token).toBeUndefined()
  })

  it('lifetimes: an access token lasts its hour and a refresh token its 30 days, past the sign-in session', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    expect((tokens as unknown as { expires_in: number }).expires_in).toBe(3600)
    // The library's sign-in session (and the consent interaction) last 10 minutes; tokens do not end with them.
    clock.advance(30 * 60_000)
    expect((await mcpCall(h, tokens.access_token, 'list_workspaces')).status).toBe(200)
    clock.advance(31 * 60_000)
    expect((await mcpCall(h, tokens.access_token, 'list_workspaces')).status).toBe(401)
    const refreshed = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token)
    expect((await mcpCall(h, refreshed.body.access_token, 'list_workspaces')).status).toBe(200)
    // A week later, the (rotated) refresh token still works; unused for more than 30 days, it does not.
    clock.advance(7 * 86_400_000)
    const later = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
      client_id: clientId,
    })
    expect(later.status).toBe(200)
    clock.advance(31 * 86_400_000)
    const expired = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: later.body.refresh_token,
      client_id: clientId,
    })
    expect(expired.status).toBe(400)
    expect(expired.body.error).toBe('invalid_grant')
    await browser.login(h.email, h.password)
  })

  it('revocation: an access token revoked at the RFC 7009 endpoint is refused at once, by its own client only', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    const otherId = documents.url('/other-client.json')
    documents.set('/other-client.json', metadataDocument(otherId, callback.redirectUri))
    const byOther = await fetch(`${h.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: otherId }).toString(),
    })
    expect(byOther.status).toBe(200)
    expect((await mcpCall(h, tokens.access_token, 'list_workspaces')).status).toBe(200)
    const revoked = await fetch(`${h.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: clientId }).toString(),
    })
    expect(revoked.status).toBe(200)
    expect((await mcpCall(h, tokens.access_token, 'list_workspaces')).status).toBe(401)
  })

  it('step-up: the 403 names the scopes already granted plus the missing one, and the resource metadata', async () => {
    const tokens = await obtainTokens(
      browser,
      h,
      { clientId, redirectUri: callback.redirectUri },
      { scope: 'posts:read' },
    )
    const refused = await mcpCall(h, tokens.access_token, 'create_post', {})
    expect(refused.status).toBe(403)
    // Asking for the missing scope alone would cost the read access on re-authorization (MCP step-up).
    expect(refused.wwwAuthenticate).toContain('error="insufficient_scope"')
    expect(refused.wwwAuthenticate).toContain('scope="posts:read posts:write"')
    expect(refused.wwwAuthenticate).toContain(
      `resource_metadata="${h.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    )
  })

  it('metadata documents: a failing one is fetched once per authorization request, not twice', async () => {
    const id = documents.url('/broken.json')
    documents.set('/broken.json', '', { status: 500 })
    const answer = await authorize(browser, h, {
      clientId: id,
      redirectUri: callback.redirectUri,
      ...pkcePair(),
      method: 'S256',
      resource: mcp,
      scope: 'posts:read',
    })
    expect(answer.status).toBe(400)
    expect(answer.text).toContain('invalid_client')
    expect(documents.hits.get('/broken.json')).toBe(1)
  })

  it('consent: a workspace the person is not a member of is refused, and nothing is granted', async () => {
    await h.app.accounts.createUser({ email: 'stranger@example.com', password: 'a long enough password' })
    const stranger = await h.app.accounts.createWorkspace({
      name: 'Someone else',
      ownerEmail: 'stranger@example.com',
      credits: 5,
    })
    const grants = (await h.app.store.db.selectFrom('oauth_grants').select('id').execute()).length
    const answer = await authorize(
      browser,
      h,
      {
        clientId,
        redirectUri: callback.redirectUri,
        ...pkcePair(),
        method: 'S256',
        resource: mcp,
        scope: 'posts:write',
      },
      { decision: 'allow', workspaceId: stranger.workspaceId },
    )
    expect(answer.location).toBeUndefined()
    expect(answer.status).toBe(400)
    expect(answer.text).toContain('Choose one of your workspaces.')
    expect((await h.app.store.db.selectFrom('oauth_grants').select('id').execute()).length).toBe(grants)
  })

  it('resource: an authorization naming two resources is sent invalid_target, granting nothing', async () => {
    const grants = (await h.app.store.db.selectFrom('oauth_grants').select('id').execute()).length
    const url = new URL(
      authorizeUrl(h, {
        clientId,
        redirectUri: callback.redirectUri,
        ...pkcePair(),
        method: 'S256',
        resource: mcp,
        scope: 'posts:read',
      }),
    )
    url.searchParams.append('resource', h.baseUrl)
    let page = await browser.get(url.toString())
    for (let hop = 0; hop < 5 && page.location?.startsWith(h.baseUrl); hop++)
      page = await browser.get(page.location)
    const back = new URL(page.location as string)
    expect(back.origin + back.pathname).toBe(callback.redirectUri)
    expect(back.searchParams.get('error')).toBe('invalid_target')
    expect(back.searchParams.get('code')).toBeNull()
    expect((await h.app.store.db.selectFrom('oauth_grants').select('id').execute()).length).toBe(grants)
  })

  it('consent: prompt=none never issues a code silently, even right after a consent', async () => {
    await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    const url = new URL(
      authorizeUrl(h, {
        clientId,
        redirectUri: callback.redirectUri,
        ...pkcePair(),
        method: 'S256',
        resource: mcp,
        scope: 'posts:read',
      }),
    )
    url.searchParams.set('prompt', 'none')
    let page = await browser.get(url.toString())
    for (let hop = 0; hop < 5 && page.location?.startsWith(h.baseUrl); hop++)
      page = await browser.get(page.location)
    const back = new URL(page.location as string)
    expect(back.searchParams.get('code')).toBeNull()
    expect(back.searchParams.get('error')).toMatch(/_required$/)
  })

  it('membership: a token stops working once its person is removed from the workspace', async () => {
    await h.app.accounts.createUser({ email: 'editor@example.com', password: 'another long password' })
    await h.app.accounts.addMember({
      workspaceId: h.workspaceId,
      email: 'editor@example.com',
      role: 'editor',
    })
    const editor = createBrowser(h.baseUrl)
    await editor.login('editor@example.com', 'another long password')
    const tokens = await obtainTokens(editor, h, { clientId, redirectUri: callback.redirectUri })
    expect((await mcpCall(h, tokens.access_token, 'list_workspaces')).status).toBe(200)
    const { userId } = await h.app.accounts.addMember({
      workspaceId: h.workspaceId,
      email: 'editor@example.com',
      role: 'editor',
    })
    expect(await removeEditor(h.app.store.db, h.workspaceId, userId)).toBe(true)
    expect((await mcpCall(h, tokens.access_token, 'list_workspaces')).status).toBe(401)
  })

  it('401: a token that is not valid is answered with invalid_token and the resource metadata', async () => {
    const answer = await mcpCall(h, 'not-a-real-token', 'list_workspaces')
    expect(answer.status).toBe(401)
    expect(answer.wwwAuthenticate).toContain('error="invalid_token"')
    expect(answer.wwwAuthenticate).toContain(
      `resource_metadata="${h.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    )
    const restAnswer = await rest('not-a-real-token', 'list_workspaces')
    expect(restAnswer.status).toBe(401)
    expect(restAnswer.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })
})
