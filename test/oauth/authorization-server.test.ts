import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { revokeGrantRow } from '../../src/platform/db/statements/oauth.js'
import { backends } from '../helpers/backends.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
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
  register,
  startCallbackServer,
  startDocumentServer,
  tokenRequest,
} from '../helpers/oauth.js'

/**
 * Herald's OAuth authorization server at the HTTP level: discovery, the flow, scopes and workspaces, and the
 * table of bad inputs, each answering the error its RFC names with nothing issued.
 */
describe.each(backends)('the OAuth authorization server on $name', (backend) => {
  let h: Harness
  let browser: Browser
  let documents: DocumentServer
  let callback: CallbackServer
  let clientId: string
  let resource: string

  const artifactCount = async (model: string) =>
    Number(
      (
        await h.app.store.db
          .selectFrom('oauth_artifacts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('model', '=', model)
          .executeTakeFirstOrThrow()
      ).n,
    )
  const issued = async () => ({
    codes: await artifactCount('AuthorizationCode'),
    access: await artifactCount('AccessToken'),
    refresh: await artifactCount('RefreshToken'),
  })

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    h = await startHarness({
      backend,
      prePickPort: true,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    clientId = documents.url('/client.json')
    documents.set('/client.json', metadataDocument(clientId, callback.redirectUri), {
      headers: { 'cache-control': 'max-age=300' },
    })
    resource = `${h.baseUrl}/mcp`
  })
  afterAll(async () => {
    await h.close()
    await documents.close()
    await callback.close()
  })

  it('answers a request without credentials with 401 naming its resource metadata and scopes', async () => {
    const answer = await fetch(`${h.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(answer.status).toBe(401)
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${h.baseUrl}/.well-known/oauth-protected-resource/mcp", scope="posts:read posts:write"`,
    )
    const rest = await fetch(`${h.baseUrl}/api/tools/list_workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(rest.status).toBe(401)
    expect(rest.headers.get('www-authenticate')).toContain(
      `resource_metadata="${h.baseUrl}/.well-known/oauth-protected-resource"`,
    )
  })

  it('publishes protected-resource and authorization-server metadata', async () => {
    const mcp = (await (await fetch(`${h.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as any
    expect(mcp).toMatchObject({
      resource: `${h.baseUrl}/mcp`,
      authorization_servers: [h.baseUrl],
      scopes_supported: ['posts:read', 'posts:write'],
    })
    const root = (await (await fetch(`${h.baseUrl}/.well-known/oauth-protected-resource`)).json()) as any
    expect(root.resource).toBe(h.baseUrl)
    const as = (await (await fetch(`${h.baseUrl}/.well-known/oauth-authorization-server`)).json()) as any
    expect(as).toMatchObject({
      issuer: h.baseUrl,
      authorization_endpoint: `${h.baseUrl}/oauth/authorize`,
      token_endpoint: `${h.baseUrl}/oauth/token`,
      registration_endpoint: `${h.baseUrl}/oauth/register`,
      revocation_endpoint: `${h.baseUrl}/oauth/revoke`,
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
    })
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['posts:read', 'posts:write']))
  })

  it('issues tokens through consent, with iss in the response, stored only as hashes', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    expect(tokens.access_token).toBeTruthy()
    expect(tokens.refresh_token).toBeTruthy()
    const rows = await h.app.store.db.selectFrom('oauth_artifacts').selectAll().execute()
    const dump = JSON.stringify(rows)
    for (const secret of [tokens.access_token, tokens.refresh_token, tokens.code])
      expect(dump).not.toContain(secret)
    expect(h.logs.join('\n')).not.toContain(tokens.access_token)
    const listed = await mcpCall(h, tokens.access_token, 'list_workspaces')
    expect(listed.status).toBe(200)
    expect(JSON.parse(listed.body.result.content[0].text)).toEqual([
      expect.objectContaining({ id: h.workspaceId }),
    ])
    // The authorization response names its issuer (RFC 9207).
    const again = await authorize(browser, h, {
      clientId,
      redirectUri: callback.redirectUri,
      ...pkcePair(),
      method: 'S256',
      resource,
      scope: 'posts:read',
    })
    expect(again.location?.searchParams.get('iss')).toBe(h.baseUrl)
  })

  it('acts in the workspace chosen on the consent page and nowhere else', async () => {
    const other = await h.app.accounts.createWorkspace({
      name: 'Side project',
      ownerEmail: h.email,
      credits: 5,
    })
    const tokens = await obtainTokens(
      browser,
      h,
      { clientId, redirectUri: callback.redirectUri },
      { workspaceId: other.workspaceId },
    )
    const info = await mcpCall(h, tokens.access_token, 'get_user_info')
    expect(JSON.parse(info.body.result.content[0].text).workspace.id).toBe(other.workspaceId)
    const elsewhere = await mcpCall(h, tokens.access_token, 'get_user_info', { workspaceId: h.workspaceId })
    expect(elsewhere.body.result.isError).toBe(true)
    expect(JSON.parse(elsewhere.body.result.content[0].text).error.code).toBe('not_found')
  })

  it('refuses a posts:read token a write tool with 403 insufficient_scope, on MCP and REST, creating nothing', async () => {
    const tokens = await obtainTokens(
      browser,
      h,
      { clientId, redirectUri: callback.redirectUri },
      { scope: 'posts:read', resource: h.baseUrl },
    )
    expect(tokens.scope).toBe('posts:read')
    const before = await h.app.store.db.selectFrom('posts').select('id').execute()
    const post = {
      content: 'not allowed',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: '2031-01-01',
      scheduleTime: '10:00',
    }
    const rest = await fetch(`${h.baseUrl}/api/tools/create_post`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
      body: JSON.stringify(post),
    })
    expect(rest.status).toBe(403)
    expect(rest.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
    expect(rest.headers.get('www-authenticate')).toContain('scope="posts:read posts:write"')
    expect(((await rest.json()) as any).error).toMatchObject({
      code: 'forbidden',
      details: { oauthError: 'insufficient_scope', scope: 'posts:read posts:write' },
    })
    // A token for the whole service also works on /mcp (its resource contains /mcp).
    const mcp = await mcpCall(h, tokens.access_token, 'create_post', post)
    expect(mcp.status).toBe(403)
    expect(mcp.wwwAuthenticate).toContain('error="insufficient_scope"')
    expect((await mcpCall(h, tokens.access_token, 'list_posts')).status).toBe(200)
    expect(await h.app.store.db.selectFrom('posts').select('id').execute()).toHaveLength(before.length)
  })

  it('refuses a token bound to /mcp on REST (another resource)', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    const rest = await fetch(`${h.baseUrl}/api/tools/list_workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
      body: '{}',
    })
    expect(rest.status).toBe(401)
  })

  it('rotates refresh tokens; a used one presented again revokes the whole grant', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    const refreshed = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token)
    expect((await mcpCall(h, refreshed.body.access_token, 'list_workspaces')).status).toBe(200)
    const replayed = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    })
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    await expect
      .poll(async () => (await mcpCall(h, refreshed.body.access_token, 'list_workspaces')).status)
      .toBe(401)
    const next = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
      client_id: clientId,
    })
    expect(next).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })

  it('revokes a refresh token (RFC 7009) and its grant with it', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    const revoked = await fetch(`${h.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId }).toString(),
    })
    expect(revoked.status).toBe(200)
    const after = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    })
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    await expect.poll(async () => (await mcpCall(h, tokens.access_token, 'list_workspaces')).status).toBe(401)
  })

  it('fetches a client ID metadata document once while its Cache-Control allows', async () => {
    const id = documents.url('/cached.json')
    documents.set('/cached.json', metadataDocument(id, callback.redirectUri), {
      headers: { 'cache-control': 'public, max-age=600' },
    })
    await obtainTokens(browser, h, { clientId: id, redirectUri: callback.redirectUri })
    await obtainTokens(browser, h, { clientId: id, redirectUri: callback.redirectUri })
    expect(documents.hits.get('/cached.json')).toBe(1)
  })

  it('re-checks an OAuth token on every SSE message and closes the stream when its grant ends', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    const open = () =>
      fetch(`${h.baseUrl}/mcp`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${tokens.access_token}` },
      })
    const stream = await open()
    expect(stream.status).toBe(200)
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader()
    const first = (await reader.read()).value as string
    const endpoint = /data: (.*)/.exec(first)?.[1] as string
    const grant = await h.app.store.db
      .selectFrom('oauth_grants')
      .select('id')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow()
    // Revoked by another process: this one hears nothing, and the next message is refused.
    await revokeGrantRow(h.app.store.db, grant.id, Date.now())
    const refused = await fetch(new URL(endpoint, h.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(refused.status).toBe(401)
    for (;;) if ((await reader.read()).done) break

    // Revoked on the dashboard: the open stream ends at once.
    const fresh = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    const live = await fetch(`${h.baseUrl}/mcp`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${fresh.access_token}` },
    })
    const liveReader = live.body!.pipeThrough(new TextDecoderStream()).getReader()
    await liveReader.read()
    const latest = await h.app.store.db
      .selectFrom('oauth_grants')
      .select('id')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow()
    expect(await h.app.oauth!.revokeGrant(latest.id, h.userId)).toBe(true)
    for (;;) if ((await liveReader.read()).done) break
  })

  it('never takes an OAuth token from the SSE query string', async () => {
    const tokens = await obtainTokens(browser, h, { clientId, redirectUri: callback.redirectUri })
    const answer = await fetch(`${h.baseUrl}/mcp?apikey=${tokens.access_token}`, {
      headers: { accept: 'text/event-stream' },
    })
    expect(answer.status).toBe(401)
  })

  it('sends access_denied to the client when the person denies, issuing nothing', async () => {
    const before = await issued()
    const grants = await h.app.store.db.selectFrom('oauth_grants').select('id').execute()
    const denied = await authorize(
      browser,
      h,
      {
        clientId,
        redirectUri: callback.redirectUri,
        ...pkcePair(),
        method: 'S256',
        resource,
        scope: 'posts:read',
      },
      { decision: 'deny' },
    )
    expect(denied.location?.origin + denied.location!.pathname).toBe(callback.redirectUri)
    expect(denied.location?.searchParams.get('error')).toBe('access_denied')
    expect(denied.location?.searchParams.get('code')).toBeNull()
    expect(await issued()).toEqual(before)
    expect(await h.app.store.db.selectFrom('oauth_grants').select('id').execute()).toHaveLength(grants.length)
  })

  it('refuses a consent form without its CSRF token', async () => {
    const start = await browser.get(
      `${h.baseUrl}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: callback.redirectUri,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        resource,
        scope: 'posts:read',
        state: 's',
      })}`,
    )
    const consent = start.location as string
    expect(consent).toContain('/oauth/consent/')
    const page = await browser.get(consent)
    expect(page.text).toContain('Test Assistant')
    expect(page.text).toContain('127.0.0.1')
    expect(page.text).not.toContain('Unverified app')
    const forged = await browser.post(consent, { decision: ['allow'], workspaceId: [h.workspaceId] })
    expect(forged.status).toBe(403)
  })

  it('marks a dynamically registered client unverified on the consent page, and lets it through', async () => {
    const registration = await register(h, callback.redirectUri)
    expect(registration.status).toBe(201)
    const start = await browser.get(
      `${h.baseUrl}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: registration.body.client_id,
        redirect_uri: callback.redirectUri.replace(/:\d+\//, ':1/'),
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        resource,
        scope: 'posts:read',
        state: 's',
      })}`,
    )
    // A native client's loopback redirect URI matches on any port (RFC 8252 §7.3).
    const page = await browser.get(start.location as string)
    expect(page.text).toContain('Registered Assistant')
    expect(page.text).toContain('Unverified app')
    const tokens = await obtainTokens(browser, h, {
      clientId: registration.body.client_id,
      redirectUri: callback.redirectUri,
    })
    expect((await mcpCall(h, tokens.access_token, 'list_workspaces')).status).toBe(200)
  })

  describe('bad input: the RFCs’ error, nothing issued', () => {
    const good = () => ({
      clientId,
      redirectUri: callback.redirectUri,
      ...pkcePair(),
      method: 'S256',
      resource,
      scope: 'posts:read',
    })

    /** Errors Herald shows itself, because the redirect URI cannot be trusted (RFC 6749 §4.1.2.1). */
    it.each([
      ['an unknown client', () => ({ ...good(), clientId: 'no-such-client' }), 'invalid_client'],
      [
        'a redirect URI that was not registered',
        () => ({ ...good(), redirectUri: 'https://evil.example/callback' }),
        'invalid_redirect_uri',
      ],
    ])('%s: an error page, no redirect', async (_label, params, error) => {
      const before = await issued()
      const answer = await authorize(browser, h, params())
      expect(answer.location).toBeUndefined()
      expect(answer.status).toBe(400)
      expect(answer.text).toContain(error)
      expect(await issued()).toEqual(before)
    })

    /** Errors sent back to the client's redirect URI. */
    it.each([
      [
        'no PKCE challenge',
        () => ({ ...good(), challenge: undefined, method: undefined }),
        'invalid_request',
      ],
      ['a plain PKCE challenge', () => ({ ...good(), method: 'plain' }), 'invalid_request'],
      ['no resource', () => ({ ...good(), resource: undefined }), 'invalid_target'],
      [
        'another resource',
        () => ({ ...good(), resource: 'https://elsewhere.example/mcp' }),
        'invalid_target',
      ],
    ])('%s: %s… redirected with the error', async (_label, params, error) => {
      const before = await issued()
      const answer = await authorize(browser, h, params())
      expect(answer.location?.searchParams.get('error')).toBe(error)
      expect(answer.location?.searchParams.get('code')).toBeNull()
      expect(await issued()).toEqual(before)
    })

    it('a reused code: invalid_grant, and the tokens it gave are revoked', async () => {
      const { verifier, challenge } = pkcePair()
      const done = await authorize(browser, h, { ...good(), challenge })
      const code = done.location?.searchParams.get('code') as string
      const form = {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: callback.redirectUri,
        client_id: clientId,
        resource,
      }
      const first = await tokenRequest(h, form)
      expect(first.status).toBe(200)
      const before = await issued()
      const second = await tokenRequest(h, form)
      expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
      expect((await issued()).access).toBeLessThanOrEqual(before.access)
      await expect
        .poll(async () => (await mcpCall(h, first.body.access_token, 'list_workspaces')).status)
        .toBe(401)
    })

    it.each([
      ['a wrong code verifier', { code_verifier: 'x'.repeat(43) }],
      ['a different redirect URI', { redirect_uri: 'http://127.0.0.1:1/other' }],
      ['another resource', { resource: 'https://elsewhere.example/mcp' }],
      ['an expired code', { expire: '1' }],
    ])('a code with %s: refused, nothing issued', async (_label, change) => {
      const { verifier, challenge } = pkcePair()
      const done = await authorize(browser, h, { ...good(), challenge })
      const code = done.location?.searchParams.get('code') as string
      if ('expire' in change)
        await h.app.store.db
          .updateTable('oauth_artifacts')
          .set({ expires_at: Date.now() - 1 })
          .where('model', '=', 'AuthorizationCode')
          .execute()
      const { expire: _expire, ...fields } = change as Record<string, string>
      const before = await issued()
      const answer = await tokenRequest(h, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: callback.redirectUri,
        client_id: clientId,
        resource,
        ...fields,
      })
      expect(answer.status).toBe(400)
      expect(['invalid_grant', 'invalid_target']).toContain(answer.body.error)
      expect((await issued()).access).toBe(before.access)
      expect((await issued()).refresh).toBe(before.refresh)
    })

    it('an unknown refresh token: invalid_grant', async () => {
      const answer = await tokenRequest(h, {
        grant_type: 'refresh_token',
        refresh_token: 'not-a-token',
        client_id: clientId,
      })
      expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    })

    it('a registration asking for a client secret: invalid_client_metadata, nothing stored', async () => {
      const clients = await artifactCount('Client')
      const answer = await register(h, callback.redirectUri, {
        token_endpoint_auth_method: 'client_secret_basic',
      })
      expect(answer.status).toBe(400)
      expect(answer.body.error).toBe('invalid_client_metadata')
      expect(await artifactCount('Client')).toBe(clients)
    })

    const documentCases: Array<
      [
        string,
        (id: string) => {
          body: unknown
          headers?: Record<string, string>
          delayMs?: number
          status?: number
        },
      ]
    > = [
      [
        'carries a client secret',
        (id) => ({ body: metadataDocument(id, callback.redirectUri, { client_secret: 'shh' }) }),
      ],
      [
        'asks for client_secret_basic',
        (id) => ({
          body: metadataDocument(id, callback.redirectUri, {
            token_endpoint_auth_method: 'client_secret_basic',
          }),
        }),
      ],
      [
        'redirects to another document',
        () => ({ body: '', status: 302, headers: { location: documents.url('/client.json') } }),
      ],
      ['is missing (404)', () => ({ body: '', status: 404 })],
      ['is a JSON array', () => ({ body: '[]' })],
      [
        'names another client_id',
        () => ({ body: metadataDocument('https://public.test/other.json', callback.redirectUri) }),
      ],
      ['is not JSON', () => ({ body: '<html>hello</html>' })],
      [
        'is huge',
        (id) => ({ body: { ...metadataDocument(id, callback.redirectUri), padding: 'x'.repeat(20_000) } }),
      ],
      ['is slow', (id) => ({ body: metadataDocument(id, callback.redirectUri), delayMs: 7_000 })],
      [
        'asks for a client secret method',
        (id) => ({
          body: metadataDocument(id, callback.redirectUri, {
            token_endpoint_auth_method: 'client_secret_post',
          }),
        }),
      ],
    ]
    it.each(documentCases)(
      'a client ID metadata document that %s: invalid_client, nothing issued',
      async (label, make) => {
        const path = `/bad-${label.replace(/\W+/g, '-')}.json`
        const id = documents.url(path)
        const served = make(id)
        documents.set(path, served.body, {
          ...(served.headers ? { headers: served.headers } : {}),
          ...(served.delayMs ? { delayMs: served.delayMs } : {}),
          ...(served.status ? { status: served.status } : {}),
        })
        const before = await issued()
        const answer = await authorize(browser, h, { ...good(), clientId: id })
        expect(answer.location).toBeUndefined()
        expect(answer.status).toBe(400)
        expect(answer.text).toMatch(/invalid_client/)
        expect(await issued()).toEqual(before)
      },
      20_000,
    )

    it('a redirect URI missing from the client ID metadata document: no redirect, nothing issued', async () => {
      const before = await issued()
      const answer = await authorize(browser, h, { ...good(), redirectUri: 'http://127.0.0.1:1/elsewhere' })
      expect(answer.location).toBeUndefined()
      expect(answer.status).toBe(400)
      expect(await issued()).toEqual(before)
    })
  })
})

