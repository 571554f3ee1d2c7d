import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import {
  type CallbackServer,
  type DocumentServer,
  documentFetcher,
  metadataDocument,
  obtainTokens,
  startCallbackServer,
  startDocumentServer,
} from '../helpers/oauth.js'

/** The team-workflow REST paths take an OAuth token as the tools do: its workspace only, within its scopes. */
describe('approvals, queues and imports with an OAuth token', () => {
  let h: Harness
  let browser: Browser
  let documents: DocumentServer
  let callback: CallbackServer
  let clientId: string

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    h = await startHarness({
      prePickPort: true,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
    })
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    clientId = documents.url('/client.json')
    documents.set('/client.json', metadataDocument(clientId, callback.redirectUri))
  })
  afterAll(async () => {
    await h.close()
    await documents.close()
    await callback.close()
  })

  const call = (token: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
    fetch(`${h.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  it('lets a posts:read token read and check, and refuses it every change with 403 insufficient_scope', async () => {
    const { access_token: token } = await obtainTokens(
      browser,
      h,
      { clientId, redirectUri: callback.redirectUri },
      { scope: 'posts:read', resource: h.baseUrl },
    )
    expect((await call(token, 'GET', '/api/approvals')).status).toBe(200)
    expect((await call(token, 'GET', '/api/queues')).status).toBe(200)
    const check = await call(token, 'POST', '/api/imports', {
      csv: 'content,profiles,date,time\nHello,linkedin,2031-01-01,10:00\n',
      dryRun: true,
    })
    expect(check.status).toBe(200)
    for (const [path, body] of [
      ['/api/approvals/settings', { requireApproval: true }],
      ['/api/queues', { platform: 'linkedin', profile: 'acme-li', slots: ['daily 09:00'] }],
      ['/api/imports', { csv: 'content,profiles,date,time\nHello,linkedin,2031-01-01,10:00\n' }],
    ] as const) {
      const refused = await call(token, 'POST', path, body)
      expect(refused.status, path).toBe(403)
      expect(((await refused.json()) as any).error.details).toMatchObject({
        oauthError: 'insufficient_scope',
      })
    }
    expect((await h.call('list_posts', {})).body.counts.all).toBe(0)
    expect((await call(token, 'GET', `/api/approvals?workspaceId=ffffffffffffffffffffffff`)).status).toBe(404)
  })
})
