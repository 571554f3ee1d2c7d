import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { LinkedInSandboxState } from './state.js'
import { ACCESS_TTL_S } from './state.js'

/**
 * LinkedIn's authorization page (`/oauth/v2/authorization`: a user name, whose member administers two
 * pages, and one checkbox per requested scope; the form posts `username`, `granted_scope` (repeated) and
 * `decision=authorize` back) and its token endpoint (`/oauth/v2/accessToken`: authorization codes and,
 * when the simulator issues them, refresh tokens whose life is not extended by refreshing).
 */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function params(request: FastifyRequest): { all: URLSearchParams } {
  const all = new URLSearchParams(new URL(request.url, 'http://sandbox.invalid').search)
  if (request.body instanceof URLSearchParams) for (const [k, v] of request.body) all.append(k, v)
  return { all }
}

export function registerOAuthRoutes(app: FastifyInstance, state: LinkedInSandboxState): void {
  const authorization = async (request: FastifyRequest, reply: FastifyReply) => {
    const { all } = params(request)
    const one = (name: string) => all.get(name) ?? ''
    let redirect: URL
    try {
      redirect = new URL(one('redirect_uri'))
    } catch {
      return reply.code(400).type('text/html').send('<p>The redirect_uri is not valid</p>')
    }
    if (!one('client_id')) return reply.code(400).type('text/html').send('<p>Missing client_id</p>')
    if (one('response_type') !== 'code')
      return reply.code(400).type('text/html').send('<p>response_type must be code</p>')
    const scopes = one('scope')
      .split(/[\s,]+/)
      .filter(Boolean)
    if (request.method === 'GET') {
      const hidden = ['response_type', 'client_id', 'redirect_uri', 'state', 'scope']
        .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(one(k))}">`)
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
          `<!doctype html><title>LinkedIn (sandbox)</title><form method="post">${hidden}<label>Member name <input name="username" required></label><br>${boxes}<button name="decision" value="authorize">Allow</button><button name="decision" value="cancel">Cancel</button></form>`,
        )
    }
    const back = new URL(redirect)
    if (one('state')) back.searchParams.set('state', one('state'))
    if (one('decision') !== 'authorize') {
      back.searchParams.set('error', 'user_cancelled_authorize')
      back.searchParams.set('error_description', 'The user cancelled the authorization')
      return reply.redirect(back.toString(), 302)
    }
    const username = one('username').trim()
    if (!/^[A-Za-z0-9._ -]{1,60}$/.test(username))
      return reply.code(400).type('text/html').send('<p>Give a member name (letters, digits, . _ -)</p>')
    const granted = all.getAll('granted_scope').filter((s) => scopes.includes(s))
    const member = state.ensureMember(username)
    back.searchParams.set('code', state.issueCode(member.sub, granted, one('redirect_uri')))
    return reply.redirect(back.toString(), 302)
  }
  app.route({ method: ['GET', 'POST'], url: '/oauth/v2/authorization', handler: authorization })

  app.post('/oauth/v2/accessToken', async (request, reply) => {
    const { all } = params(request)
    const one = (name: string) => all.get(name) ?? ''
    const refuse = (error: string, description: string) =>
      reply.code(400).send({ error, error_description: description })
    state.tokenCalls[one('grant_type')] = (state.tokenCalls[one('grant_type')] ?? 0) + 1
    const fault = state.takeFault('token')
    if (fault) return reply.code(fault.status).send(fault.body ?? { error: 'server_error' })
    if (one('client_id') === '' || one('client_secret') === '')
      return reply
        .code(401)
        .send({ error: 'invalid_client', error_description: 'Client authentication failed' })
    if (one('grant_type') === 'authorization_code') {
      const entry = state.codes.get(one('code'))
      if (!entry || entry.expiresAt < state.now())
        return refuse(
          'invalid_grant',
          'The provided authorization grant or refresh token is invalid, expired or revoked',
        )
      if (entry.redirectUri !== one('redirect_uri'))
        return refuse(
          'invalid_redirect_uri',
          'Unable to retrieve access token: appid/redirect uri/code verifier does not match',
        )
      state.codes.delete(one('code'))
      return {
        access_token: state.issueToken(entry.sub, entry.scopes),
        expires_in: ACCESS_TTL_S,
        scope: entry.scopes.join(','),
        token_type: 'Bearer',
        ...(state.refreshTokens
          ? (() => {
              const refresh = state.issueRefresh(entry.sub, entry.scopes)
              const grant = state.refreshGrants.get(refresh)!
              return {
                refresh_token: refresh,
                refresh_token_expires_in: Math.floor((grant.expiresAt - state.now()) / 1000),
              }
            })()
          : {}),
      }
    }
    if (one('grant_type') === 'refresh_token') {
      const grant = state.refreshGrants.get(one('refresh_token'))
      if (!grant || grant.expiresAt <= state.now())
        return refuse(
          'invalid_grant',
          'The provided authorization grant or refresh token is invalid, expired or revoked',
        )
      return {
        access_token: state.issueToken(grant.sub, grant.scopes),
        expires_in: ACCESS_TTL_S,
        refresh_token: one('refresh_token'),
        refresh_token_expires_in: Math.floor((grant.expiresAt - state.now()) / 1000),
        scope: grant.scopes.join(','),
      }
    }
    return refuse('unsupported_grant_type', 'The grant type is not supported')
  })
}
