import type { FastifyError, FastifyInstance } from 'fastify'
import { type CallTable, fromTable, installFaultHooks } from '../fault-hooks.js'
import { registerApiRoutes } from './api-routes.js'
import { registerOAuthRoutes } from './oauth-routes.js'
import { type Fault, type LinkedInSandboxOptions, LinkedInSandboxState } from './state.js'
import { registerLinkedInWebPages } from './web-routes.js'

export type { Fault, FaultOp, LinkedInSandboxOptions } from './state.js'
export { LinkedInSandboxState } from './state.js'
export type LinkedInSandbox = LinkedInSandboxState

const FAULT_OPS = ['posts', 'userinfo', 'token', 'images', 'videos', 'statistics']

/**
 * The LinkedIn calls the simulator serves; only the post's create makes something people see. Image and
 * video uploads (initialize, the byte PUTs, finalize) make assets nobody sees until a post names them.
 * Routes not listed (added later) count as effectful unless they are GETs.
 */
export const linkedinCalls: CallTable = {
  'GET /oauth/v2/authorization': { operation: 'authorization', effectful: false },
  'POST /oauth/v2/authorization': { operation: 'authorization', effectful: false },
  'POST /oauth/v2/accessToken': { operation: 'accessToken', effectful: false },
  'GET /v2/userinfo': { operation: 'userinfo', effectful: false },
  'GET /rest/organizationAcls': { operation: 'organizationAcls', effectful: false },
  'GET /rest/organizations': { operation: 'organizations', effectful: false },
  'POST /rest/images': { operation: 'images.initializeUpload', effectful: false },
  'GET /rest/images/:urn': { operation: 'images.get', effectful: false },
  'POST /rest/videos': { operation: 'videos.action', effectful: false },
  'GET /rest/videos/:urn': { operation: 'videos.get', effectful: false },
  'PUT /dms-uploads/:id': { operation: 'upload', effectful: false },
  'POST /rest/posts': { operation: 'posts.create', effectful: true },
  'GET /rest/posts': { operation: 'posts.findByAuthor', effectful: false },
  'POST /rest/socialActions/:urn/comments': { operation: 'comments.create', effectful: true },
  'GET /rest/socialActions/:urn/comments': { operation: 'comments.list', effectful: false },
}

/** LinkedIn's own answer to an injected status: its `{status, message}` body, a throttle's service code for 429. */
const linkedinFaultBody = (status: number) => ({
  body:
    status === 429
      ? {
          status,
          serviceErrorCode: 101,
          code: 'TOO_MANY_REQUESTS',
          message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
        }
      : { status, message: status >= 500 ? 'Internal Server Error' : 'Simulated refusal' },
})

/**
 * A simulator of LinkedIn for tests and demo mode, mounted under `prefix`. Point Herald at it with
 *
 *   www.linkedin.com/oauth/v2  → `${origin}${prefix}/oauth/v2`
 *   api.linkedin.com           → `${origin}${prefix}`
 *   www.linkedin.com (posts)   → `${origin}${prefix}/web` (the post pages)
 *
 * Control surface under `${prefix}/_sandbox` (never shows a token): `GET /state` (members, pages, posts
 * with the text a reader sees, uploads, contract violations), `POST /faults` `{op, status, body?,
 * afterCreate?}` fails the next call, `POST /settings` `{refreshTokens?, postsPerDay?}`, `POST /revoke` `{username, refresh?}` revokes the
 * member's access tokens (and refresh tokens). Returns the
 * state, whose methods are the control surface for in-process tests.
 */
export function registerLinkedInSandbox(
  server: FastifyInstance,
  options: LinkedInSandboxOptions,
): LinkedInSandbox {
  const state = new LinkedInSandboxState(options)
  server.register(
    async (app) => {
      if (options.faults)
        installFaultHooks(app, {
          network: 'linkedin',
          injector: options.faults,
          prefix: state.prefix,
          classify: fromTable(linkedinCalls),
          answer: linkedinFaultBody,
        })
      app.removeAllContentTypeParsers()
      app.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: 1024 * 1024 },
        (_request, text, done) => done(null, new URLSearchParams(String(text))),
      )
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
      app.addContentTypeParser(
        '*',
        { parseAs: 'buffer', bodyLimit: 600 * 1024 * 1024 },
        (_request, bytes, done) => done(null, bytes),
      )
      app.setErrorHandler((error: FastifyError, _request, reply) => {
        const status =
          error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
        return reply
          .code(status)
          .send({ status, message: status === 500 ? 'Internal Server Error' : error.message })
      })
      app.get('/_sandbox/state', async () => ({
        members: [...state.members.values()].map((m) => ({ ...m, roles: Object.fromEntries(m.roles) })),
        organizations: [...state.organizations.values()],
        posts: [...state.posts.values()],
        comments: [...state.comments.values()],
        assets: [...state.assets.values()],
        violations: state.violations,
        tokenCalls: state.tokenCalls,
      }))
      app.post('/_sandbox/revoke', async (request, reply) => {
        const body = (request.body ?? {}) as { username?: unknown; refresh?: unknown }
        const member =
          typeof body.username === 'string' ? state.members.get(body.username.toLowerCase()) : undefined
        if (!member) return reply.code(404).send({ status: 404, message: 'No such member' })
        state.revokeTokens(member.sub, body.refresh === true)
        return { revoked: member.username }
      })
      app.post('/_sandbox/faults', async (request, reply) => {
        const body = (request.body ?? {}) as Partial<Fault>
        if (
          !body.op ||
          !FAULT_OPS.includes(body.op) ||
          typeof body.status !== 'number' ||
          body.status < 400 ||
          body.status > 599
        )
          return reply
            .code(400)
            .send({ status: 400, message: `Give op (${FAULT_OPS.join(', ')}) and an error status` })
        state.faults.push({
          op: body.op,
          status: body.status,
          ...(body.body ? { body: body.body } : {}),
          ...(body.afterCreate ? { afterCreate: true } : {}),
        })
        return { queued: state.faults.length }
      })
      app.post('/_sandbox/settings', async (request) => {
        const body = (request.body ?? {}) as { refreshTokens?: unknown; postsPerDay?: unknown }
        if (typeof body.refreshTokens === 'boolean') state.refreshTokens = body.refreshTokens
        if (typeof body.postsPerDay === 'number' && body.postsPerDay >= 0)
          state.postsPerDay = body.postsPerDay
        return { refreshTokens: state.refreshTokens, postsPerDay: state.postsPerDay }
      })
      registerOAuthRoutes(app, state)
      registerApiRoutes(app, state)
    },
    { prefix: state.prefix },
  )
  registerLinkedInWebPages(server, state, `${state.prefix}/web`)
  return state
}
