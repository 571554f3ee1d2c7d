import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CODES, pinterestError } from './http.js'
import { ACCESS_TTL_S, type PinterestSandboxState, REFRESH_TTL_S } from './state.js'

/**
 * Pinterest's consent page (`/oauth/`: the account's username and one checkbox per scope asked for; the
 * form posts `username`, `granted_scope` (repeated) and `decision=authorize` back, and the account is made
 * with three boards on first use) and its token endpoint (`/v5/oauth/token`, the app as HTTP Basic:
 * authorization codes, once each, and continuous refresh tokens: each refresh answers a new refresh token
 * with a new 60-day end, and the one spent keeps working until its own end, as Pinterest's description
 * leaves it).
 */

/** The simulator's built-in app: its secret must match; any other app id is one registered with it. */
const BUILT_IN_APP = { id: 'herald-sandbox', secret: 'herald-sandbox-secret' }

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function params(request: FastifyRequest): URLSearchParams {
  const all = new URLSearchParams(new URL(request.url, 'http://sandbox.invalid').search)
  if (request.body instanceof URLSearchParams) for (const [k, v] of request.body) all.append(k, v)
  return all
}

function consentPage(all: URLSearchParams, scopes: string[]): string {
  const hidden = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state']
    .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(all.get(k) ?? '')}">`)
    .join('')
  const boxes = scopes
    .map(
      (s) =>
        `<label><input type="checkbox" name="granted_scope" value="${escapeHtml(s)}" checked> ${escapeHtml(s)}</label><br>`,
    )
    .join('')
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>Pinterest (sandbox): give access</title><main><h1>Give Herald access to your Pinterest account</h1><form method="post">${hidden}<label>Username <input name="username" required></label><br>${boxes}<button name="decision" value="authorize">Give access</button> <button name="decision" value="cancel">Cancel</button></form></main></html>`
}

export function registerOAuthRoutes(app: FastifyInstance, state: PinterestSandboxState): void {
  const consent = async (request: FastifyRequest, reply: FastifyReply) => {
    const all = params(request)
    const one = (name: string) => all.get(name) ?? ''
    let back: URL
    try {
      back = new URL(one('redirect_uri'))
    } catch {
      return reply.code(400).type('text/html').send('<p>The redirect_uri is not valid</p>')
    }
    if (!one('client_id') || one('response_type') !== 'code')
      return reply.code(400).type('text/html').send('<p>client_id and response_type=code are required</p>')
    const scopes = one('scope').split(',').filter(Boolean)
    if (request.method === 'GET') return reply.type('text/html').send(consentPage(all, scopes))
    if (one('state')) back.searchParams.set('state', one('state'))
    if (one('decision') !== 'authorize') {
      back.searchParams.set('error', 'access_denied')
      return reply.redirect(back.toString(), 302)
    }
    const username = one('username').trim()
    if (!/^[A-Za-z0-9_.-]{1,30}$/.test(username))
      return reply
        .code(400)
        .type('text/html')
        .send('<p>Give a username (letters, digits, . _ -, at most 30)</p>')
    const account = state.ensureAccount(username)
    const granted = all.getAll('granted_scope').filter((s) => scopes.includes(s))
    back.searchParams.set('code', state.issueCode(account.id, granted, one('redirect_uri')))
    return reply.redirect(back.toString(), 302)
  }
  app.route({ method: ['GET', 'POST'], url: '/oauth/', handler: consent })

  app.post('/v5/oauth/token', async (request, reply) => {
    const all = params(request)
    const one = (name: string) => all.get(name) ?? ''
    state.tokenCalls[one('grant_type')] = (state.tokenCalls[one('grant_type')] ?? 0) + 1
    if (!appAccepted(request.headers.authorization))
      return pinterestError(reply, 401, CODES.authentication, 'Authentication failed.')
    if (one('grant_type') === 'authorization_code') {
      const entry = state.codes.get(one('code'))
      if (!entry || entry.expiresAt < state.now() || entry.redirectUri !== one('redirect_uri'))
        return pinterestError(reply, 400, CODES.invalid, 'Invalid authorization code or redirect_uri.')
      state.codes.delete(one('code'))
      return tokenAnswer(state, entry.accountId, entry.scopes, 'authorization_code')
    }
    const grant = state.refreshGrants.get(one('refresh_token'))
    if (!grant || grant.revoked || grant.expiresAt <= state.now())
      return pinterestError(reply, 400, CODES.invalid, 'Invalid refresh token.')
    return tokenAnswer(state, grant.accountId, grant.scopes, 'refresh_token')
  })
}

function appAccepted(authorization: string | undefined): boolean {
  const encoded = /^Basic (\S+)$/.exec(authorization ?? '')?.[1]
  if (!encoded) return false
  const [id = '', secret = ''] = Buffer.from(encoded, 'base64').toString('utf8').split(/:(.*)/s)
  if (!id || !secret) return false
  return id !== BUILT_IN_APP.id || secret === BUILT_IN_APP.secret
}

function tokenAnswer(state: PinterestSandboxState, accountId: string, scopes: string[], kind: string) {
  const { access, refresh, refreshEnd } = state.issueTokens(accountId, scopes)
  return {
    access_token: access,
    refresh_token: refresh,
    response_type: kind,
    token_type: 'bearer',
    expires_in: ACCESS_TTL_S,
    refresh_token_expires_in: REFRESH_TTL_S,
    refresh_token_expires_at: Math.floor(refreshEnd / 1000),
    scope: scopes.join(','),
  }
}
