import type { FastifyError, FastifyInstance } from 'fastify'
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
      app.removeAllContentTypeParsers()
      app.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: 1024 * 1024 },
        (_request, text, done) =>
          done(null, new URLSearchParams(typeof text === 'string' ? text : text.toString('utf8'))),
      )
      app.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: 1024 * 1024 },
        (_request, text, done) => {
          try {
            const source = typeof text === 'string' ? text : text.toString('utf8')
            done(null, source.trim() === '' ? undefined : JSON.parse(source))
          } catch {
            done(Object.assign(new Error('Parse Error'), { statusCode: 400 }), undefined)
          }
        },
      )
      app.addContentTypeParser('*', (_request, _payload, done) => done(null))
      app.setErrorHandler((error: FastifyError, _request, reply) => {
        const status =
          error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
        return reply.code(status).send({
          error: {
            message: status === 500 ? 'An unknown error has occurred.' : error.message,
            type: 'OAuthException',
            code: status === 500 ? 1 : 100,
            fbtrace_id: 'SbxError',
          },
        })
      })
      registerOAuthRoutes(app, state)
      registerGraphRoutes(app, state, 'facebook', '/graph')
      registerGraphRoutes(app, state, 'instagram', '/ig')
      registerControlRoutes(app, state)
    },
    { prefix: state.prefix },
  )
  return state
}
