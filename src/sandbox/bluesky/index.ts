import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { type CallKind, installFaultHooks } from '../fault-hooks.js'
import { loadAtprotoSpec } from './contract.js'
import { registerControlRoutes } from './control-routes.js'
import { type BlueskySandboxOptions, BlueskySandboxState } from './state.js'
import { registerBlueskyWebPages } from './web-routes.js'
import { registerXrpcRoutes } from './xrpc-routes.js'

export type { BlueskySandboxOptions, Fault, FaultAction } from './state.js'
export { BlueskySandboxState, handleFor } from './state.js'
export type BlueskySandbox = BlueskySandboxState

/**
 * A simulator of Bluesky for tests and demo mode: one PDS (with an AppView's counts behind it) and a
 * PLC directory, mounted under `prefix`. Point Herald's Bluesky adapter at it with
 *
 *   serviceUrl (bsky.social)  → `${origin}${prefix}`
 *   plcUrl (plc.directory)    → `${origin}${prefix}/plc`
 *   webUrl (bsky.app)         → `${origin}${prefix}/web` (the post pages)
 *
 * Handles resolve to `did:plc` DIDs whose documents name the simulator as the PDS; sessions are opened
 * with app passwords and carry JWT access (2 h) and refresh (90 days, rotated on use) tokens that expire
 * on the app clock; createRecord keeps the record key it is given and refuses a second write there as
 * the PDS does (500), so a retried publish cannot make a second post. Every call is checked against
 * atproto.openapi.json (a mismatch is a 400 InvalidRequest and is recorded in `violations`). Errors are
 * XRPC's `{error, message}`. Returns the state, whose methods are the control surface for in-process
 * tests (see control-routes.ts for the HTTP one).
 */
export function registerBlueskySandbox(
  server: FastifyInstance,
  options: BlueskySandboxOptions,
): BlueskySandbox {
  const state = new BlueskySandboxState(options)
  const spec = loadAtprotoSpec(options.specPath)
  server.register(
    async (app) => {
      if (options.faults)
        installFaultHooks(app, {
          network: 'bluesky',
          injector: options.faults,
          prefix: state.prefix,
          classify: blueskyCallKind,
          answer: (status) =>
            status === 429
              ? {
                  body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
                  headers: {
                    'ratelimit-limit': '5000',
                    'ratelimit-remaining': '0',
                    'ratelimit-reset': String(Math.ceil((state.clock() + RATE_WINDOW_MS) / 1000)),
                    'ratelimit-policy': '5000;w=3600',
                  },
                }
              : {
                  body:
                    status >= 500
                      ? { error: 'InternalServerError', message: 'Internal Server Error' }
                      : { error: 'InvalidRequest', message: 'Simulated refusal' },
                },
        })
      app.removeAllContentTypeParsers()
      app.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: 1024 * 1024 },
        (_request, text, done) => {
          try {
            const source = String(text)
            done(null, source.trim() === '' ? undefined : JSON.parse(source))
          } catch {
            done(Object.assign(new Error('Unexpected token in JSON'), { statusCode: 400 }), undefined)
          }
        },
      )
      // uploadBlob takes the bytes under their own content type.
      app.addContentTypeParser(
        '*',
        { parseAs: 'buffer', bodyLimit: 110 * 1024 * 1024 },
        (_request, bytes, done) => done(null, bytes),
      )
      app.setErrorHandler((error: FastifyError, _request, reply) => {
        const status =
          error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
        return reply.code(status).send({
          error: status === 500 ? 'InternalServerError' : 'InvalidRequest',
          message: status === 500 ? 'Internal Server Error' : error.message,
        })
      })
      registerXrpcRoutes(app, state, spec)
      registerControlRoutes(app, state)
    },
    { prefix: state.prefix },
  )
  registerBlueskyWebPages(server, state, `${state.prefix}/web`)
  return state
}

/** How far ahead an injected 429 puts `ratelimit-reset`: the PDS's write window is an hour. */
const RATE_WINDOW_MS = 60 * 60_000

/** XRPC methods that write to the repository: a record once written is what people see. */
const WRITES = new Set([
  'com.atproto.repo.createRecord',
  'com.atproto.repo.putRecord',
  'com.atproto.repo.deleteRecord',
  'com.atproto.repo.applyWrites',
])

/**
 * What a call to the Bluesky simulator is, for the fault injector: the XRPC method as the operation
 * (`plc.resolve` for a DID document), effectful for the repository writes only. A blob upload makes
 * nothing visible until a record names it.
 */
export function blueskyCallKind(_request: FastifyRequest, path: string): CallKind | undefined {
  if (path.startsWith('/plc/')) return { operation: 'plc.resolve', effectful: false }
  const nsid = /^\/xrpc\/([^/]+)$/.exec(path)?.[1]
  return nsid ? { operation: nsid, effectful: WRITES.has(nsid) } : undefined
}
