import { toNodeHandler } from '@modelcontextprotocol/node'
import { Server as SseServer } from '@modelcontextprotocol/sdk/server/index.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type Caller, keyFromHeaders } from '../../modules/accounts/caller.js'
import type { AppContext } from '../../modules/app-context.js'
import { AppError, toAppError } from '../../platform/errors.js'
import { HERALD_VERSION } from '../../platform/version.js'
import type { ToolRunner } from '../tools/runner.js'
import type { AnyTool } from '../tools/tool.js'
import { inputJsonSchema, outputJsonSchema, returnsArray } from './json-schema.js'
import type { McpAppViews } from './mcp-app-views.js'
import { checkMcpRequestOrigin } from './mcp-origin.js'
import { authenticateRequest, sendAuthError, stepUpNeeded, verifyCredential } from './rest.js'

const SERVER_INFO = { name: 'herald', version: HERALD_VERSION }

/** How often open SSE sessions re-check their credential when no message arrives (revocations made elsewhere). */
const SSE_RECHECK_MS = 30_000

/** What the MCP server serves: the tools, and the MCP Apps views when the composition root gives them. */
export interface McpOffer {
  tools: readonly AnyTool[]
  views?: McpAppViews | undefined
}

/**
 * What the MCP surface answers, whatever the SDK and transport: the tool list, and a tool call through the
 * same runner as REST, so a bad argument is a tool result with `isError: true` carrying REST's exact error
 * JSON, not a differently worded SDK message. `null` from `call` means "no such tool" (a protocol error).
 * With views, a tool's entry links its view and the views are resources read for this caller.
 */
function toolSurface(app: AppContext, runner: ToolRunner, offer: McpOffer, caller: Caller) {
  const { tools, views } = offer
  return {
    list: () => ({ tools: tools.map((tool) => describeTool(tool, views?.toolMeta(tool.name))) }),
    listResources: () => views?.list() ?? { resources: [] },
    readResource(uri: string) {
      const found = views?.read(uri, caller)
      if (!found) throw new AppError('not_found', `No resource ${uri}`)
      return found
    },
    async call(name: string, args: Record<string, unknown> | undefined) {
      const tool = tools.find((t) => t.name === name)
      if (!tool) return null
      try {
        const result = await runner.run(tool.name, args ?? {}, caller)
        const meta = await views?.resultMeta(tool.name, args ?? {}, result, caller)
        return {
          content: [{ type: 'text' as const, text: JSON.stringify(result) }],
          structuredContent: (returnsArray(tool) ? { items: result } : result) as Record<string, unknown>,
          ...(meta ? { _meta: meta } : {}),
        }
      } catch (error) {
        const appError = toAppError(error)
        if (appError.code === 'internal')
          app.logger.error({ err: error, tool: tool.name }, 'MCP tool call failed')
        return {
          isError: true,
          content: [{ type: 'text' as const, text: JSON.stringify(appError.toBody()) }],
        }
      }
    },
  }
}

/** The server for streamable HTTP, on the SDK's v2 packages (every revision from 2025-03-26 to 2026-07-28). */
function createStreamableServer(surface: ReturnType<typeof toolSurface>, runner: ToolRunner): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {}, resources: {} } })
  // The JSON schemas come from zod (src/interfaces/http/json-schema.ts); the SDK's type spells JSON values out.
  server.setRequestHandler('tools/list', async () => surface.list() as never)
  server.setRequestHandler('resources/list', async () => surface.listResources() as never)
  server.setRequestHandler('resources/read', async (request) => {
    try {
      return surface.readResource(request.params.uri) as never
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, toAppError(error).message)
    }
  })
  server.setRequestHandler('tools/call', async (request) => {
    const result = await surface.call(request.params.name, request.params.arguments)
    if (!result)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        runner.unknownTool(request.params.name).message,
      )
    return result
  })
  return server
}

/**
 * The server for the deprecated HTTP+SSE transport (protocol 2024-11-05). The SDK's v2 packages dropped that
 * transport, so it stays on the v1 SDK's, unchanged, until it is removed.
 */
function createSseServer(surface: ReturnType<typeof toolSurface>, runner: ToolRunner): SseServer {
  const server = new SseServer(SERVER_INFO, { capabilities: { tools: {}, resources: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => surface.list())
  server.setRequestHandler(ListResourcesRequestSchema, async () => surface.listResources() as never)
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return surface.readResource(request.params.uri) as never
    } catch (error) {
      throw new McpError(ErrorCode.InvalidParams, toAppError(error).message)
    }
  })
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const result = await surface.call(request.params.name, request.params.arguments)
    if (!result) throw new McpError(ErrorCode.InvalidParams, runner.unknownTool(request.params.name).message)
    return result
  })
  return server
}

