import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type RequestWindows, rateLimited, WINDOW_MS } from '../../modules/accounts/request-windows.js'
import type { AppContext } from '../../modules/app-context.js'

/** The headers the limit adds to every API answer (the IETF draft's names; see docs/adr). */
const LIMIT_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']

/**
 * The API's own rate limit, through @fastify/rate-limit: `HERALD_RATE_LIMIT_PER_MINUTE` requests a minute
 * per credential (the client's address for a request that names none), every answer carrying
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`, and a request past the limit refused with
 * 429 `rate_limited` in the API's error body, with `Retry-After`. No route is limited by the plugin itself
 * (`global: false`): a request is counted by {@link countApiRequest} once its credential is known, which
 * the REST scopes do in their `onRequest` hook and the MCP transport in its handlers.
 */
export function registerApiRateLimit(server: FastifyInstance, app: AppContext): void {
  const windows = app.rateLimiter
  server.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    max: windows.perMinute,
    timeWindow: WINDOW_MS,
    keyGenerator: (request) => request.caller?.apiKeyId ?? request.ip,
    store: storeOver(windows),
    errorResponseBuilder: (_request, context) => rateLimited(context.max, context.ttl),
  })
}

/** The plugin's hook, made once per Fastify instance that asks (the plugin's decorator lives on each). */
const hooks = new WeakMap<FastifyInstance, ReturnType<FastifyInstance['rateLimit']>>()

/**
 * Counts an authenticated request against its credential's limit (`request.caller`, set by the caller of
 * this), adding the limit's headers; throws the 429 when it is past the limit. A transport that writes its
 * own answer (`reply.hijack()`, MCP) gets the headers on the raw response too.
 */
export async function countApiRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const server = request.server
  let hook = hooks.get(server)
  if (!hook) {
    hook = server.rateLimit()
    hooks.set(server, hook)
  }
  try {
    await hook.call(server, request, reply)
  } finally {
    if (reply.sent) carryToRaw(reply)
  }
}

function carryToRaw(reply: FastifyReply) {
  for (const name of LIMIT_HEADERS) {
    const value = reply.getHeader(name)
    if (value !== undefined && !reply.raw.headersSent) reply.raw.setHeader(name, String(value))
  }
}

/** The plugin's store contract over the app's windows: every instance and every route share one count. */
function storeOver(windows: RequestWindows) {
  return class AppClockStore {
    incr(
      key: string,
      done: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ) {
      done(null, windows.count(key, timeWindow))
    }
    child() {
      return this
    }
  }
}
