import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from 'fastify'
import { registerDashboard } from './interfaces/dashboard/plugin.js'
import { registerApiRateLimit } from './interfaces/http/api-rate-limit.js'
import { renderDocsPage } from './interfaces/http/docs-page.js'
import { registerManageRoutes } from './interfaces/http/manage-routes.js'
import { registerMcpRoutes } from './interfaces/http/mcp.js'
import { registerMediaRoutes } from './interfaces/http/media-routes.js'
import { registerOAuthRoutes } from './interfaces/http/oauth-routes.js'
import { buildOpenApi } from './interfaces/http/openapi.js'
import { registerRestRoutes } from './interfaces/http/rest.js'
import { registerSecurityHeaders } from './interfaces/http/security-headers.js'
import { registerWebhookRoutes } from './interfaces/http/webhook-routes.js'
import { createMcpAppViews } from './interfaces/mcp-apps/app-views.js'
import { tools } from './interfaces/tools/registry.js'
import { createToolRunner } from './interfaces/tools/runner.js'
import type { AppContext } from './modules/app-context.js'
import { lastSuccessfulBackup } from './modules/backup/runs.js'
import { lookupAndStuckGauges, queueDepth } from './modules/delivery/leases.js'
import { hostedMediaUsage } from './modules/media/media-lifetime.js'
import type { Role } from './platform/config.js'
import { safeEqual } from './platform/crypto/safe-equal.js'
import { isReachable } from './platform/db/db.js'
import { countDisabledEndpoints, countPendingDeliveries } from './platform/db/statements/webhooks.js'
import { AppError, toAppError } from './platform/errors.js'
import { METRICS_CONTENT_TYPE } from './platform/metrics.js'
import type { FaultInjector } from './sandbox/fault-injector.js'
import { type MountedSandboxes, mountSandboxes } from './sandbox-mount.js'

export const BODY_LIMIT = 1024 * 1024

/** Maps framework-level refusals (bad JSON, wrong content type, body too large) onto the one error envelope. */
function fromFrameworkError(error: FastifyError): AppError {
  if (error instanceof AppError) return error
  const status = error.statusCode ?? 500
  if (status === 413)
    return new AppError('invalid_request', `The body is over the ${BODY_LIMIT} byte limit`, undefined, 413)
  if (status === 415)
    return new AppError(
      'invalid_request',
      'The body must be JSON (Content-Type: application/json)',
      undefined,
      415,
    )
  if (status === 404) return new AppError('not_found', 'Not found')
  if (status === 429) return new AppError('rate_limited', 'Too many requests')
  if (status >= 400 && status < 500)
    return new AppError('invalid_request', error.message || 'Invalid request', undefined, status)
  return toAppError(error)
}

/** Probes that run every few seconds: logged at debug level only. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics'])

/**
 * The one line logged per request: method, route (the pattern, not the URL, so no id or key leaks),
 * the tool called (REST or MCP), status, milliseconds and the workspace asked for.
 */
function requestLine(request: FastifyRequest, status: number, elapsedMs: number) {
  const body = (request.body ?? {}) as {
    workspaceId?: unknown
    method?: unknown
    params?: { name?: unknown; arguments?: { workspaceId?: unknown } }
  }
  const params = request.params as { name?: string } | undefined
  const route = request.routeOptions.url ?? request.url.split('?')[0] ?? ''
  const tool =
    route === '/api/tools/:name'
      ? params?.name
      : body.method === 'tools/call' && typeof body.params?.name === 'string'
        ? body.params.name
        : undefined
  const asked = route === '/api/tools/:name' ? body.workspaceId : body.params?.arguments?.workspaceId
  const workspaceId = typeof asked === 'string' ? asked : request.caller?.defaultWorkspaceId
  return {
    method: request.method,
    route,
    ...(tool ? { tool } : {}),
    status,
    ms: Math.round(elapsedMs * 10) / 10,
    ...(workspaceId ? { workspaceId } : {}),
  }
}

