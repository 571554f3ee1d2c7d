import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tools } from '../src/interfaces/tools/registry.js'
import { type Harness, startHarness } from './helpers/harness.js'

const textOf = (result: any) => JSON.parse(result.content[0].text)

describe('MCP transports', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h.close())

  const streamable = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'herald-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), { requestInit: { headers } }),
    )
    return client
  }

  it('lists every registry tool with input and output schemas and read-only hints over streamable HTTP', async () => {
    const client = await streamable({ 'x-api-key': h.apiKey })
    const { tools: listed } = await client.listTools()
    expect(listed.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort())
    for (const tool of listed) {
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type).toBe('object')
      const defined = tools.find((t) => t.name === tool.name)!
      expect(tool.annotations?.readOnlyHint).toBe(defined.access === 'read')
    }
    await client.close()
  })

  it('answers tool calls over streamable HTTP exactly as REST does', async () => {
    const client = await streamable({ authorization: `Bearer ${h.apiKey}` })
    for (const name of ['list_workspaces', 'get_user_info', 'get_connected_accounts']) {
      const viaMcp = await client.callTool({ name, arguments: {} })
      const viaRest = await h.call(name, {})
      expect(viaMcp.isError).toBeFalsy()
      expect(textOf(viaMcp)).toEqual(viaRest.body)
    }
    const batch = { calls: [{ tool: 'get_user_info', id: 'x' }] }
    expect(textOf(await client.callTool({ name: 'multicall', arguments: batch }))).toEqual(
      (await h.call('multicall', batch)).body,
    )
    await client.close()
  })

  it('wraps array results as {items} in structured content', async () => {
    const client = await streamable({ 'x-api-key': h.apiKey })
    const result = await client.callTool({ name: 'list_workspaces', arguments: {} })
    expect(result.structuredContent).toEqual({ items: (await h.call('list_workspaces')).body })
    await client.close()
  })

  it('returns tool failures as isError results carrying the REST error JSON', async () => {
    const client = await streamable({ 'x-api-key': h.apiKey })
    const result = await client.callTool({
      name: 'get_user_info',
      arguments: { workspaceId: 'ffffffffffffffffffffffff' },
    })
    expect(result.isError).toBe(true)
    const rest = await h.call('get_user_info', { workspaceId: 'ffffffffffffffffffffffff' })
    expect(textOf(result)).toEqual(rest.body)
    const invalid = await client.callTool({ name: 'get_user_info', arguments: { nope: 1 } })
    expect(invalid.isError).toBe(true)
    expect(textOf(invalid)).toEqual((await h.call('get_user_info', { nope: 1 })).body)
    await client.close()
  })

  it('refuses a streamable HTTP connection without a key', async () => {
    await expect(streamable({})).rejects.toThrow()
  })

  it('serves the legacy SSE transport with ?apikey= and matches REST', async () => {
    const client = new Client({ name: 'herald-test-sse', version: '1.0.0' })
    await client.connect(
      new SSEClientTransport(new URL(`${h.baseUrl}/mcp?apikey=${encodeURIComponent(h.apiKey)}`)),
    )
    const { tools: listed } = await client.listTools()
    expect(listed).toHaveLength(tools.length)
    for (const name of ['list_workspaces', 'get_user_info']) {
      expect(textOf(await client.callTool({ name, arguments: {} }))).toEqual((await h.call(name)).body)
    }
    await client.close()
  })

  it('refuses the SSE transport with a bad key', async () => {
    const response = await fetch(`${h.baseUrl}/mcp?apikey=hk_wrong`, {
      headers: { accept: 'text/event-stream' },
    })
    expect(response.status).toBe(401)
    expect(((await response.json()) as any).error.code).toBe('unauthorized')
  })

  it('never logs the key passed in the SSE query string', () => {
    expect(h.logs.join('\n')).not.toContain(h.apiKey)
  })
})
