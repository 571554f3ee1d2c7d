import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { type Caller, keyFromHeaders } from '../auth/caller.js'
import { AppError, toAppError } from '../errors.js'
import type { ToolRunner } from '../tools/runner.js'
import type { AnyTool } from '../tools/tool.js'
import { inputJsonSchema, outputJsonSchema, returnsArray } from './json-schema.js'
import { authenticateRequest } from './rest.js'

const SERVER_INFO = { name: 'herald', version: '1.0.0' }

/**
 * The MCP surface. It uses the SDK's low-level `Server` rather than `McpServer.registerTool` so that
 * argument validation goes through the same runner as REST: a bad argument is a tool result with
 * `isError: true` carrying REST's exact error JSON, not a differently worded SDK message.
 */
function createMcpServer(
  app: AppContext,
  runner: ToolRunner,
  tools: readonly AnyTool[],
  caller: Caller,
): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map(describeTool) }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((t) => t.name === request.params.name)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, runner.unknownTool(request.params.name).message)
    try {
      const result = await runner.run(tool.name, request.params.arguments ?? {}, caller)
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(result) }],
        structuredContent: (returnsArray(tool) ? { items: result } : result) as Record<string, unknown>,
      }
    } catch (error) {
      const appError = toAppError(error)
      if (appError.code === 'internal')
        app.logger.error({ err: error, tool: tool.name }, 'MCP tool call failed')
      return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify(appError.toBody()) }] }
    }
  })
  return server
}

function describeTool(tool: AnyTool) {
  const output = outputJsonSchema(tool)
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(tool) as { type: 'object'; properties?: Record<string, object> },
    outputSchema: (returnsArray(tool)
      ? { type: 'object', properties: { items: output }, required: ['items'] }
      : output) as { type: 'object'; properties?: Record<string, object> },
    annotations: {
      title: tool.title,
      readOnlyHint: tool.access === 'read',
      destructiveHint: tool.destructive ?? false,
      openWorldHint:
        tool.category === 'Publishing' || tool.category === 'Analytics' || tool.category === 'Media',
    },
  }
}

function sendError(reply: FastifyReply, error: unknown) {
  const appError = toAppError(error)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  const retry = (appError.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds
  if (retry) headers['retry-after'] = String(retry)
  reply.raw.writeHead(appError.httpStatus, headers)
  reply.raw.end(JSON.stringify(appError.toBody()))
}

export function registerMcpRoutes(
  server: FastifyInstance,
  app: AppContext,
  runner: ToolRunner,
  tools: readonly AnyTool[],
) {
  const sseSessions = new Map<string, { transport: SSEServerTransport; caller: Caller }>()

  // Streamable HTTP, stateless: every POST gets its own server and transport, so any process can answer.
  server.post('/mcp', async (request, reply) => {
    reply.hijack()
    try {
      const caller = await authenticateRequest(app, request, keyFromHeaders(request.headers))
      const mcp = createMcpServer(app, runner, tools, caller)
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      })
      reply.raw.on('close', () => {
        void transport.close()
        void mcp.close()
      })
      await mcp.connect(transport)
      await transport.handleRequest(request.raw, reply.raw, request.body)
    } catch (error) {
      if (!reply.raw.headersSent) sendError(reply, error)
    }
  })

  // GET /mcp: a streamable-HTTP client (it sends mcp-protocol-version) gets 405, as the stateless transport
  // offers no standalone stream; a legacy SSE client opens its event stream here, `?apikey=` allowed.
  const openSse = async (
    request: FastifyRequest<{ Querystring: { apikey?: string } }>,
    reply: FastifyReply,
  ) => {
    reply.hijack()
    try {
      if (request.headers['mcp-protocol-version'] || request.headers['mcp-session-id']) {
        reply.raw.writeHead(405, { allow: 'POST', 'content-type': 'application/json' })
        reply.raw.end(
          JSON.stringify(
            new AppError('invalid_request', 'Use POST for the streamable HTTP transport').toBody(),
          ),
        )
        return
      }
      const caller = await authenticateRequest(
        app,
        request,
        keyFromHeaders(request.headers) ?? request.query.apikey,
      )
      const transport = new SSEServerTransport('/mcp/messages', reply.raw)
      const mcp = createMcpServer(app, runner, tools, caller)
      sseSessions.set(transport.sessionId, { transport, caller })
      // The server's own close handler (chained by connect) tears the session down; we only forget it.
      transport.onclose = () => {
        sseSessions.delete(transport.sessionId)
      }
      await mcp.connect(transport)
    } catch (error) {
      if (!reply.raw.headersSent) sendError(reply, error)
    }
  }
  server.get('/mcp', openSse)
  server.get('/sse', openSse)

  const postSseMessage = async (
    request: FastifyRequest<{ Querystring: { sessionId?: string; apikey?: string } }>,
    reply: FastifyReply,
  ) => {
    reply.hijack()
    try {
      const session = sseSessions.get(request.query.sessionId ?? '')
      if (!session) throw new AppError('not_found', 'No open SSE session with that sessionId')
      const key = keyFromHeaders(request.headers) ?? request.query.apikey
      // The session was authenticated when its stream opened; a key sent again must be the same person's.
      if (key) {
        const caller = await authenticateRequest(app, request, key)
        if (caller.userId !== session.caller.userId)
          throw new AppError('not_found', 'No open SSE session with that sessionId')
      } else if (app.rateLimiter.hit(session.caller.apiKeyId, app.clock.now()) > 0) {
        throw new AppError(
          'rate_limited',
          `Rate limit of ${app.config.rateLimitPerMinute} requests per minute reached`,
        )
      }
      await session.transport.handlePostMessage(request.raw, reply.raw, request.body)
    } catch (error) {
      if (!reply.raw.headersSent) sendError(reply, error)
    }
  }
  server.post('/mcp/messages', postSseMessage)
  server.post('/messages', postSseMessage)

  server.delete('/mcp', async (_request, reply) => {
    reply
      .code(405)
      .header('allow', 'POST')
      .send(new AppError('invalid_request', 'Sessions are not used: nothing to delete').toBody())
  })

  return {
    closeAll: async () => {
      for (const { transport } of sseSessions.values()) await transport.close()
      sseSessions.clear()
    },
  }
}
