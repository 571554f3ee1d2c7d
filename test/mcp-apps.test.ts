import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { networks } from '../src/core/networks.js'
import { tools } from '../src/interfaces/tools/registry.js'
import { createBrowser } from './helpers/browser.js'
import { connectProfile } from './helpers/connections.js'
import { type Harness, startHarness } from './helpers/harness.js'
import {
  type CallbackServer,
  type DocumentServer,
  documentFetcher,
  metadataDocument,
  obtainTokens,
  startCallbackServer,
  startDocumentServer,
} from './helpers/oauth.js'

const MIME = 'text/html;profile=mcp-app'
const LINKS: Record<string, string> = {
  preflight_post: 'ui://herald/compose.html',
  create_post: 'ui://herald/compose.html',
  list_posts: 'ui://herald/queue.html',
  get_post: 'ui://herald/status.html',
  publish_post_now: 'ui://herald/status.html',
  reset_stuck_post: 'ui://herald/status.html',
  get_post_analytics: 'ui://herald/analytics.html',
  get_profile_analytics: 'ui://herald/analytics.html',
}
const VIEWS = [...new Set(Object.values(LINKS))]

/** The permissions a view's page was written with, from its JSON data island. */
const bootOf = (html: string) =>
  JSON.parse(/<script type="application\/json" id="boot">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}')

/**
 * MCP Apps over every transport and revision Herald serves: the tools link their views in `_meta` (both the
 * extension's key and the one older hosts read), the views are resources of the extension's MIME type with
 * their CSP in `_meta.ui.csp`, self-contained, and drawn for the caller's scopes; the tools' answers do not
 * change.
 */
