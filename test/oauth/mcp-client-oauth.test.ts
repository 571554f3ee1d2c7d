import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import { type BrowserContext, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import {
  type CallbackServer,
  type DocumentServer,
  documentFetcher,
  mcpCall,
  metadataDocument,
  startCallbackServer,
  startDocumentServer,
} from '../helpers/oauth.js'

/**
 * OAuth for MCP clients end to end (docs/adr/0025-oauth-for-mcp-clients.md): the official MCP SDK client's
 * own OAuth support against a running Herald. Discovery from the 401, the client identified by a metadata
 * document served by the test (or registered dynamically), sign-in and consent in Chromium, token exchange,
 * tools/list and tools/call, a refresh, and revocation from the AI Integration page, after which the next
 * call is 401.
 */

/** The SDK's provider interface, kept in memory as a desktop client keeps it on disk. */
class MemoryProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined
  private info: any
  private saved: any
  private verifier = ''
  private discovery: any
  constructor(
    private readonly redirect: string,
    readonly clientMetadataUrl: string | undefined,
  ) {}
  get redirectUrl() {
    return this.redirect
  }
  get clientMetadata() {
    return {
      client_name: 'Registered Assistant',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(info: any) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: any) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  discoveryState() {
    return this.discovery
  }
  saveDiscoveryState(state: any) {
    this.discovery = state
  }
  invalidateCredentials(scope: string) {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined
    if (scope === 'all' || scope === 'client') this.info = undefined
  }
}

const hasChromium = existsSync('/usr/bin/chromium')

describe.runIf(hasChromium).each([
  { how: 'a client ID metadata document', metadataDocument: true },
  { how: 'dynamic client registration', metadataDocument: false },
])('an MCP client signing in with OAuth through $how', ({ metadataDocument: useDocument }) => {
  let h: Harness
  let documents: DocumentServer
  let callback: CallbackServer
  let context: BrowserContext
  let profileDir: string
  const appName = useDocument ? 'Test Assistant' : 'Registered Assistant'
  const shotName = useDocument ? 'consent' : 'consent-unverified'

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    h = await startHarness({
      prePickPort: true,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await h.app.accounts.createWorkspace({ name: 'Side project', ownerEmail: h.email })
    profileDir = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
    context = await chromium.launchPersistentContext(profileDir, {
      ...CHROMIUM,
      viewport: { width: 1280, height: 900 },
    })
  })
  afterAll(async () => {
    await context?.close()
    rmSync(profileDir, { recursive: true, force: true })
    await h.close()
    await documents.close()
    await callback.close()
  })

  const connect = async (provider: MemoryProvider) => {
    const client = new Client({ name: 'oauth-e2e', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
      authProvider: provider,
    })
    await client.connect(transport)
    return { client, transport }
  }

  it('discovers, signs in, consents, calls tools, refreshes, and is cut off by a revocation', async () => {
    const clientId = documents.url('/assistant.json')
    documents.set('/assistant.json', metadataDocument(clientId, callback.redirectUri), {
      headers: { 'cache-control': 'max-age=600' },
    })
    const provider = new MemoryProvider(callback.redirectUri, useDocument ? clientId : undefined)

    // 1. The first connection is refused with 401; the SDK discovers Herald's authorization server from it
    // and hands back the authorization URL (with PKCE S256 and the resource).
    const first = new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), { authProvider: provider })
    await expect(new Client({ name: 'oauth-e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    )
    const authorizationUrl = provider.authorizationUrl as URL
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${h.baseUrl}/oauth/authorize`)
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${h.baseUrl}/mcp`)
    const registeredId = authorizationUrl.searchParams.get('client_id') as string
    if (useDocument) expect(registeredId).toBe(clientId)
    else expect(registeredId).not.toContain('https://')
    expect(documents.hits.get('/assistant.json') ?? 0).toBe(0)

    // 2. In the browser: Herald's sign-in, then its consent page, where the workspace is chosen.
    const tab = await context.newPage()
    const errors: string[] = []
    tab.on('pageerror', (error) => errors.push(error.message))
    await tab.goto(authorizationUrl.toString())
    await tab.waitForURL(/\/login\?next=/)
    await tab.getByLabel('Email').fill(h.email)
    await tab.getByLabel('Password').fill(h.password)
    await tab.getByRole('button', { name: /sign in/i }).click()
    await tab.waitForURL(/\/oauth\/consent\//)
    await expect.poll(() => tab.getByRole('heading', { level: 1 }).textContent()).toContain(appName)
    const page = await tab.content()
    expect(page).toContain('127.0.0.1')
    expect(page.includes('Unverified app')).toBe(!useDocument)
    expect(page).toContain('posts:write')
    await tab.getByLabel('Workspace it acts in').selectOption({ label: 'Acme (owner)' })
    expect(await lookAt(tab, shotName)).toEqual([])
    await tab.setViewportSize({ width: 1280, height: 900 })
    const answer = callback.next()
    await tab.getByRole('button', { name: 'Allow' }).click()
    const params = await answer
    expect(params.get('code')).toBeTruthy()
    expect(params.get('iss')).toBe(h.baseUrl)
    if (useDocument) expect(documents.hits.get('/assistant.json')).toBeGreaterThanOrEqual(1)

    // 3. The SDK exchanges the code (checking iss), then lists and calls tools.
    await first.finishAuth(params)
    const { client } = await connect(provider)
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(17)
    const workspaces = await client.callTool({ name: 'list_workspaces', arguments: {} })
    expect(JSON.parse((workspaces.content as any)[0].text)).toEqual([
      expect.objectContaining({ id: h.workspaceId, name: 'Acme' }),
    ])
    const postsBefore = await h.app.store.db.selectFrom('posts').select('id').execute()
    const created = await client.callTool({
      name: 'create_post',
      arguments: {
        content: `Sent by an OAuth client (${useDocument ? 'metadata document' : 'registered'})`,
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        scheduleDate: '2031-05-01',
        scheduleTime: '09:30',
      },
    })
    expect(created.isError).toBeFalsy()
    const posts = await h.app.store.db
      .selectFrom('posts')
      .select(['id', 'author_id', 'workspace_id'])
      .execute()
    expect(posts).toHaveLength(postsBefore.length + 1)
    expect(posts.at(-1)).toMatchObject({ author_id: h.userId, workspace_id: h.workspaceId })

    // 4. The access token expires: the next call is refused, the SDK refreshes (rotating the refresh token).
    const before = provider.tokens()
    await h.app.store.db
      .updateTable('oauth_artifacts')
      .set({ expires_at: Date.now() - 1 })
      .where('model', '=', 'AccessToken')
      .execute()
    expect((await mcpCall(h, before.access_token, 'list_workspaces')).status).toBe(401)
    const again = await client.callTool({ name: 'get_user_info', arguments: {} })
    expect(again.isError).toBeFalsy()
    const after = provider.tokens()
    expect(after.access_token).not.toBe(before.access_token)
    expect(after.refresh_token).not.toBe(before.refresh_token)

    // 5. The person revokes the app on the AI Integration page: its tokens stop working at once.
    await tab.goto(`${h.baseUrl}/integration`)
    const row = tab.getByRole('row').filter({ hasText: appName })
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.textContent()).toContain('Acme')
    if (useDocument) {
      expect(await lookAt(tab, 'connected-apps')).toEqual([])
      await tab.setViewportSize({ width: 1280, height: 900 })
    }
    await tab.getByRole('button', { name: `Revoke ${appName}` }).click()
    await expect.poll(() => tab.getByText(`Revoked ${appName}`).count()).toBe(1)
    expect((await mcpCall(h, after.access_token, 'list_workspaces')).status).toBe(401)
    // The SDK's next call is refused too: its refresh token died with the grant, so it must ask again.
    provider.authorizationUrl = undefined
    await expect(client.callTool({ name: 'list_workspaces', arguments: {} })).rejects.toThrow()
    expect(provider.authorizationUrl).toBeDefined()
    expect(errors).toEqual([])
    await client.close()
  }, 90_000)
})
