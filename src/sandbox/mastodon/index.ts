import type { FastifyError, FastifyInstance } from 'fastify'
import { type CallKind, installFaultHooks } from '../fault-hooks.js'
import type { Fault, FaultInjector } from '../fault-injector.js'
import { registerApiRoutes } from './api-routes.js'
import { loadMastodonSpec } from './contract.js'
import { registerControlRoutes } from './control-routes.js'
import { bearer, MastodonError, parseForm } from './http.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import {
  type ControlFault,
  isInstanceName,
  type MastodonSandboxOptions,
  MastodonSandboxState,
} from './state.js'
import { registerMastodonWebPages } from './web-routes.js'

export type { MastodonSandboxOptions, SimStatus } from './state.js'
export { MastodonSandboxState } from './state.js'
export type MastodonSandbox = MastodonSandboxState

/**
 * A simulator of Mastodon for tests and demo mode: any number of instances, each under `${prefix}/<host>`
 * (any host name: an instance is made the first time its name is used), with Mastodon's API as the
 * description in mastodon.openapi.json gives it (a call it does not describe is a 400, recorded in
 * `violations`), Mastodon's errors, its `X-RateLimit-*` headers on every answer (300 requests per account
 * per 5 minutes, 300 statuses per 3 hours), asynchronous media processing, `Link`-header paging, and
 * `Idempotency-Key`s remembered per account for an hour of the simulator's clock. Each instance's pages
 * (a toot with its content warning) are under `${prefix}/web/<host>`. With `rootInstance`, that instance is
 * also served at the prefix itself, where real clients (masto) expect a server's API.
 */
export function registerMastodonSandbox(
  server: FastifyInstance,
  options: MastodonSandboxOptions,
): MastodonSandbox {
  const state = new MastodonSandboxState(options)
  const spec = options.contract === false ? undefined : loadMastodonSpec()
  const injector = controlledFaults(state, options.faults)
  const instanceScope = async (app: FastifyInstance) => {
    installFaultHooks(app, {
      network: 'mastodon',
      injector,
      prefix: state.prefix,
      classify: (request, _path, route) => mastodonCallKind(route, request.method),
      answer: (status) => faultBody(state, status),
    })
    addParsers(app)
    addRateLimit(app, state)
    app.setErrorHandler((error: FastifyError | MastodonError, _request, reply) => {
      if (error instanceof MastodonError) {
        const headers = (error as MastodonError & { headers?: Record<string, string> }).headers
        if (headers) reply.headers(headers)
        return reply.code(error.status).send(error.body)
      }
      const status =
        error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
      return reply
        .code(status)
        .send({ error: status === 500 ? "We're sorry, but something went wrong on our end." : error.message })
    })
    registerOAuthRoutes(app, state, spec)
    registerApiRoutes(app, state, spec)
  }
  server.register(instanceScope, { prefix: `${state.prefix}/:instance` })
  if (options.rootInstance) server.register(instanceScope, { prefix: state.prefix })
  server.register(async (app) => registerControlRoutes(app, state), { prefix: state.prefix })
  registerMastodonWebPages(server, state, `${state.prefix}/web`)
  return state
}

function addParsers(app: FastifyInstance) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_r, text, done) => {
      const source = String(text)
      try {
        done(null, source.trim() === '' ? undefined : JSON.parse(source))
      } catch {
        done(Object.assign(new Error('The body is not valid JSON'), { statusCode: 400 }), undefined)
      }
    },
  )
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_r, text, done) => done(null, parseForm(String(text))),
  )
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: 110 * 1024 * 1024 },
    (_r, bytes, done) => done(null, bytes),
  )
}

const RATE_WINDOW_MS = 5 * 60_000