describe('MCP Apps views', () => {
  let h: Harness
  let documents: DocumentServer
  let callback: CallbackServer
  let readOnly: string
  let origin: string

  const classic = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'apps-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), { requestInit: { headers } }),
    )
    return client
  }

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    h = await startHarness({
      prePickPort: true,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
    })
    origin = new URL(h.baseUrl).origin
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'bluesky', 'did:plc:acme', 'acme.bsky.social')
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const clientId = documents.url('/client.json')
    documents.set('/client.json', metadataDocument(clientId, callback.redirectUri))
    readOnly = (
      await obtainTokens(
        browser,
        h,
        { clientId, redirectUri: callback.redirectUri },
        { scope: 'posts:read', resource: h.baseUrl },
      )
    ).access_token
  })
  afterAll(async () => {
    await h?.close()
    await documents?.close()
    await callback?.close()
  })

  it('links each view from its tools under _meta.ui.resourceUri and the older ui/resourceUri, and no other tool', async () => {
    const client = await classic({ 'x-api-key': h.apiKey })
    const listed = (await client.listTools()).tools
    expect(listed).toHaveLength(tools.length)
    for (const tool of listed) {
      const uri = LINKS[tool.name]
      if (uri) expect(tool._meta, tool.name).toEqual({ ui: { resourceUri: uri }, 'ui/resourceUri': uri })
      else expect(tool._meta, tool.name).toBeUndefined()
    }
    await client.close()
  })

  it('lists the four views as resources of the MCP Apps type, each declaring only Herald as a source', async () => {
    const client = await classic({ 'x-api-key': h.apiKey })
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri).sort()).toEqual([...VIEWS].sort())
    for (const resource of resources) {
      expect(resource.mimeType).toBe(MIME)
      expect(resource._meta).toEqual({
        ui: { csp: { resourceDomains: [origin], connectDomains: [] }, prefersBorder: true },
      })
    }
    await client.close()
  })

  it.each(VIEWS)(
    'reads %s as one self-contained page with its CSP, loading nothing from anywhere',
    async (uri) => {
      const client = await classic({ 'x-api-key': h.apiKey })
      const { contents } = await client.readResource({ uri })
      expect(contents).toHaveLength(1)
      const page = contents[0] as { uri: string; mimeType: string; text: string; _meta: any }
      expect(page.uri).toBe(uri)
      expect(page.mimeType).toBe(MIME)
      expect(page._meta.ui.csp).toEqual({ resourceDomains: [origin], connectDomains: [] })
      expect(page.text.startsWith('<!doctype html>')).toBe(true)
      // No file is fetched: no script or stylesheet by address, no link element, no remote import, and no
      // address at all but the policy's own (Herald's origin) and the XML namespaces the renderer names.
      const withoutPolicy = page.text.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '')
      expect(
        /<script[^>]+src=|<link\b|@import|https?:\/\/(?!www\.w3\.org).{0,30}/i.exec(withoutPolicy)?.[0],
      ).toBe(undefined)
      const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(page.text)?.[1] ?? ''
      expect(policy).toContain("default-src 'none'")
      expect(policy).toContain("connect-src 'none'")
      expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/)
      expect(policy).toContain(`img-src ${origin} data:`)
      const boot = bootOf(page.text)
      expect({ view: boot.view, can: boot.can }).toEqual({
        view: uri.replace(/^ui:\/\/herald\/|\.html$/g, ''),
        can: { check: true, create: true, retry: true, open: true, refresh: true },
      })
      // The networks' marks travel as path data in the page itself: no icon is fetched.
      expect(Object.keys(boot.marks).sort()).toEqual([...networks].sort())
      expect(policy).toContain('font-src https: data:')
      await client.close()
    },
  )

  it('draws a posts:read token’s views without Schedule, Publish now, Retry or Refresh', async () => {
    const client = await classic({ authorization: `Bearer ${readOnly}` })
    const { contents } = await client.readResource({ uri: 'ui://herald/compose.html' })
    const page = contents[0] as { text: string }
    expect(bootOf(page.text).can).toEqual({
      check: true,
      create: false,
      retry: false,
      open: true,
      refresh: false,
    })
    // The token itself is nowhere in the page.
    expect(page.text).not.toContain(readOnly)
    await client.close()
  })

  it('serves the same views and links over the legacy SSE transport and the 2026-07-28 revision', async () => {
    const reference = await classic({ 'x-api-key': h.apiKey })
    const expected = await reference.readResource({ uri: 'ui://herald/status.html' })
    const expectedTools = (await reference.listTools()).tools.map((t) => [t.name, t._meta])
    const sse = new Client({ name: 'apps-sse', version: '1.0.0' })
    await sse.connect(
      new SSEClientTransport(new URL(`${h.baseUrl}/mcp?apikey=${encodeURIComponent(h.apiKey)}`)),
    )
    const modern = new ModernClient(
      { name: 'apps-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await modern.connect(
      new ModernTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': h.apiKey } },
      }),
    )
    for (const client of [sse, modern] as Array<Pick<Client, 'readResource' | 'listTools'>>) {
      const read = await client.readResource({ uri: 'ui://herald/status.html' })
      expect(read.contents).toEqual(expected.contents)
      expect((await client.listTools()).tools.map((t) => [t.name, t._meta])).toEqual(expectedTools)
    }
    await Promise.all([reference.close(), sse.close(), modern.close()])
  })

  it('refuses to read a resource that is not one of the views', async () => {
    const client = await classic({ 'x-api-key': h.apiKey })
    await expect(client.readResource({ uri: 'ui://herald/secrets.html' })).rejects.toThrow(/No resource/)
    await client.close()
  })

  it('answers preflight_post with REST’s JSON, the dashboard’s previews of both networks, escaped, beside it in _meta', async () => {
    const client = await classic({ 'x-api-key': h.apiKey })
    const args = { content: 'Launch <b>day</b> "soon"', platforms: ['twitter', 'bluesky'] }
    const result = (await client.callTool({ name: 'preflight_post', arguments: args })) as any
    const rest = await h.call('preflight_post', args)
    expect(JSON.parse(result.content[0].text)).toEqual(rest.body)
    expect(result.structuredContent).toEqual(rest.body)
    const preview: string = result._meta['herald/previewHtml']
    expect(preview).toContain('Launch &lt;b>day&lt;/b> &quot;soon&quot;')
    expect(preview).not.toContain('<b>day')
    expect(preview).toContain('@acme.bsky.social')
    expect(preview).toContain('@acme')
    await client.close()
  })

  it('adds nothing to the answers of tools without a preview', async () => {
    const client = await classic({ 'x-api-key': h.apiKey })
    const result = (await client.callTool({ name: 'list_posts', arguments: {} })) as any
    expect(result._meta).toBeUndefined()
    await client.close()
  })
})
