import type { FastifyError, FastifyInstance } from 'fastify'
import { type CallTable, fromTable, installFaultHooks } from '../fault-hooks.js'
import type { FaultInjector } from '../fault-injector.js'
import { registerContractCheck, registerReadRoutes } from './api-routes.js'
import { queuedFaults, registerControlRoutes } from './control-routes.js'
import { CODES } from './http.js'
import { registerMediaRoutes } from './media-routes.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { registerPinRoutes } from './pin-routes.js'
import { type PinterestSandboxOptions, PinterestSandboxState } from './state.js'
import { registerPinterestWebPages } from './web-routes.js'

export type { PinterestSandboxOptions, SandboxMedia, SandboxPin } from './state.js'
export { PinterestSandboxState } from './state.js'
export type PinterestSandbox = PinterestSandboxState

/**
 * The Pinterest calls the simulator serves, named by their operation ids in Pinterest's description. Only
 * a pin's create makes something people see; registering and uploading a video make an upload nobody sees
 * until a pin names it.
 */
export const pinterestCalls: CallTable = {
  'GET /oauth/': { operation: 'oauth/consent', effectful: false },
  'POST /oauth/': { operation: 'oauth/consent', effectful: false },
  'POST /v5/oauth/token': { operation: 'oauth/token', effectful: false },
  'GET /v5/user_account': { operation: 'user_account/get', effectful: false },
  'GET /v5/boards': { operation: 'boards/list', effectful: false },
  'GET /v5/boards/:id': { operation: 'boards/get', effectful: false },
  'GET /v5/boards/:id/pins': { operation: 'boards/list_pins', effectful: false },
  'POST /v5/pins': { operation: 'pins/create', effectful: true },
  'GET /v5/pins/:id': { operation: 'pins/get', effectful: false },
  'POST /v5/media': { operation: 'media/create', effectful: false },
  'GET /v5/media/:id': { operation: 'media/get', effectful: false },
  'POST /upload/': { operation: 'media/upload', effectful: false },
  'GET /v5/pins/:id/analytics': { operation: 'pins/analytics', effectful: false },
  'GET /v5/user_account/analytics': { operation: 'user_account/analytics', effectful: false },
}

/** Pinterest's answer to an injected status: its `{code, message}` body. */
const pinterestFaultBody = (status: number) => ({
  body:
    status === 429
      ? { code: CODES.rateLimit, message: 'You have exceeded your rate limit. Try again later.' }
      : {
          code: status,
          message: status >= 500 ? 'Something went wrong on our end. Sorry about that.' : 'Refused',
        },
})

/** The control surface's queue first, then the injector the simulator was given. */
function combined(queue: FaultInjector, given: FaultInjector | undefined): FaultInjector {
  return {
    decide: (call) => queue.decide(call) ?? given?.decide(call),
    ...(given?.shortPage ? { shortPage: (call) => given.shortPage?.(call) } : {}),
    ...(given?.listingLagMs ? { listingLagMs: (network) => given.listingLagMs?.(network) ?? 0 } : {}),
  }
}

/**
 * A simulator of Pinterest's API v5 for tests and demo mode, mounted under `prefix`. Point Herald at it with
 *
 *   www.pinterest.com/oauth/  → `${origin}${prefix}/oauth/`
 *   api.pinterest.com/v5      → `${origin}${prefix}/v5`
 *   www.pinterest.com (pins)  → `${origin}${prefix}/web` (the pin pages)
 *
 * Every `/v5` request is checked against the contract written from Pinterest's description, errors are
 * Pinterest's `{code, message}`, writes and reads are metered per account and minute (429), a Trial app is
 * refused on production (code 29), video uploads go registered → processing → succeeded or failed, and
 * every call is put to the fault injector. Returns the state, the control surface for in-process tests.
 */
export function registerPinterestSandbox(
  server: FastifyInstance,
  options: PinterestSandboxOptions,
): PinterestSandbox {
  const state = new PinterestSandboxState(options)
  const queue = queuedFaults()
  server.register(
    async (app) => {
      installFaultHooks(app, {
        network: 'pinterest',
        injector: combined(queue, options.faults),
        prefix: state.prefix,
        classify: fromTable(pinterestCalls),
        answer: pinterestFaultBody,
      })
      prepareParsers(app)
      registerContractCheck(app, state)
      registerOAuthRoutes(app, state)
      registerReadRoutes(app, state)
      registerPinRoutes(app, state)
      registerMediaRoutes(app, state)
      registerControlRoutes(app, state, queue)
    },
    { prefix: state.prefix },
  )
  registerPinterestWebPages(server, state, `${state.prefix}/web`)
  return state
}

function prepareParsers(app: FastifyInstance) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_request, text, done) => done(null, new URLSearchParams(String(text))),
  )
  // A carousel of five 20 MB images inline is some 135 MB of JSON.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: 160 * 1024 * 1024 },
    (_r, text, done) => {
      try {
        const source = String(text)
        done(null, source.trim() === '' ? undefined : JSON.parse(source))
      } catch {
        done(Object.assign(new Error('The body is not JSON'), { statusCode: 400 }), undefined)
      }
    },
  )
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 * 1024 }, (_r, bytes, done) =>
    done(null, bytes),
  )
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    return reply.code(status).send({ code: status === 500 ? 500 : CODES.invalid, message: error.message })
  })
}
