import type { FastifyInstance } from 'fastify'
import { prepareMetaApp } from '../meta-common/graph-app.js'
import { registerControlRoutes } from './control-routes.js'
import { registerGraphRoutes } from './graph-routes.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { type MetaSandboxOptions, MetaSandboxState } from './state.js'

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
 *
 * Every Graph call is checked against Meta's own spec files (a mismatch is a 400 `(#100)` and is
 * recorded in `violations`), answers carry `X-App-Usage` / `X-Business-Use-Case-Usage`, errors use
 * Meta's envelope, containers move IN_PROGRESS → FINISHED / ERROR / EXPIRED, `media_publish` honours a
 * rolling 24-hour allowance, and the Meta fetcher downloads every media URL and checks its bytes.
 * Returns the state, whose methods are the control surface for in-process tests.
 */
export function registerMetaSandbox(server: FastifyInstance, options: MetaSandboxOptions): MetaSandbox {
  const state = new MetaSandboxState(options)
  server.register(
    async (app) => {
      prepareMetaApp(app)
      registerOAuthRoutes(app, state)
      registerGraphRoutes(app, state, 'facebook', '/graph')
      registerGraphRoutes(app, state, 'instagram', '/ig')
      registerControlRoutes(app, state)
    },
    { prefix: state.prefix },
  )
  return state
}
