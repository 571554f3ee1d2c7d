import { request as httpRequest } from 'node:http'
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import packageJson from '../package.json' with { type: 'json' }
import { type Harness, startHarness } from './helpers/harness.js'

const textOf = (result: any) => JSON.parse(result.content[0].text)

/** A raw JSON-RPC POST to /mcp (headers exactly as given: Host and Origin included). */
function rawPost(
  h: Harness,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const url = new URL(`${h.baseUrl}/mcp`)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-api-key': h.apiKey,
          ...headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => {
          let parsed: unknown = text
          try {
            parsed = JSON.parse(text)
          } catch {}
          resolve({ status: res.statusCode ?? 0, body: parsed })
        })
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'revision-test', version: '1' } },
})

describe('MCP protocol revisions and transport hygiene', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ env: { HERALD_MCP_ALLOWED_ORIGINS: 'https://inspector.example' } })
  })
  afterAll(() => h.close())

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    'answers an initialize on %s with that revision and its own name and version',
    async (revision) => {
      const answer = await rawPost(h, initialize(revision))
      expect(answer.status).toBe(200)
      expect(answer.body.result.protocolVersion).toBe(revision)
      expect(answer.body.result.serverInfo).toEqual({ name: 'herald', version: packageJson.version })
      expect(answer.body.result.capabilities.tools).toBeDefined()
    },
  )

  it('serves a client on the stateless 2026-07-28 revision the same tools, schemas, annotations and results', async () => {
    const modern = new ModernClient(
      { name: 'modern-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await modern.connect(
      new ModernTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': h.apiKey } },
      }),
    )
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect(modern.getServerVersion()).toMatchObject({ name: 'herald', version: packageJson.version })

    const classic = new Client({ name: 'classic-test', version: '1.0.0' })
    await classic.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': h.apiKey } },
      }),
    )
    const strip = (tools: any[]) =>
      tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema,
        outputSchema,
        annotations,
      }))
    const modernTools = (await modern.listTools()).tools
    expect(modernTools).toHaveLength(17)
    expect(strip(modernTools)).toEqual(strip((await classic.listTools()).tools))

    for (const name of ['list_workspaces', 'get_user_info']) {
      const viaModern = await modern.callTool({ name, arguments: {} })
      expect(viaModern.isError).toBeFalsy()
      expect(textOf(viaModern)).toEqual((await h.call(name)).body)
      expect(viaModern.structuredContent).toEqual(
        (await classic.callTool({ name, arguments: {} })).structuredContent,
      )
    }
    const failed = await modern.callTool({ name: 'get_user_info', arguments: { nope: 1 } })
    expect(failed.isError).toBe(true)
    expect(textOf(failed)).toEqual((await h.call('get_user_info', { nope: 1 })).body)
    await modern.close()
    await classic.close()
  })

  it('refuses a browser request from another origin with 403 (DNS rebinding)', async () => {
    const answer = await rawPost(h, initialize('2025-11-25'), { origin: 'http://evil.example' })
    expect(answer.status).toBe(403)
    expect(answer.body.error.code).toBe('forbidden')
  })

  it('refuses a Host that is not a loopback name or the public host while bound to loopback', async () => {
    const answer = await rawPost(h, initialize('2025-11-25'), { host: 'evil.example:3000' })
    expect(answer.status).toBe(403)
  })

  it('accepts an origin listed in HERALD_MCP_ALLOWED_ORIGINS and a loopback Host', async () => {
    const url = new URL(h.baseUrl)
    const answer = await rawPost(h, initialize('2025-11-25'), {
      origin: 'https://inspector.example',
      host: `localhost:${url.port}`,
    })
    expect(answer.status).toBe(200)
  })

  it('applies the same check to the SSE stream and its messages', async () => {
    const stream = await fetch(`${h.baseUrl}/mcp?apikey=${h.apiKey}`, {
      headers: { accept: 'text/event-stream', origin: 'http://evil.example' },
    })
    expect(stream.status).toBe(403)
    const message = await fetch(`${h.baseUrl}/mcp/messages?sessionId=x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: '{}',
    })
    expect(message.status).toBe(403)
  })

  it('reads nothing but an API key from the SSE query string', async () => {
    const response = await fetch(`${h.baseUrl}/mcp?apikey=an-oauth-access-token`, {
      headers: { accept: 'text/event-stream' },
    })
    expect(response.status).toBe(401)
    expect(((await response.json()) as any).error.message).toMatch(/API key/)
  })
})

describe('browser origins of a Herald listening on loopback', () => {
  let h: Harness
  let port: string
  beforeAll(async () => {
    // PUBLIC_BASE_URL is http://127.0.0.1:<port>, Herald's own listening address.
    h = await startHarness({ prePickPort: true })
    port = new URL(h.baseUrl).port
  })
  afterAll(() => h.close())

  it.each(['localhost', '127.0.0.1', '[::1]'])(
    'accepts a page on http://%s at its own port: every loopback name is this server',
    async (name) => {
      const answer = await rawPost(h, initialize('2025-11-25'), { origin: `http://${name}:${port}` })
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    },
  )

  it.each([
    ['another port of localhost', (p: number) => `http://localhost:${p + 1}`],
    ['another port of 127.0.0.1', (p: number) => `http://127.0.0.1:${p + 1}`],
    ['https on its plain-http port', (p: number) => `https://localhost:${p}`],
    ['another loopback address', (p: number) => `http://127.0.0.2:${p}`],
    ['another host on its port', (p: number) => `http://evil.example:${p}`],
  ])('refuses a page on %s with 403', async (_what, origin) => {
    const answer = await rawPost(h, initialize('2025-11-25'), { origin: origin(Number(port)) })
    expect(answer.status).toBe(403)
    expect(answer.body.error.code).toBe('forbidden')
  })

  it('takes no loopback name but the public one while Herald listens on every address', async () => {
    const open = await startHarness({ prePickPort: true, env: { HOST: '0.0.0.0' } })
    try {
      const own = new URL(open.baseUrl).port
      const other = await rawPost(open, initialize('2025-11-25'), { origin: `http://localhost:${own}` })
      expect(other.status).toBe(403)
      const publicOne = await rawPost(open, initialize('2025-11-25'), { origin: `http://127.0.0.1:${own}` })
      expect(publicOne.status).toBe(200)
    } finally {
      await open.close()
    }
  })
})