describe('dynamic registrations nobody authorizes', () => {
  it('expire after a day: the client is unknown afterwards', async () => {
    const clock = new FakeClock(Date.now())
    const callback = await startCallbackServer()
    const h = await startHarness({ prePickPort: true, clock })
    try {
      const browser = createBrowser(h.baseUrl)
      await browser.login(h.email, h.password)
      const registration = await register(h, callback.redirectUri)
      expect(registration.status).toBe(201)
      clock.advance(25 * 3_600_000)
      await browser.login(h.email, h.password)
      const answer = await authorize(browser, h, {
        clientId: registration.body.client_id,
        redirectUri: callback.redirectUri,
        ...pkcePair(),
        method: 'S256',
        resource: `${h.baseUrl}/mcp`,
        scope: 'posts:read',
      })
      expect(answer.location).toBeUndefined()
      expect(answer.text).toContain('invalid_client')
    } finally {
      await h.close()
      await callback.close()
    }
  })

  it('are limited to 10 a minute per address', async () => {
    const h = await startHarness({ prePickPort: true })
    try {
      const answers = []
      for (let i = 0; i < 12; i++) answers.push((await register(h, 'http://127.0.0.1:1/cb')).status)
      expect(answers.filter((status) => status === 201)).toHaveLength(10)
      expect(answers.at(-1)).toBe(429)
      // The endpoint with a trailing slash is the same endpoint to the library, and the same limit.
      const slashed = await fetch(`${h.baseUrl}/oauth/register/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://127.0.0.1:1/cb'],
          token_endpoint_auth_method: 'none',
        }),
      })
      expect(slashed.status).toBe(429)
    } finally {
      await h.close()
    }
  })
})

describe('client ID metadata document fetches', () => {
  it('are limited to 30 a minute per requesting address, cached ones not counted', async () => {
    const documents = await startDocumentServer()
    const callback = await startCallbackServer()
    const h = await startHarness({
      prePickPort: true,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
    })
    try {
      const browser = createBrowser(h.baseUrl)
      await browser.login(h.email, h.password)
      const start = async (path: string) => {
        const id = documents.url(path)
        documents.set(path, metadataDocument(id, callback.redirectUri))
        return browser.get(
          authorizeUrl(h, {
            clientId: id,
            redirectUri: callback.redirectUri,
            ...pkcePair(),
            method: 'S256',
            resource: `${h.baseUrl}/mcp`,
            scope: 'posts:read',
          }),
        )
      }
      for (let i = 0; i < 30; i++) expect((await start(`/client-${i}.json`)).status).toBe(303)
      // A cached document is not fetched again, so it is not refused either.
      expect((await start('/client-0.json')).status).toBe(303)
      const refused = await start('/one-too-many.json')
      expect(refused.status).toBe(400)
      expect(refused.text).toContain('invalid_client')
      expect(documents.hits.get('/one-too-many.json') ?? 0).toBe(0)
    } finally {
      await h.close()
      await documents.close()
      await callback.close()
    }
  }, 60_000)
})

describe('client ID metadata documents on private addresses', () => {
  it('are refused unless HERALD_ALLOW_PRIVATE_MEDIA allows them (tests only): invalid_client', async () => {
    const documents = await startDocumentServer()
    const callback = await startCallbackServer()
    const h = await startHarness({ prePickPort: true, oauthMetadataFetcher: documentFetcher })
    try {
      const browser = createBrowser(h.baseUrl)
      await browser.login(h.email, h.password)
      const id = documents.url('/client.json')
      documents.set('/client.json', metadataDocument(id, callback.redirectUri))
      const answer = await authorize(browser, h, {
        clientId: id,
        redirectUri: callback.redirectUri,
        ...pkcePair(),
        method: 'S256',
        resource: `${h.baseUrl}/mcp`,
        scope: 'posts:read',
      })
      expect(answer.location).toBeUndefined()
      expect(answer.text).toMatch(/invalid_client/)
      expect(documents.hits.get('/client.json') ?? 0).toBe(0)
      expect(h.logs.join('\n')).toMatch(/loopback/)
    } finally {
      await h.close()
      await documents.close()
      await callback.close()
    }
  })
})