/**
 * One scrape's text. Counters and histograms are kept in memory as they happen; the gauges that need the
 * database (queue depth, stuck targets, hosted media, cache use) are read once per scrape, and scrapes that
 * arrive together share one reading.
 */
function metricsScraper(app: AppContext): () => Promise<string> {
  let inFlight: Promise<string> | undefined
  const read = async () => {
    const now = app.clock.now()
    const [depth, gauges, hosted, cached, pending, disabledEndpoints, backup] = await Promise.all([
      queueDepth(app.store, now),
      lookupAndStuckGauges(app.store, app.leaseClock()),
      hostedMediaUsage(app.store.db),
      app.media.cache.usage(),
      countPendingDeliveries(app.store),
      countDisabledEndpoints(app.store),
      lastSuccessfulBackup(app.store.db),
    ])
    const media = {
      hostedBytes: hosted.bytes,
      hostedCount: hosted.count,
      cacheBytes: cached.bytes,
      cacheCount: cached.count,
    }
    const stuck = Object.values(gauges.stuck).reduce((n, count) => n + count, 0)
    return app.metrics.render({
      queueDepth: depth,
      stuck,
      stuckByReason: gauges.stuck,
      lookupsPending: gauges.lookupsPending,
      lookupsFailed: gauges.lookupsFailed,
      media,
      webhooks: { pending, disabledEndpoints },
      lastBackupAt: backup?.finishedAt ?? null,
    })
  }
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined
    })
    return inFlight
  }
}

/** HERALD_METRICS_LISTEN: `/metrics` alone, without a token, on its own address (e.g. 127.0.0.1:9464). */
export function buildMetricsServer(app: AppContext): FastifyInstance {
  const server = Fastify({ logger: false })
  const scrape = metricsScraper(app)
  server.get('/metrics', async (_request, reply) => reply.type(METRICS_CONTENT_TYPE).send(await scrape()))
  return server
}

/**
 * HERALD_TRUST_PROXY for Fastify. A hop count believes that many `X-Forwarded-For` entries counted from
 * the socket (Fastify refuses bare numbers, since a direct client could then spoof the header: safe only
 * when Herald's port is reachable through the proxy alone, which docs/security.md says); a list is
 * handed over as is (proxy-addr checks each hop against it).
 */
function trustProxyOption(trust: false | number | string[]) {
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust
  return trust
}

/**
 * The HTTP server. A worker-only process (`role: 'worker'`) serves just the health and metrics routes. In
 * sandbox mode the simulators are mounted too (`sandboxes`), asking `sandboxFaults` about every call when a
 * test gives one.
 */
