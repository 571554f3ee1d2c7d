import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { paramsOf } from './graph-routes.js'
import type { MetaSandboxState } from './state.js'

/**
 * The consent pages of Facebook Login (`${prefix}/www/{version}/dialog/oauth`) and Instagram Login
 * (`${prefix}/instagram/oauth/authorize`), and Instagram Login's code exchange
 * (`${prefix}/api-instagram/oauth/access_token`). A consent page asks for a user name (a Facebook user
 * gets a Page of that name with a linked Instagram professional account; an Instagram Login user is an
 * Instagram professional account without a Page) and one checkbox per requested scope; the form posts
 * `username`, `granted_scope` (repeated) and `decision=authorize` back to the same path.
 */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function allValues(request: FastifyRequest, name: string): string[] {
  const out: string[] = []
  const url = new URL(request.url, 'http://sandbox.invalid')
  out.push(...url.searchParams.getAll(name))
  if (request.body instanceof URLSearchParams) out.push(...request.body.getAll(name))
  return out
}

const challenges = new Map<string, string>()

export function registerOAuthRoutes(app: FastifyInstance, state: MetaSandboxState): void {
  const consent =
    (flavour: 'facebook' | 'instagram') => async (request: FastifyRequest, reply: FastifyReply) => {
      const params = paramsOf(request)
      const redirectUri = params.redirect_uri ?? ''
      let redirect: URL
      try {
        redirect = new URL(redirectUri)
      } catch {
        return reply.code(400).type('text/html').send('<p>Invalid redirect_uri</p>')
      }
      if (!params.client_id) return reply.code(400).type('text/html').send('<p>Missing client_id</p>')
      if (params.response_type !== 'code')
        return reply.code(400).type('text/html').send('<p>response_type must be code</p>')
      const scopes = (params.scope ?? '').split(/[\s,]+/).filter(Boolean)
      if (request.method === 'GET') {
        const hidden = Object.entries(params)
          .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
          .join('')
        const boxes = scopes
          .map(
            (s) =>
              `<label><input type="checkbox" name="granted_scope" value="${escapeHtml(s)}" checked> ${escapeHtml(s)}</label><br>`,
          )
          .join('')
        return reply
          .type('text/html')
          .send(
            `<!doctype html><title>${flavour === 'facebook' ? 'Facebook' : 'Instagram'} (sandbox)</title><form method="post">${hidden}<label>User name <input name="username" required></label><br>${boxes}<button name="decision" value="authorize">Continue</button><button name="decision" value="cancel">Cancel</button></form>`,
          )
      }
      const back = new URL(redirect)
      if (params.state) back.searchParams.set('state', params.state)
      if (params.decision !== 'authorize') {
        back.searchParams.set('error', 'access_denied')
        back.searchParams.set('error_reason', 'user_denied')
        return reply.redirect(back.toString(), 302)
      }
      const username = (params.username ?? '').trim()
      if (!/^[A-Za-z0-9._ -]{1,60}$/.test(username))
        return reply.code(400).type('text/html').send('<p>Give a user name (letters, digits, . _ -)</p>')
      const granted = allValues(request, 'granted_scope').filter((s) => scopes.includes(s))
      const subject =
        flavour === 'facebook' ? state.ensureUser(username).id : state.ensureIgOnlyUser(username).id
      const code = state.issueCode(subject, granted, redirectUri, flavour)
      if (params.code_challenge) challenges.set(code, params.code_challenge)
      back.searchParams.set('code', code)
      // Instagram appends `#_` to the redirect, which clients must strip.
      return reply.redirect(`${back.toString()}${flavour === 'instagram' ? '#_' : ''}`, 302)
    }
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
