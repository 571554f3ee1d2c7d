import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { type CallKind, installFaultHooks } from '../fault-hooks.js'
import type { Fault, FaultInjector } from '../fault-injector.js'
import { registerGoogleRevokeRoute } from '../youtube/revoke-route.js'
import { registerApiRoutes } from './api-routes.js'
import { registerControlRoutes } from './control-routes.js'
import { faultBody, rpcError } from './google-errors.js'
import type { ControlFault, GoogleBusinessSandboxOptions } from './model.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { registerPostRoutes } from './post-routes.js'
import { GoogleBusinessSandbox } from './state.js'
import { registerGoogleBusinessWebPages } from './web-routes.js'

export type { GoogleBusinessSandboxOptions, SimLocalPost, SimLocation } from './model.js'
export { GoogleBusinessSandbox } from './state.js'

/**
 * A simulator of Google Business Profile for tests and demo mode: Google's OAuth, and the four APIs a
 * profile's posts and figures live on, each under the path of its host. Point Herald at it with
 *
 *   accounts.google.com/o/oauth2/v2/auth  → `${origin}${prefix}/o/oauth2/v2/auth`
 *   oauth2.googleapis.com/token           → `${origin}${prefix}/token`
 *   mybusiness.googleapis.com             → `${origin}${prefix}/mybusiness` (local posts, v4)
 *   mybusinessaccountmanagement…          → `${origin}${prefix}/mybusinessaccountmanagement`
 *   mybusinessbusinessinformation…        → `${origin}${prefix}/mybusinessbusinessinformation`
 *   businessprofileperformance…           → `${origin}${prefix}/businessprofileperformance`
 *   local.google.com                      → `${origin}${prefix}/web` (a post as Search shows it)
 *
 * Errors use Google's envelope (`status`, `details`); a project without access meets a quota of 0 on
 * every call; each API allows 300 calls a minute; every request is asked of the fault injector (and of the
 * control surface's queue) first. Returns the state, whose methods are the control surface for in-process
 * tests.
 */
export function registerGoogleBusinessSandbox(
  server: FastifyInstance,
  options: GoogleBusinessSandboxOptions,
): GoogleBusinessSandbox {
  const sandbox = new GoogleBusinessSandbox(options)
  server.register(
    async (app) => {
      installFaultHooks(app, {
        network: 'googlebusiness',
        injector: withControlFaults(sandbox, options.faults),
        prefix: sandbox.prefix,
        classify: (request, path) => googleBusinessCallKind(request, path),
        answer: (status, call) => faultBody(status, call.path.split('/')[1] ?? 'mybusiness'),
      })
      prepareApp(app)
      registerOAuthRoutes(app, sandbox)
      registerGoogleRevokeRoute(app, sandbox.oauth)
      registerApiRoutes(app, sandbox)
      registerPostRoutes(app, sandbox)
      registerControlRoutes(app, sandbox)
    },
    { prefix: sandbox.prefix },
  )
  registerGoogleBusinessWebPages(server, sandbox, `${sandbox.prefix}/web`)
  return sandbox
}

/** JSON and form bodies whatever the host server accepts, and Google's envelope for every failure. */
function prepareApp(app: FastifyInstance) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_r, text, done) => {
      const source = typeof text === 'string' ? text : text.toString('utf8')
      if (source.trim() === '') return done(null, undefined)
      try {
        done(null, JSON.parse(source))
      } catch {
        done(Object.assign(new Error('Invalid JSON payload received.'), { statusCode: 400 }), undefined)
      }
    },
  )
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_r, text, done) =>
      done(null, new URLSearchParams(typeof text === 'string' ? text : text.toString('utf8'))),
  )
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? 400 : 500
    const { body } =
      status === 400
        ? rpcError('INVALID_ARGUMENT', error.message)
        : rpcError('INTERNAL', 'Internal error encountered.')
    return reply.code(status).send(body)
  })
  app.setNotFoundHandler((_request, reply) => {
    const { status, body } = rpcError('NOT_FOUND', 'Requested entity was not found.')
    return reply.code(status).send(body)
  })
}

/** The control surface's queued faults first (the demo's and the command-line tests'), then the injector's. */
function withControlFaults(sandbox: GoogleBusinessSandbox, faults: FaultInjector | undefined): FaultInjector {
  return {
    decide(call) {
      const queued = sandbox.takeControlFault(call.operation)
      return queued ? asFault(queued) : faults?.decide(call)
    },
    shortPage: (call) => faults?.shortPage?.(call),
  }
}

function asFault(queued: ControlFault): Fault {
  const after = queued.action === 'error_after' || queued.action === 'drop_after'
  const drop = queued.action.startsWith('drop')
  return {
    timing: after ? 'after' : 'before',
    answer: drop ? { kind: 'reset' } : { kind: 'status', status: queued.status ?? 500 },
  }
}

/**
 * What a call is, for the fault injector: only creating a local post can make anything public. Reads of
 * accounts, locations, posts and figures, the token endpoint and the consent page are not.
 */
export function googleBusinessCallKind(request: FastifyRequest, path: string): CallKind {
  if (/^\/mybusiness\/v4\/accounts\/[^/]+\/locations\/[^/]+\/localPosts$/.test(path))
    return request.method === 'POST'
      ? { operation: 'localPosts.create', effectful: true }
      : { operation: 'localPosts.list', effectful: false }
  if (/^\/mybusiness\/v4\/.+\/localPosts\/[^/]+$/.test(path))
    return { operation: 'localPosts.get', effectful: false }
  if (path.startsWith('/mybusinessaccountmanagement/'))
    return { operation: 'accounts.list', effectful: false }
  if (/^\/mybusinessbusinessinformation\/v1\/accounts\//.test(path))
    return { operation: 'locations.list', effectful: false }
  if (path.startsWith('/mybusinessbusinessinformation/'))
    return { operation: 'locations.get', effectful: false }
  if (path.startsWith('/businessprofileperformance/'))
    return { operation: 'locations.fetchMultiDailyMetricsTimeSeries', effectful: false }
  if (path === '/token') return { operation: 'token', effectful: false }
  if (path === '/revoke') return { operation: 'revoke', effectful: false }
  if (path.startsWith('/o/oauth2/')) return { operation: 'consent', effectful: false }
  return { operation: `${request.method} ${path}`, effectful: request.method !== 'GET' }
}
