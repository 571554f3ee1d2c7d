import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type CallKind, installFaultHooks } from '../fault-hooks.js'
import { graphSegments, metaFaultBody } from '../meta-common/faults.js'
import { prepareMetaApp } from '../meta-common/graph-app.js'
import { paramsOf } from '../meta-common/graph-params.js'
import { registerApiRoutes } from './api-routes.js'
import { registerControlRoutes } from './control-routes.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { type ThreadsSandboxOptions, ThreadsSandboxState } from './state.js'
import { registerThreadsWebPages } from './web-routes.js'

export type { Fault, FaultOp, FetchCheck, ThreadsSandboxOptions } from './state.js'
export { THREADS_SCOPES, ThreadsSandboxState } from './state.js'

export type ThreadsSandbox = ThreadsSandboxState

/**
 * A simulator of the Threads API for tests and demo mode. Mounted under `prefix`; point Herald at it with
 *
 *   threads.net/oauth/authorize → `${origin}${prefix}/oauth/authorize`
 *   graph.threads.net           → `${origin}${prefix}/graph`
 *   www.threads.net             → `${origin}${prefix}/web` (the thread and profile pages)
 *
 * Every call is checked against Meta's own Threads collection (a mismatch is a 400 `(#100)` recorded in
 * `violations`), errors use Meta's envelope, containers move IN_PROGRESS → FINISHED / ERROR / EXPIRED,
 * `threads_publish` answers code 24 for a container that is not ready and honours the rolling 250-post
 * allowance, and the Meta fetcher downloads every media URL and checks its bytes. The permalinks name the
 * simulator's own pages when `publicUrl` is given (sandbox mode). Returns the state, whose methods are
 * the control surface for in-process tests.
 */
export function registerThreadsSandbox(
  server: FastifyInstance,
  options: ThreadsSandboxOptions,
): ThreadsSandbox {
  const state = new ThreadsSandboxState(options)
  server.register(
    async (app) => {
      if (options.faults)
        installFaultHooks(app, {
          network: 'threads',
          injector: options.faults,
          prefix: state.prefix,
          classify: (request, path) => threadsCallKind(state, request, path),
          answer: metaFaultBody,
        })
      prepareMetaApp(app)
      registerOAuthRoutes(app, state)
      registerApiRoutes(app, state)
      registerControlRoutes(app, state)
    },
    { prefix: state.prefix },
  )
  registerThreadsWebPages(server, state, `${state.prefix}/web`)
  return state
}

/**
 * What a call to the Threads simulator is, for the fault injector: the Graph edge as the operation
 * (`container_status` for a container read, `node` for another object), and whether it can make something
 * visible: `threads_publish`, a reply or a delete, and a container only when it asks to publish itself
 * (`auto_publish_text=true`); other containers are seen by nobody.
 */
export function threadsCallKind(state: ThreadsSandboxState, request: FastifyRequest, path: string): CallKind {
  if (!path.startsWith('/graph/')) return { operation: 'consent', effectful: false }
  const rest = path.slice('/graph'.length)
  const versioned = /^\/v\d+\.\d+\//.test(rest)
  const { id = '', edge } = graphSegments(rest)
  if (!versioned) return { operation: edge ? `${id}/${edge}` : id, effectful: false }
  const operation = state.containers.has(id) && !edge ? 'container_status' : (edge ?? 'node')
  if (request.method === 'DELETE') return { operation, effectful: true }
  if (request.method !== 'POST') return { operation, effectful: false }
  if (edge === 'threads') return { operation, effectful: paramsOf(request).auto_publish_text === 'true' }
  return { operation, effectful: true }
}
