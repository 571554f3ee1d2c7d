import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { type CallKind, installFaultHooks } from '../fault-hooks.js'
import { registerApiRoutes } from './api-routes.js'
import { registerControlRoutes } from './control-routes.js'
import { googleError } from './google-errors.js'
import type { YouTubeSandboxOptions } from './model.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { registerGoogleRevokeRoute } from './revoke-route.js'
import { YouTubeSandbox } from './state.js'
import { registerUploadRoutes } from './upload-routes.js'
import { registerYouTubeWebPages } from './web-routes.js'

/**
 * A simulator of Google OAuth and the YouTube Data API v3, for tests and demo mode. Mounted under
 * `prefix` on any Fastify server; point Herald at it with
 *
 *   authorizeUrl = `${origin}${prefix}/o/oauth2/v2/auth`
 *   tokenUrl     = `${origin}${prefix}/token`
 *   apiUrl       = `${origin}${prefix}`
 *   webUrl       = `${origin}${prefix}/web` (www.youtube.com's watch pages)
 *
 * Routes under the prefix:
 * - `GET|POST /o/oauth2/v2/auth`: the consent page (account picker, per-scope checkboxes, Allow/Deny);
 * - `POST /token`: authorization_code (PKCE S256 or plain verified, single-use codes) and refresh_token;
 * - `GET /youtube/v3/channels`, `GET /youtube/v3/videos`: channels.list and videos.list;
 * - `POST /upload/youtube/v3/videos?uploadType=resumable&part=...`: opens an upload session, answering
 *   `Location: ${origin}${prefix}/upload/youtube/v3/videos?uploadType=resumable&upload_id=...`;
 * - `PUT` on that Location: the bytes, streamed and counted (kept only when small), or a status query;
 * - `/_sandbox/...`: the control surface (see control-routes.ts).
 *
 * Errors use Google's envelope with YouTube's reasons: 401 authError, 403 insufficientPermissions,
 * 403 quotaExceeded, 400 uploadLimitExceeded, 400 invalidTitle, ... Returns the sandbox's state object,
 * whose methods do what the control surface does, for in-process tests.
 */
export function registerYouTubeSandbox(
  server: FastifyInstance,
  options: YouTubeSandboxOptions,
): YouTubeSandbox {
  const sandbox = new YouTubeSandbox(options)
  server.register(
    async (app) => {
      if (options.faults)
        installFaultHooks(app, {
          network: 'youtube',
          injector: options.faults,
          prefix: sandbox.prefix,
          classify: youtubeCallKind,
          answer: (status) => {
            const reason =
              status === 429 ? 'rateLimitExceeded' : status >= 500 ? 'backendError' : 'badContent'
            const { body } = googleError(reason, {
              code: status,
              ...(status === 429
                ? { message: 'The request was throttled; retry after the time given.' }
                : {}),
            })
            return {
              body,
              headers: {
                'content-type': 'application/json; charset=UTF-8',
                ...(status === 429 ? { 'retry-after': '30' } : {}),
              },
            }
          },
        })
      // This plugin reads its own bodies whatever the host server accepts: JSON, forms, and raw uploads
      // left unread for the upload route to stream.
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
            done(
              Object.assign(new Error('Parse Error'), { statusCode: 400, code: 'SANDBOX_PARSE_ERROR' }),
              undefined,
            )
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
      app.setErrorHandler((error: FastifyError, _request, reply) => {
        const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
        const { body } = googleError(
          status === 400 ? 'parseError' : status >= 500 ? 'internalError' : 'badContent',
          {
            code: status,
            ...(status < 500 ? { message: error.message } : {}),
          },
        )
        return reply.code(status).send(body)
      })
      app.setNotFoundHandler((_request, reply) => {
        const { status, body } = googleError('notFound')
        return reply.code(status).send(body)
      })
      registerOAuthRoutes(app, sandbox)
      registerGoogleRevokeRoute(app, sandbox.oauth)
      registerApiRoutes(app, sandbox)
      registerUploadRoutes(app, sandbox)
      registerControlRoutes(app, sandbox)
    },
    { prefix: sandbox.prefix },
  )
  registerYouTubeWebPages(server, sandbox, `${sandbox.prefix}/web`)
  return sandbox
}

export {
  type Fault,
  type FaultOp,
  type SandboxAccount,
  type SandboxChannel,
  type SandboxUpload,
  type SandboxVideo,
  SCOPE,
  type YouTubeSandboxOptions,
} from './model.js'
export { YouTubeSandbox } from './state.js'

/**
 * What a call to the YouTube simulator is, for the fault injector. Only a PUT carrying bytes on an upload
 * session can make something visible: the one that completes the session makes the video. Opening the
 * session, a status query (`Content-Range: bytes *\/<size>`) and reads are not.
 */
export function youtubeCallKind(request: FastifyRequest, path: string): CallKind {
  if (path === '/upload/youtube/v3/videos') {
    if (request.method === 'POST') return { operation: 'videos.insert', effectful: false }
    const range = request.headers['content-range']
    const statusQuery = typeof range === 'string' && /^bytes \*\/\d+$/.test(range.trim())
    return statusQuery
      ? { operation: 'upload.status', effectful: false }
      : { operation: 'upload', effectful: true }
  }
  if (path === '/youtube/v3/channels') return { operation: 'channels.list', effectful: false }
  if (path === '/youtube/v3/commentThreads')
    return request.method === 'POST'
      ? { operation: 'commentThreads.insert', effectful: true }
      : { operation: 'commentThreads.list', effectful: false }
  if (path === '/youtube/v3/videos')
    return {
      operation: request.method === 'GET' ? 'videos.list' : `videos.${request.method}`,
      effectful: request.method !== 'GET',
    }
  if (path === '/token') return { operation: 'token', effectful: false }
  if (path === '/revoke') return { operation: 'revoke', effectful: false }
  if (path.startsWith('/o/oauth2/')) return { operation: 'consent', effectful: false }
  return { operation: `${request.method} ${path}`, effectful: request.method !== 'GET' }
}
