import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type NetworkAdapter, PublishFailure } from '../../src/adapters/adapter.js'
import { currentBalance, ledgerFor } from '../../src/platform/db/statements/credits.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import {
  type CallbackServer,
  type DocumentServer,
  documentFetcher,
  mcpCall,
  metadataDocument,
  obtainTokens,
  startCallbackServer,
  startDocumentServer,
} from '../helpers/oauth.js'

/**
 * A token granted only `posts:read` never spends credits: refreshing analytics (1 credit a call) needs
 * `posts:write`, on REST and MCP alike, while the stored readings stay free to it. The oracle is the
 * network: how many metric reads the adapter answered.
 */
describe('analytics refresh with an OAuth token', () => {
  let h: Harness
  let browser: Browser
  let documents: DocumentServer
  let callback: CallbackServer
  let clientId: string
  let readOnly: string
  let postId: string
  const reads = { post: 0, profile: 0 }

  const twitter: NetworkAdapter = {
    network: 'twitter',
    capabilities: { concurrency: 2 },
    refresh: async (credentials) => credentials,
    resolveProfile: async () => {
      throw new PublishFailure('invalid_content', 'not used')
    },
    publish: async () => {
      throw new PublishFailure('invalid_content', 'not used')
    },
    postMetrics: async () => {
      reads.post++
      return {
        summary: { views: 10, likes: 1, comments: 0, shares: 0, saves: null, clicks: 0, engagements: 1 },
        metrics: {},
        source: 'twitter-test',
      }
    },
    profileMetrics: async () => {
      reads.profile++
      return {
        summary: { followers: 5, following: 1, posts: 2, views: null },
        metrics: {},
        window: 'lifetime',
        source: 'twitter-test',
      }
    },
  }

  const rest = (token: string, tool: string, body: Record<string, unknown>) =>
    fetch(`${h.baseUrl}/api/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    })
  const balance = () => currentBalance(h.app.store.db, h.workspaceId)
  const refreshes = { get_post_analytics: {}, get_profile_analytics: {} } as Record<
    string,
    Record<string, unknown>
  >

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    h = await startHarness({
      prePickPort: true,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
      adapters: { twitter },
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    clientId = documents.url('/client.json')
    documents.set('/client.json', metadataDocument(clientId, callback.redirectUri))
    readOnly = (
      await obtainTokens(
        browser,
        h,
        { clientId, redirectUri: callback.redirectUri },
        { scope: 'posts:read', resource: h.baseUrl },
      )
    ).access_token
    const created = await h.call('create_post', {
      content: 'Published for analytics',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: '2031-12-01',
      scheduleTime: '09:00',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    postId = created.body.postIds[0]
    // Marked published as the worker would (a remote id to read the metrics of).
    await h.app.store.db
      .updateTable('targets')
      .set({ status: 'published', remote_id: 'remote-1', published_at: Date.now(), run_at: null })
      .where('post_id', '=', postId)
      .execute()
    await h.app.store.db.updateTable('posts').set({ status: 'published' }).where('id', '=', postId).execute()
    refreshes.get_post_analytics = { id: postId, refresh: true }
    refreshes.get_profile_analytics = { platform: 'twitter', profileId: 'tw-1', refresh: true }
  })
  afterAll(async () => {
    await h.close()
    await documents.close()
    await callback.close()
  })
  beforeEach(() => {
    reads.post = 0
    reads.profile = 0
  })

  it.each(['get_post_analytics', 'get_profile_analytics'])(
    'refuses %s with refresh to a posts:read token with 403 insufficient_scope naming posts:write, on REST and MCP, reading and charging nothing',
    async (tool) => {
      const before = await balance()
      const ledgerBefore = (await ledgerFor(h.app.store.db, h.workspaceId)).length
      const refused = await rest(readOnly, tool, refreshes[tool] as Record<string, unknown>)
      expect(refused.status).toBe(403)
      expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
      expect(refused.headers.get('www-authenticate')).toContain('scope="posts:read posts:write"')
      const body = (await refused.json()) as any
      expect(body.error).toMatchObject({
        code: 'forbidden',
        details: { oauthError: 'insufficient_scope', scope: 'posts:read posts:write' },
      })
      expect(body.error.message).toBe(
        `${tool} with refresh: true spends credits and needs the posts:write scope, which this token was not granted`,
      )
      const mcp = await mcpCall(h, readOnly, tool, refreshes[tool])
      expect(mcp.status).toBe(403)
      expect(mcp.wwwAuthenticate).toContain('error="insufficient_scope"')
      expect(mcp.wwwAuthenticate).toContain('scope="posts:read posts:write"')
      expect(reads).toEqual({ post: 0, profile: 0 })
      expect(await balance()).toBe(before)
      expect(await ledgerFor(h.app.store.db, h.workspaceId)).toHaveLength(ledgerBefore)
    },
  )

  it('answers a posts:read token the stored readings for free', async () => {
    const before = await balance()
    const stored = await rest(readOnly, 'get_post_analytics', { id: postId, refresh: false })
    expect(stored.status).toBe(200)
    const profile = await mcpCall(h, readOnly, 'get_profile_analytics', {
      platform: 'twitter',
      profileId: 'tw-1',
    })
    expect(profile.status).toBe(200)
    expect(profile.body.result.isError).toBeFalsy()
    expect(reads).toEqual({ post: 0, profile: 0 })
    expect(await balance()).toBe(before)
  })

  it('refreshes for a token granted posts:write and for an API key, 1 credit a call', async () => {
    const { access_token: writer } = await obtainTokens(
      browser,
      h,
      { clientId, redirectUri: callback.redirectUri },
      { scope: 'posts:read posts:write', resource: h.baseUrl },
    )
    const before = await balance()
    const byToken = await rest(writer, 'get_post_analytics', { id: postId, refresh: true })
    expect(byToken.status).toBe(200)
    expect(((await byToken.json()) as any).credits.charged).toBe(1)
    const byKey = await h.call('get_profile_analytics', refreshes.get_profile_analytics)
    expect(byKey.status, JSON.stringify(byKey.body)).toBe(200)
    expect(reads).toEqual({ post: 1, profile: 1 })
    expect(await balance()).toBe(before - 2)
  })
})