export function buildServer(
  app: AppContext,
  options: { role?: Role; sandboxFaults?: FaultInjector } = {},
): {
  server: FastifyInstance
  close(): Promise<void>
  sandboxes?: MountedSandboxes
  /** Every route registered, as `METHOD /path` (complete once the server is ready); /openapi.json's test reads it. */
  routes: string[]
} {
  const server = Fastify({
    loggerInstance: app.logger.child({ subsystem: 'http' }) as FastifyBaseLogger,
    logController: new LogController({
      disableRequestLogging: app.config.logLevel !== 'debug' && app.config.logLevel !== 'trace',
    }),
    bodyLimit: BODY_LIMIT,
    trustProxy: trustProxyOption(app.config.trustProxy),
  })
  registerSecurityHeaders(server)
  registerApiRateLimit(server, app)
  const routes: string[] = []
  server.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`)
  })
  const runner = createToolRunner(app, tools)

  acceptJsonOnly(server)
  answerErrorsAsEnvelopes(server)
  logRequests(server, app)
  registerHealthRoutes(server, app)
  if (options.role === 'worker') return { server, close: () => server.close(), routes }

  const openapi = buildOpenApi(tools, app.config.publicBaseUrl)
  server.get('/openapi.json', async () => openapi)
  const docs = renderDocsPage(tools)
  server.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(docs))

  registerRestRoutes(server, app, runner)
  registerManageRoutes(server, app, runner)
  registerWebhookRoutes(server, app)
  if (app.oauth) registerOAuthRoutes(server, app, app.oauth)
  registerMediaRoutes(server, app)
  // Sign-in, channels and the connect flow: HTML forms, in their own scope (see registerDashboard).
  registerDashboard(server, app, runner)
  const sandboxes = app.config.sandbox
    ? mountSandboxes(server, app, options.sandboxFaults ? { faults: options.sandboxFaults } : {})
    : undefined
  const mcp = registerMcpRoutes(server, app, runner, { tools, views: createMcpAppViews(app, tools) })

  return {
    server,
    routes,
    ...(sandboxes ? { sandboxes } : {}),
    async close() {
      await mcp.closeAll()
      // Requests in flight get a grace period; a client that holds one open (a stalled upload) is then cut off
      // rather than keeping the process from stopping.
      const deadline = setTimeout(() => server.server.closeAllConnections(), 10_000)
      deadline.unref()
      try {
        await server.close()
      } finally {
        clearTimeout(deadline)
      }
    },
  }
}

/** JSON is the only body Herald reads; anything else is refused with 415 before a handler runs. */
function acceptJsonOnly(server: FastifyInstance) {
  server.removeAllContentTypeParsers()
  server.addContentTypeParser(
    ['application/json'],
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8')
      if (text.trim() === '') return done(null, {})
      try {
        done(null, JSON.parse(text))
      } catch {
        done(new AppError('invalid_request', 'The body is not valid JSON'), undefined)
      }
    },
  )
}

/** Every error, the framework's included, answers in the one envelope; a 500 is logged, never echoed. */
function answerErrorsAsEnvelopes(server: FastifyInstance) {
  server.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = fromFrameworkError(error)
    if (appError.code === 'internal') request.log.error({ err: error }, 'request failed')
    const retry = (appError.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds
    if (appError.code === 'rate_limited' && retry) reply.header('retry-after', String(retry))
    reply.code(appError.httpStatus).send(appError.toBody())
  })
  server.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send(new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`).toBody())
  })
}

/** One line per request (the quiet routes at debug). */
function logRequests(server: FastifyInstance, app: AppContext) {
  const requestLog = app.logger.child({ subsystem: 'http' })
  server.addHook('onResponse', async (request, reply) => {
    const line = requestLine(request, reply.statusCode, reply.elapsedTime)
    if (QUIET_ROUTES.has(line.route)) requestLog.debug(line, 'request')
    else requestLog.info(line, 'request')
  })
}

/** Liveness, readiness and, with HERALD_METRICS_TOKEN, /metrics: served by every role. */
function registerHealthRoutes(server: FastifyInstance, app: AppContext) {
  server.get('/healthz', async () => ({ ok: true, sandbox: app.config.sandbox }))
  server.get('/readyz', async (_request, reply) => {
    const ready = await isReachable(app.store)
    reply.code(ready ? 200 : 503).send({ ok: ready, database: ready ? 'reachable' : 'unreachable' })
  })
  // /metrics is off the public port unless HERALD_METRICS_TOKEN is set (then it takes that bearer token);
  // HERALD_METRICS_LISTEN serves it on a listener of its own (buildMetricsServer).
  const metricsToken = app.config.metrics.token
  if (metricsToken) {
    const scrape = metricsScraper(app)
    server.get('/metrics', async (request, reply) => {
      const sent = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? ''
      if (!sent || !safeEqual(sent, metricsToken))
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="herald-metrics"')
          .send(
            new AppError('unauthorized', 'The metrics need HERALD_METRICS_TOKEN as a bearer token').toBody(),
          )
      return reply.type(METRICS_CONTENT_TYPE).send(await scrape())
    })
  }
}
