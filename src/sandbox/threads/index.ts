import type { FastifyInstance } from 'fastify'
import { prepareMetaApp } from '../meta-common/graph-app.js'
import { registerApiRoutes } from './api-routes.js'
import { registerControlRoutes } from './control-routes.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { type ThreadsSandboxOptions, ThreadsSandboxState } from './state.js'

export type { Fault, FaultOp, FetchCheck, ThreadsSandboxOptions } from './state.js'
export { THREADS_SCOPES, ThreadsSandboxState } from './state.js'

export type ThreadsSandbox = ThreadsSandboxState

/**
 * A simulator of the Threads API for tests and demo mode. Mounted under `prefix`; point Herald at it with
 *
 *   threads.net/oauth/authorize → `${origin}${prefix}/oauth/authorize`
 *   graph.threads.net           → `${origin}${prefix}/graph`
 *
 * Every call is checked against Meta's own Threads collection (a mismatch is a 400 `(#100)` recorded in
 * `violations`), errors use Meta's envelope, containers move IN_PROGRESS → FINISHED / ERROR / EXPIRED,
 * `threads_publish` answers code 24 for a container that is not ready and honours the rolling 250-post
 * allowance, and the Meta fetcher downloads every media URL and checks its bytes. Returns the state,
 * whose methods are the control surface for in-process tests.
 */
export function registerThreadsSandbox(
  server: FastifyInstance,
  options: ThreadsSandboxOptions,
): ThreadsSandbox {
  const state = new ThreadsSandboxState(options)
  server.register(
    async (app) => {
      prepareMetaApp(app)
      registerOAuthRoutes(app, state)
      registerApiRoutes(app, state)
      registerControlRoutes(app, state)
    },
    { prefix: state.prefix },
  )
  return state
}
