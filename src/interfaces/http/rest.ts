import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type Caller, keyFromHeaders } from '../../modules/accounts/caller.js'
import type { AppContext } from '../../modules/app-context.js'
import { resourceMetadataUrl, type Surface } from '../../modules/oauth-server/resource.js'
import { SCOPES, scopeRefusal } from '../../modules/oauth-server/scopes.js'
import { AppError } from '../../platform/errors.js'
import type { ToolRunner } from '../tools/runner.js'
import type { AnyTool } from '../tools/tool.js'
import { countApiRequest } from './api-rate-limit.js'

declare module 'fastify' {
  interface FastifyRequest {
    caller?: import('../../modules/accounts/caller.js').Caller
  }
}

/**
 * The caller behind a credential from a header: an API key (`hk_…`), or an access token Herald's OAuth
 * server issued for this surface. Nothing is counted; the SSE transport re-checks open sessions with it.
 */
export async function verifyCredential(
  app: AppContext,
  credential: string | undefined,
  surface: Surface,
): Promise<Caller> {
  if (credential && !credential.startsWith('hk_') && app.oauth) {
    try {
      return await app.oauth.verifyAccessToken(credential, surface)
    } catch (error) {
      // RFC 6750 §3.1: a bearer token that was presented and refused is `invalid_token` (what tells an
      // OAuth client to refresh or sign in again rather than give up).
      if (error instanceof AppError && error.code === 'unauthorized')
        throw new AppError('unauthorized', error.message, { oauthError: 'invalid_token' })
      throw error
    }
  }
  return app.keys.authenticate(credential)
}

/** Authenticates the request's credential and counts it against the credential's rate limit. */
export async function authenticateRequest(
  app: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string | undefined,
  surface: Surface = 'rest',
) {
  const caller = await verifyCredential(app, key, surface)
  request.caller = caller
  await countApiRequest(request, reply)
  return caller
}

/**
 * The `WWW-Authenticate` challenge of a refusal (RFC 6750, RFC 9728 §5.1): a 401 names the resource's
 * metadata and the scopes, so an MCP client can discover Herald's authorization server from it; a 403 for a
 * missing scope says `insufficient_scope` and which scope, so the client can ask for it (step-up).
 */
export function sendAuthError(app: AppContext, error: AppError, surface: Surface): Record<string, string> {
  if (!app.oauth) return {}
  const metadata = `resource_metadata="${resourceMetadataUrl(app.config.publicBaseUrl, surface)}"`
  const details = error.details as { oauthError?: string; scope?: string } | undefined
  const description = `error_description="${error.message.replace(/["\\]/g, '')}"`
  if (error.code === 'unauthorized' && details?.oauthError === 'invalid_token')
    return {
      'www-authenticate': `Bearer error="invalid_token", ${description}, ${metadata}, scope="${SCOPES.join(' ')}"`,
    }
  if (error.code === 'unauthorized')
    return { 'www-authenticate': `Bearer ${metadata}, scope="${SCOPES.join(' ')}"` }
  if (error.code === 'forbidden' && details?.oauthError === 'insufficient_scope')
    return {
      'www-authenticate': `Bearer error="insufficient_scope", scope="${details.scope}", ${metadata}, ${description}`,
    }
  return {}
}

/**
 * For MCP: a `tools/call` of a tool the token's scopes do not cover is refused at the HTTP level (403 with
 * the challenge), which is what makes an MCP client step up; the runner refuses it again if it got through.
 */
export function stepUpNeeded(caller: Caller, body: unknown, tools: readonly AnyTool[]): AppError | undefined {
  if (!caller.grant) return undefined
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, params } = (message ?? {}) as {
      method?: unknown
      params?: { name?: unknown; arguments?: unknown }
    }
    if (method !== 'tools/call') continue
    const tool = tools.find((t) => t.name === params?.name)
    const refusal = tool && scopeRefusal(caller, tool, params?.arguments)
    if (refusal) return refusal
  }
  return undefined
}

/** `POST /api/tools/<name>`: one JSON object in, the tool's result out. No business logic lives here. */
export function registerRestRoutes(server: FastifyInstance, app: AppContext, runner: ToolRunner) {
  // A tool is called with POST; a browser or a GET-minded client is told so instead of a bare 404.
  server.get<{ Params: { name: string } }>('/api/tools/:name', async (request, reply) => {
    const { name } = request.params
    if (!runner.has(name)) throw runner.unknownTool(name)
    reply.header('allow', 'POST')
    throw new AppError(
      'invalid_request',
      `Use POST /api/tools/${name} with a JSON object body (and an x-api-key header); GET is not supported`,
      undefined,
      405,
    )
  })
  server.register(async (scope) => {
    // Authentication runs before the body is read, so a request without a valid key learns nothing more.
    scope.addHook('onRequest', async (request, reply) => {
      await authenticateRequest(app, request, reply, keyFromHeaders(request.headers))
    })
    // A refusal for want of a credential or a scope carries the OAuth challenge (an onError hook may add headers).
    scope.addHook('onError', async (_request, reply, error) => {
      if (error instanceof AppError) reply.headers(sendAuthError(app, error, 'rest'))
    })
    scope.post<{ Params: { name: string } }>('/api/tools/:name', async (request) => {
      const { name } = request.params
      if (!runner.has(name)) throw runner.unknownTool(name)
      if (!request.caller) throw new AppError('unauthorized', 'An API key is required')
      const idempotencyKey = request.headers['idempotency-key']
      return runner.run(name, request.body, request.caller, {
        idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
      })
    })
  })
}