/** Mastodon's per-account (per-address without a token) limit, with its headers on every answer. */
function addRateLimit(app: FastifyInstance, state: MastodonSandboxState) {
  app.addHook('preHandler', async (request, reply) => {
    const host = (
      (request.params as { instance?: string }).instance ?? state.options.rootInstance
    )?.toLowerCase()
    if (!host || !isInstanceName(host)) return
    const instance = state.instance(host)
    const token = instance.tokens.get(bearer(request) ?? '')
    const who = token?.accountId ?? token?.appId ?? request.ip
    const start = Math.floor(state.now() / RATE_WINDOW_MS) * RATE_WINDOW_MS
    const seen = (instance.requests.get(who) ?? []).filter((at) => at >= start)
    seen.push(state.now())
    instance.requests.set(who, seen)
    const limit = instance.settings.requestLimit
    reply.headers({
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - seen.length)),
      'x-ratelimit-reset': new Date(start + RATE_WINDOW_MS).toISOString(),
    })
    if (seen.length > limit) return reply.code(429).send({ error: 'Too many requests' })
  })
}

/** What a call is, for the fault injector: the Mastodon method, effectful when it can make a status public. */
const CALLS: Record<string, CallKind> = {
  'POST /api/v1/statuses': { operation: 'statuses', effectful: true },
  'DELETE /api/v1/statuses/:id': { operation: 'statuses.delete', effectful: true },
  'GET /api/v1/statuses/:id': { operation: 'statuses.get', effectful: false },
  'POST /api/v2/media': { operation: 'media', effectful: false },
  'GET /api/v1/media/:id': { operation: 'media.get', effectful: false },
  'PUT /api/v1/media/:id': { operation: 'media.update', effectful: false },
  'GET /api/v1/accounts/:id/statuses': { operation: 'accounts.statuses', effectful: false },
  'GET /api/v1/accounts/verify_credentials': { operation: 'accounts.verify_credentials', effectful: false },
  'POST /oauth/token': { operation: 'token', effectful: false },
  'POST /oauth/revoke': { operation: 'revoke', effectful: false },
  'POST /api/v1/apps': { operation: 'apps', effectful: false },
  'GET /api/v2/instance': { operation: 'instance', effectful: false },
  'GET /.well-known/oauth-authorization-server': { operation: 'instance', effectful: false },
  'GET /oauth/authorize': { operation: 'consent', effectful: false },
  'POST /oauth/authorize': { operation: 'consent', effectful: false },
}

export function mastodonCallKind(route: string, method: string): CallKind | undefined {
  const under = route.replace(/^\/:instance(?=\/)/, '')
  return CALLS[`${method} ${under}`]
}

/** The fault injector the hooks ask: a fault queued on the control surface first, then the test's. */
function controlledFaults(state: MastodonSandboxState, faults: FaultInjector | undefined): FaultInjector {
  const asFault = (control: ControlFault): Fault => {
    const status = control.status ?? (control.action.startsWith('error') ? 503 : 500)
    const timing = control.action.endsWith('after') ? 'after' : 'before'
    return {
      timing,
      answer: control.action.startsWith('drop') ? { kind: 'reset' } : { kind: 'status', status },
    }
  }
  return {
    decide(call) {
      const injected = faults?.decide(call)
      const control = state.takeFault(call.operation)
      return control ? asFault(control) : injected
    },
    ...(faults?.shortPage ? { shortPage: (call) => faults.shortPage!(call) } : {}),
    ...(faults?.listingLagMs ? { listingLagMs: (network) => faults.listingLagMs!(network) } : {}),
    ...(faults?.refusesDuplicates
      ? { refusesDuplicates: (network) => faults.refusesDuplicates!(network) }
      : {}),
  }
}

/** Mastodon's own body for an injected status, with the rate-limit headers of a 429. */
function faultBody(state: MastodonSandboxState, status: number) {
  if (status === 429)
    return {
      body: { error: 'Too many requests' },
      headers: {
        'x-ratelimit-limit': '300',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': new Date(state.now() + RATE_WINDOW_MS).toISOString(),
      },
    }
  if (status >= 500)
    return {
      body: {
        error:
          status === 503
            ? 'There was a temporary problem serving your request, please try again'
            : "We're sorry, but something went wrong on our end.",
      },
    }
  return { body: { error: 'Simulated refusal' } }
}
