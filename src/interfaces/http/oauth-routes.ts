import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createRateLimiter } from '../../modules/accounts/rate-limit.js'
import type { AppContext } from '../../modules/app-context.js'
import { OAUTH_ROUTES } from '../../modules/oauth-server/provider.js'
import { mcpResource, serviceResource } from '../../modules/oauth-server/resource.js'
import { SCOPES } from '../../modules/oauth-server/scopes.js'
import type { OAuthServer } from '../../modules/oauth-server/service.js'

/** Dynamic client registrations allowed per address per minute (each is a row until it expires unused). */
const REGISTRATIONS_PER_MINUTE = 10

/**
 * Discovery and the authorization server's endpoints. The protected-resource metadata (RFC 9728) is
 * Herald's own; the authorization server's metadata (RFC 8414) and its endpoints (authorize, token,
 * register, revoke) are the library's, reached through one raw pass-through: the library reads its own
 * bodies, so this scope parses none.
 */
export function registerOAuthRoutes(server: FastifyInstance, app: AppContext, oauth: OAuthServer) {
  const base = app.config.publicBaseUrl
  const protectedResource = (resource: string) => ({
    resource,
    authorization_servers: [base],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Herald',
    resource_documentation: `${base}/docs`,
  })
  const json = (reply: FastifyReply, body: unknown) =>
    reply
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=3600')
      .type('application/json')
      .send(body)
  server.get('/.well-known/oauth-protected-resource', async (_request, reply) =>
    json(reply, protectedResource(serviceResource(base))),
  )
  server.get('/.well-known/oauth-protected-resource/mcp', async (_request, reply) =>
    json(reply, protectedResource(mcpResource(base))),
  )

  const handle = oauth.provider.callback()
  // The library builds its endpoint URLs from the request; they must be PUBLIC_BASE_URL's, whatever proxy
  // or address the request came through, and never what a client claims in forwarding headers: the
  // forwarding headers it reads are the ones set below.
  oauth.provider.proxy = true
  const publicUrl = new URL(base)
  const registrations = createRateLimiter(REGISTRATIONS_PER_MINUTE)
  const passThrough = async (request: FastifyRequest, reply: FastifyReply) => {
    // The library's router takes `/oauth/register/` as the registration endpoint too: both are limited.
    const path = (request.url.split('?')[0] ?? '').replace(/\/+$/, '')
    if (request.method === 'POST' && path === OAUTH_ROUTES.registration) {
      const wait = registrations.hit(request.ip, app.clock.now())
      if (wait > 0) {
        reply
          .code(429)
          .header('retry-after', String(wait))
          .type('application/json')
          .send({
            error: 'temporarily_unavailable',
            error_description: `Too many registrations from this address; try again in ${wait} seconds`,
          })
        return
      }
    }
    // The library's client address (what the metadata-document fetches are counted by) is the one Fastify
    // finds under HERALD_TRUST_PROXY: each client behind a trusted proxy, never the proxy for all of them,
    // and the socket's address when no proxy is trusted. Read before the forwarding headers go: Fastify
    // reads them when asked.
    const client = request.ip
    const headers = request.raw.headers
    for (const name of ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-port'])
      delete headers[name]
    headers.host = publicUrl.host
    headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1)
    headers['x-forwarded-for'] = client
    reply.hijack()
    await handle(request.raw, reply.raw)
  }

  server.register(async (scope) => {
    // The library parses its own request bodies (forms and JSON): nothing is read before it.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined))
    // RFC 8414 metadata is the library's discovery document (which already names every endpoint).
    scope.get('/.well-known/oauth-authorization-server', async (request, reply) => {
      request.raw.url = '/.well-known/openid-configuration'
      return passThrough(request, reply)
    })
    scope.get('/.well-known/openid-configuration', passThrough)
    for (const path of Object.values(OAUTH_ROUTES)) {
      scope.all(path, passThrough)
      scope.all(`${path}/:id`, passThrough)
    }
  })
}