function describeTool(tool: AnyTool, meta: Record<string, unknown> | undefined) {
  const output = outputJsonSchema(tool)
  return {
    ...(meta ? { _meta: meta } : {}),
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

function sendError(app: AppContext, reply: FastifyReply, error: unknown) {
  const appError = toAppError(error)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  const retry = (appError.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds
  if (retry) headers['retry-after'] = String(retry)
  Object.assign(headers, sendAuthError(app, appError, 'mcp'))
  reply.raw.writeHead(appError.httpStatus, headers)
  reply.raw.end(JSON.stringify(appError.toBody()))
}

interface SseSession {
  transport: SSEServerTransport
  caller: Caller
  /** The credential the stream was opened with, re-checked on every message it carries. */
  credential: string
}

export function registerMcpRoutes(
  server: FastifyInstance,
  app: AppContext,
  runner: ToolRunner,
  offer: McpOffer,
) {
  const { tools } = offer
  const sseSessions = new Map<string, SseSession>()
  const { streamable, modern } = createStreamableHandler(app, runner, offer)

  // Streamable HTTP, stateless: any process can answer any request.
  server.post('/mcp', async (request, reply) => {
    reply.hijack()
    try {
      checkMcpRequestOrigin(app.config, request)
      const caller = await authenticateRequest(app, request, reply, keyFromHeaders(request.headers), 'mcp')
      const missing = stepUpNeeded(caller, request.body, tools)
      if (missing) throw missing
      // The SDK hands `auth` to the server factory: the caller rides in it, never the credential itself.
      const raw = request.raw as typeof request.raw & { auth?: AuthInfo }
      raw.auth = {
        token: '',
        clientId: caller.apiKeyId,
        scopes: [...(caller.grant?.scopes ?? [])],
        extra: { caller },
      }
      await streamable(raw, reply.raw, request.body)
    } catch (error) {
      if (!reply.raw.headersSent) sendError(app, reply, error)
    }
  })

  // GET /mcp: a streamable-HTTP client (it sends mcp-protocol-version) gets 405, as the stateless transport
  // offers no standalone stream; a legacy SSE client opens its event stream here, `?apikey=` allowed.
  const openSse = sseOpener(app, runner, offer, sseSessions)
  server.get('/mcp', openSse)
  server.get('/sse', openSse)

  const postSseMessage = sseMessagePoster(app, tools, sseSessions)
  server.post('/mcp/messages', postSseMessage)
  server.post('/messages', postSseMessage)

  server.delete('/mcp', async (request, reply) => {
    checkMcpRequestOrigin(app.config, request)
    reply
      .code(405)
      .header('allow', 'POST')
      .send(new AppError('invalid_request', 'Sessions are not used: nothing to delete').toBody())
  })

  const stopWatching = watchSseSessions(app, sseSessions)

  return {
    closeAll: async () => {
      stopWatching()
      await modern.close()
      for (const { transport } of sseSessions.values()) await transport.close()
      sseSessions.clear()
    },
  }
}

/** The streamable HTTP handler, answering each request in the protocol revision it speaks. */
function createStreamableHandler(app: AppContext, runner: ToolRunner, offer: McpOffer) {
  // One factory for both eras: each request gets its own server, built for the caller it authenticated.
  const serverFor = (caller: Caller) =>
    createStreamableServer(toolSurface(app, runner, offer, caller), runner)
  const callerOf = (authInfo: { extra?: Record<string, unknown> } | undefined) => {
    const caller = authInfo?.extra?.caller as Caller | undefined
    if (!caller) throw new AppError('unauthorized', 'Not authenticated')
    return caller
  }
  // 2026-07-28 (stateless, per-request envelope); 2025-era requests are routed below before reaching it.
  const modern = createMcpHandler((ctx) => serverFor(callerOf(ctx.authInfo)), {
    legacy: 'reject',
    onerror: (error) => app.logger.debug({ err: error }, 'MCP request refused'),
  })
  // 2025-11-25, 2025-06-18 and 2025-03-26: stateless streamable HTTP answering plain JSON, as before.
  const legacy = async (request: Request, options: { authInfo?: unknown; parsedBody?: unknown }) => {
    const mcp = serverFor(callerOf(options.authInfo as { extra?: Record<string, unknown> }))
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await mcp.connect(transport)
    try {
      return await transport.handleRequest(request, options as never)
    } finally {
      void transport.close()
      void mcp.close()
    }
  }
  const streamable = toNodeHandler({
    async fetch(request, options) {
      const parsed = (options as { parsedBody?: unknown } | undefined)?.parsedBody
      return (await isLegacyRequest(request, parsed))
        ? legacy(request, options ?? {})
        : modern.fetch(request, options)
    },
  })
  return { streamable, modern }
}

/** Opens a legacy SSE event stream (or answers 405 to a streamable-HTTP client asking for one). */
function sseOpener(
  app: AppContext,
  runner: ToolRunner,
  offer: McpOffer,
  sseSessions: Map<string, SseSession>,
) {
  return async (request: FastifyRequest<{ Querystring: { apikey?: string } }>, reply: FastifyReply) => {
    reply.hijack()
    try {
      checkMcpRequestOrigin(app.config, request)
      if (request.headers['mcp-protocol-version'] || request.headers['mcp-session-id']) {
        reply.raw.writeHead(405, { allow: 'POST', 'content-type': 'application/json' })
        reply.raw.end(
          JSON.stringify(
            new AppError('invalid_request', 'Use POST for the streamable HTTP transport').toBody(),
          ),
        )
        return
      }
      const fromHeader = keyFromHeaders(request.headers)
      // The query parameter is for API keys only: an OAuth token never travels in a URL.
      const credential = fromHeader ?? queryApiKey(request.query.apikey)
      const caller = await authenticateRequest(app, request, reply, credential, 'mcp')
      const transport = new SSEServerTransport('/mcp/messages', reply.raw)
      const mcp = createSseServer(toolSurface(app, runner, offer, caller), runner)
      sseSessions.set(transport.sessionId, { transport, caller, credential: credential as string })
      // The server's own close handler (chained by connect) tears the session down; we only forget it.
      transport.onclose = () => {
        sseSessions.delete(transport.sessionId)
      }
      await mcp.connect(transport)
    } catch (error) {
      if (!reply.raw.headersSent) sendError(app, reply, error)
    }
  }
}

/** A message on an open SSE session: its credential checked again, a key sent with it the same person's. */
function sseMessagePoster(app: AppContext, tools: readonly AnyTool[], sseSessions: Map<string, SseSession>) {
  return async (
    request: FastifyRequest<{ Querystring: { sessionId?: string; apikey?: string } }>,
    reply: FastifyReply,
  ) => {
    reply.hijack()
    try {
      checkMcpRequestOrigin(app.config, request)
      const session = sseSessions.get(request.query.sessionId ?? '')
      if (!session) throw new AppError('not_found', 'No open SSE session with that sessionId')
      const sent = keyFromHeaders(request.headers) ?? queryApiKey(request.query.apikey)
      // The session's own credential is checked again on every message (revoked, expired, grant ended):
      // what the stream was opened with is no licence to keep acting after it stopped being valid.
      let caller: Caller
      try {
        caller = await authenticateRequest(app, request, reply, session.credential, 'mcp')
      } catch (error) {
        if (toAppError(error).code === 'unauthorized') void session.transport.close()
        throw error
      }
      // A key sent with the message must be the same person's.
      if (sent && sent !== session.credential) {
        const other = await app.keys.authenticate(sent)
        if (other.userId !== caller.userId)
          throw new AppError('not_found', 'No open SSE session with that sessionId')
      }
      const missing = stepUpNeeded(caller, request.body, tools)
      if (missing) throw missing
      await session.transport.handlePostMessage(request.raw, reply.raw, request.body)
    } catch (error) {
      if (!reply.raw.headersSent) sendError(app, reply, error)
    }
  }
}

/**
 * A credential revoked in this process ends its open streams at once; one revoked elsewhere (the CLI) is
 * caught by the next message or by this sweep, whichever comes first.
 */
function watchSseSessions(app: AppContext, sseSessions: Map<string, SseSession>) {
  const unsubscribe = app.revocations.subscribe((credentialId) => {
    for (const session of sseSessions.values())
      if (session.caller.apiKeyId === credentialId) void session.transport.close()
  })
  const sweep = setInterval(async () => {
    for (const session of [...sseSessions.values()]) {
      try {
        await verifyCredential(app, session.credential, 'mcp')
      } catch (error) {
        if (toAppError(error).code === 'unauthorized') void session.transport.close()
      }
    }
  }, SSE_RECHECK_MS)
  sweep.unref()
  return () => {
    unsubscribe()
    clearInterval(sweep)
  }
}

/** `?apikey=` holds an API key or nothing: anything else (an OAuth access token) is not read from a URL. */
function queryApiKey(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value !== 'string' || !value.startsWith('hk_'))
    throw new AppError('unauthorized', 'The apikey query parameter takes an API key (hk_…) only')
  return value
}
