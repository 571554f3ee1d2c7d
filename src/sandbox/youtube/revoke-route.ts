import type { FastifyInstance } from 'fastify'
import type { GoogleOAuthStore } from './oauth-store.js'

/**
 * Google's token revocation at `/revoke` (oauth2.googleapis.com/revoke), shared by the YouTube and Google
 * Business Profile simulators: the form's `token` (access or refresh) ends its whole grant and the consent,
 * answered 200 with an empty body; a token Google does not hold (unknown, or revoked already) is
 * `400 invalid_token`. No client authentication, as Google takes none here.
 */
export function registerGoogleRevokeRoute(
  app: FastifyInstance,
  oauth: GoogleOAuthStore,
  record?: (entry: { op: 'revoke'; method: 'POST'; path: '/revoke' }) => void,
): void {
  app.post('/revoke', async (request, reply) => {
    record?.({ op: 'revoke', method: 'POST', path: '/revoke' })
    const body = request.body
    const token = body instanceof URLSearchParams ? body.get('token') : undefined
    reply.header('cache-control', 'no-cache, no-store, max-age=0, must-revalidate')
    if (!token || !oauth.revokeGrant(token))
      return reply.code(400).send({ error: 'invalid_token', error_description: 'Token expired or revoked' })
    return reply.code(200).send('')
  })
}
