import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type CallKind, installFaultHooks } from '../fault-hooks.js'
import { graphSegments, metaFaultBody } from '../meta-common/faults.js'
import { prepareMetaApp } from '../meta-common/graph-app.js'
import { paramsOf } from '../meta-common/graph-params.js'
import { registerControlRoutes } from './control-routes.js'
import { registerGraphRoutes } from './graph-routes.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { type MetaSandboxOptions, MetaSandboxState } from './state.js'
import { registerMetaWebPages } from './web-routes.js'

export type { Fault, FaultOp, FetchCheck, MetaSandboxOptions } from './state.js'
export { FACEBOOK_SCOPES, INSTAGRAM_LOGIN_SCOPES, MetaSandboxState } from './state.js'

export type MetaSandbox = MetaSandboxState

/**
 * A simulator of Meta's Graph API for Facebook Pages and Instagram, for tests and demo mode. Mounted
 * under `prefix`; point Herald at it with
 *
 *   graph.facebook.com      → `${origin}${prefix}/graph`
 *   graph.instagram.com     → `${origin}${prefix}/ig`
 *   www.facebook.com        → `${origin}${prefix}/www` (the `/{version}/dialog/oauth` consent page)
 *   www.instagram.com       → `${origin}${prefix}/instagram` (`/oauth/authorize`)
 *   api.instagram.com       → `${origin}${prefix}/api-instagram` (`/oauth/access_token`)
 *   www.facebook.com posts  → `${origin}${prefix}/web/facebook` (the post and Page pages)
 *   www.instagram.com posts → `${origin}${prefix}/web/instagram` (the post and account pages)
 *
 * Every Graph call is checked against Meta's own spec files (a mismatch is a 400 `(#100)` and is
 * recorded in `violations`), answers carry `X-App-Usage` / `X-Business-Use-Case-Usage`, errors use
 * Meta's envelope, containers move IN_PROGRESS → FINISHED / ERROR / EXPIRED, `media_publish` honours a
 * rolling 24-hour allowance, and the Meta fetcher downloads every media URL and checks its bytes. The
 * permalinks name the simulator's own pages when `publicUrl` is given (sandbox mode). Returns the state, whose methods are the control surface for in-process tests.
 */
export function registerMetaSandbox(server: FastifyInstance, options: MetaSandboxOptions): MetaSandbox {
  const state = new MetaSandboxState(options)
  server.register(
    async (app) => {
      if (options.faults)
        installFaultHooks(app, {
          network: 'facebook',
          injector: options.faults,
          prefix: state.prefix,
          classify: (request, path) => metaCallKind(state, request, path),
          answer: metaFaultBody,
        })
      prepareMetaApp(app)
      registerOAuthRoutes(app, state)
      registerGraphRoutes(app, state, 'facebook', '/graph')
      registerGraphRoutes(app, state, 'instagram', '/ig')
      registerControlRoutes(app, state)
    },
    { prefix: state.prefix },
  )
  registerMetaWebPages(server, state)
  return state
}

/** Graph edges whose POST makes something people see: a Page post, a published video, a comment. */
const PUBLISHING_EDGES = new Set(['feed', 'videos', 'media_publish', 'comments', 'replies'])

/**
 * What a call to the Meta simulator is, for the fault injector: the network (Instagram for its own host and
 * for Instagram objects on graph.facebook.com), the Graph edge as the operation (`node` for the object
 * itself, `container_status` for a container read), and whether it can make something visible: a POST to
 * `feed`, `videos`, `media_publish`, `comments` or `replies`, a POST to `photos` unless `published=false`,
 * any DELETE. Containers (`media`) and unpublished photos are seen by nobody.
 */
export function metaCallKind(state: MetaSandboxState, request: FastifyRequest, path: string): CallKind {
  const host = /^\/(graph|ig)\//.exec(path)?.[1]
  if (!host) {
    const network = path.startsWith('/www/') ? 'facebook' : 'instagram'
    return {
      network,
      operation: path.includes('access_token') ? 'oauth/access_token' : 'consent',
      effectful: false,
    }
  }
  const { id = '', edge } = graphSegments(path.slice(host.length + 1))
  const node = state.nodeOf(id, host === 'ig' ? 'instagram' : 'facebook')
  const network =
    host === 'ig' || node?.startsWith('IG') || node === 'ShadowIGMediaBuilder' ? 'instagram' : 'facebook'
  if (id === 'oauth' || id === 'access_token' || id === 'refresh_access_token')
    return { network, operation: edge ? `${id}/${edge}` : id, effectful: false }
  const operation = node === 'ShadowIGMediaBuilder' && !edge ? 'container_status' : (edge ?? 'node')
  if (request.method === 'DELETE') return { network, operation, effectful: true }
  if (request.method !== 'POST') return { network, operation, effectful: false }
  if (edge === 'photos') return { network, operation, effectful: paramsOf(request).published !== 'false' }
  return { network, operation, effectful: edge === undefined || PUBLISHING_EDGES.has(edge) }
}
