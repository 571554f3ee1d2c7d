import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { keyFromHeaders } from '../auth/caller.js'
import { AppError } from '../errors.js'
import type { ToolRunner } from '../tools/runner.js'

declare module 'fastify' {
  interface FastifyRequest {
    caller?: import('../auth/caller.js').Caller
  }
}

/** Authenticates the request's key and counts it against the key's rate limit. */
export async function authenticateRequest(app: AppContext, request: FastifyRequest, key: string | undefined) {
  const caller = await app.keys.authenticate(key)
  const retryAfter = app.rateLimiter.hit(caller.apiKeyId, app.clock.now())
  if (retryAfter > 0) {
    throw new AppError(
      'rate_limited',
      `Rate limit of ${app.config.rateLimitPerMinute} requests per minute reached`,
      { retryAfterSeconds: retryAfter },
    )
  }
  request.caller = caller
  return caller
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
    scope.addHook('onRequest', async (request) => {
      await authenticateRequest(app, request, keyFromHeaders(request.headers))
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
