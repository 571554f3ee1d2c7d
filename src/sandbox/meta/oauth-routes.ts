import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { consentHandler } from '../meta-common/consent-page.js'
import { paramsOf } from '../meta-common/graph-params.js'
import type { MetaSandboxState } from './state.js'

/**
 * The consent pages of Facebook Login (`${prefix}/www/{version}/dialog/oauth`) and Instagram Login
 * (`${prefix}/instagram/oauth/authorize`), and Instagram Login's code exchange
 * (`${prefix}/api-instagram/oauth/access_token`). A consent page asks for a user name (a Facebook user
 * gets a Page of that name with a linked Instagram professional account; an Instagram Login user is an
 * Instagram professional account without a Page) and one checkbox per requested scope; the form posts
 * `username`, `granted_scope` (repeated) and `decision=authorize` back to the same path.
 */

const challenges = new Map<string, string>()

export function registerOAuthRoutes(app: FastifyInstance, state: MetaSandboxState): void {
  const consent = (flavour: 'facebook' | 'instagram') =>
    consentHandler({
      title: flavour === 'facebook' ? 'Facebook' : 'Instagram',
      // Instagram appends `#_` to the redirect, which clients must strip.
      fragment: flavour === 'instagram' ? '#_' : '',
      issueCode(username, granted, params) {
        const subject =
          flavour === 'facebook' ? state.ensureUser(username).id : state.ensureIgOnlyUser(username).id
        const code = state.issueCode(subject, granted, params.redirect_uri ?? '', flavour)
        if (params.code_challenge) challenges.set(code, params.code_challenge)
        return code
      },
    })
  app.route({ method: ['GET', 'POST'], url: '/www/:version/dialog/oauth', handler: consent('facebook') })
  app.route({ method: ['GET', 'POST'], url: '/instagram/oauth/authorize', handler: consent('instagram') })

  app.post('/api-instagram/oauth/access_token', async (request, reply) => {
    const params = paramsOf(request)
    const entry = state.codes.get(params.code ?? '')
    const refuse = (message: string) =>
      reply.code(400).send({ error_type: 'OAuthException', code: 400, error_message: message })
    if (params.grant_type !== 'authorization_code') return refuse('Unsupported grant_type')
    if (entry?.flavour !== 'instagram' || entry.expiresAt < state.now())
      return refuse('This authorization code has expired')
    if (entry.redirectUri !== params.redirect_uri)
      return refuse('Error validating verification code. redirect_uri does not match')
    const challenge = challenges.get(params.code ?? '')
    if (
      challenge &&
      createHash('sha256')
        .update(params.code_verifier ?? '')
        .digest('base64url') !== challenge
    )
      return refuse('Invalid code_verifier')
    state.codes.delete(params.code ?? '')
    const token = state.issueToken('ig', entry.userId, entry.scopes, 3600, false)
    return reply.send({
      access_token: token.token,
      user_id: Number(entry.userId),
      permissions: entry.scopes.join(','),
    })
  })
}

/** Checks a Facebook code's PKCE verifier when the dialog was given a challenge. */
export function verifierMatches(code: string, verifier: string | undefined): boolean {
  const challenge = challenges.get(code)
  if (!challenge) return true
  return (
    createHash('sha256')
      .update(verifier ?? '')
      .digest('base64url') === challenge
  )
}
