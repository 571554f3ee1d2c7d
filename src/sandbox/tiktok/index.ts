import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { type CallKind, installFaultHooks } from '../fault-hooks.js'
import { registerControlRoutes } from './control-routes.js'
import { registerDisplayRoutes } from './display-routes.js'
import {
  envelope,
  faultBody,
  sendApiError,
  sendOAuthError,
  TikTokApiError,
  TikTokOAuthError,
} from './errors.js'
import type { TikTokSandboxOptions } from './model.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { registerPublishRoutes } from './publish-routes.js'
import { TikTokSandboxState } from './state.js'
import { registerUploadRoutes } from './upload-routes.js'
import { registerTikTokWebPages } from './web-routes.js'

export type { TikTokPost, TikTokSandboxOptions, TikTokUser } from './model.js'
export { TIKTOK_SCOPES } from './model.js'
export { SANDBOX_CLIENT_KEY, SANDBOX_CLIENT_SECRET, TikTokSandboxState } from './state.js'

export type TikTokSandbox = TikTokSandboxState

/**
 * A simulator of TikTok's Login Kit, Content Posting API and Display API for tests and demo mode, mounted
 * under `prefix`; point Herald at it with
 *
 *   www.tiktok.com/v2/auth/authorize/     → `${origin}${prefix}/v2/auth/authorize/`
 *   open.tiktokapis.com                   → `${origin}${prefix}` (`/v2/oauth/token/`, `/v2/post/publish/...`)
 *   open-upload.tiktokapis.com/video/     → `${origin}${prefix}/upload/video/` (the init answers it)
 *   www.tiktok.com (share URLs)           → `${origin}${prefix}/web`
 *
 * Errors use TikTok's envelopes (`error.code` is `ok` on success, even on HTTP 200), the per-token and
 * per-app budgets answer 429 `rate_limit_exceeded`, chunk uploads follow TikTok's rules exactly, photo
 * URLs are really downloaded (from verified domains only), an unaudited app's posts are private, post ids
 * are int64s above 2^53, and only public posts show in the video list. Returns the state, whose methods are
 * the control surface for in-process tests.
 */
export function registerTikTokSandbox(server: FastifyInstance, options: TikTokSandboxOptions): TikTokSandbox {
  const state = new TikTokSandboxState(options)
  server.register(
    async (app) => {
      if (options.faults)
        installFaultHooks(app, {
          network: 'tiktok',
          injector: options.faults,
          prefix: state.prefix,
          classify: (request, path) => tiktokCallKind(request, path),
          answer: (status) => faultBody(status),
        })
      readBodies(app)
      app.addHook('onRequest', async (request) => {
        state.calls.push({ method: request.method, path: request.url.split('?')[0] ?? '', at: state.now() })
      })
      app.setErrorHandler((error: FastifyError, _request, reply) => {
        if (error instanceof TikTokApiError) return sendApiError(reply, error)
        if (error instanceof TikTokOAuthError) return sendOAuthError(reply, error)
        const status =
          error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
        return reply
          .code(status)
          .send(
            envelope(
              {},
              status === 500
                ? { code: 'internal_error', message: 'Something went wrong. Please try again later.' }
                : { code: 'invalid_params', message: error.message },
            ),
          )
      })
      app.setNotFoundHandler((_request, reply) =>
        reply.code(404).send(envelope({}, { code: 'not_found', message: 'The endpoint does not exist.' })),
      )
      registerOAuthRoutes(app, state)
      registerPublishRoutes(app, state)
      registerDisplayRoutes(app, state)
      registerUploadRoutes(app, state)
      registerControlRoutes(app, state)
    },
    { prefix: state.prefix },
  )
  registerTikTokWebPages(server, state, `${state.prefix}/web`)
  return state
}

/** JSON and forms read whatever the host server accepts; upload bodies left unread for their route. */
function readBodies(app: FastifyInstance) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_request, text, done) => {
      const source = typeof text === 'string' ? text : text.toString('utf8')
      if (source.trim() === '') return done(null, undefined)
      try {
        done(null, JSON.parse(source))
      } catch {
        done(Object.assign(new Error('The request body is not JSON.'), { statusCode: 400 }), undefined)
      }
    },
  )
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, text, done) =>
      done(null, new URLSearchParams(typeof text === 'string' ? text : text.toString('utf8'))),
  )
  app.addContentTypeParser('*', (_request, _payload, done) => done(null))
}

const sourceOf = (body: unknown) =>
  (body as { source_info?: { source?: unknown } } | undefined)?.source_info?.source

/**
 * What a call to the TikTok simulator is, for the fault injector. What can make a post or a draft exist:
 * an init that hands TikTok a URL to pull (photos always; a video only by PULL_FROM_URL), and the chunk PUT
 * that completes an upload. A FILE_UPLOAD init, the chunks before the last, status polls and reads make
 * nothing anyone sees; the video list is a read served as pages.
 */
export function tiktokCallKind(request: FastifyRequest, path: string): CallKind {
  const post = '/v2/post/publish/'
  if (path === `${post}video/init/`)
    return { operation: 'video/init', effectful: sourceOf(request.body) === 'PULL_FROM_URL' }
  if (path === `${post}inbox/video/init/`)
    return { operation: 'inbox/video/init', effectful: sourceOf(request.body) === 'PULL_FROM_URL' }
  if (path === `${post}content/init/`) return { operation: 'content/init', effectful: true }
  if (path === `${post}status/fetch/`) return { operation: 'status/fetch', effectful: false }
  if (path === `${post}creator_info/query/`) return { operation: 'creator_info/query', effectful: false }
  if (path === '/upload/video/') {
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(request.headers['content-range'] ?? '').trim())
    const last = range !== null && Number(range[2]) + 1 === Number(range[3])
    return last ? { operation: 'upload', effectful: true } : { operation: 'upload.part', effectful: false }
  }
  if (path === '/v2/video/list/') return { operation: 'video/list', effectful: false, pages: true }
  if (path === '/v2/video/query/') return { operation: 'video/query', effectful: false }
  if (path === '/v2/user/info/') return { operation: 'user/info', effectful: false }
  if (path === '/v2/oauth/token/') return { operation: 'oauth/token', effectful: false }
  if (path === '/v2/oauth/revoke/') return { operation: 'oauth/revoke', effectful: false }
  if (path === '/v2/auth/authorize/') return { operation: 'authorize', effectful: false }
  return { operation: `${request.method} ${path}`, effectful: request.method !== 'GET' }
}
