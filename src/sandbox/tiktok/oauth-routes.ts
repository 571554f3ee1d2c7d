import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { escapeHtml } from '../web/post-page.js'
import { TikTokOAuthError } from './errors.js'
import { TIKTOK_SCOPES } from './model.js'
import type { TikTokSandboxState } from './state.js'

/**
 * Login Kit (reference A.2): the consent page at `/v2/auth/authorize/` (www.tiktok.com on TikTok), and
 * on the API host `POST /v2/oauth/token/` (authorization_code, and refresh_token, which rotates: every
 * refresh answers a new refresh token and the one used stops working) and `POST /v2/oauth/revoke/`.
 * The consent form posts `username`, `granted_scope` (repeated) and `decision=authorize` back.
 */

const formOf = (request: FastifyRequest): Record<string, string> => {
  const query = Object.fromEntries(new URL(request.url, 'http://sandbox.invalid').searchParams)
  const body = request.body instanceof URLSearchParams ? Object.fromEntries(request.body) : {}
  return { ...query, ...body }
}

const grantedOf = (request: FastifyRequest): string[] =>
  request.body instanceof URLSearchParams ? request.body.getAll('granted_scope') : []

function consentPage(params: Record<string, string>, scopes: string[]): string {
  const hidden = Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('')
  const boxes = scopes
    .map(
      (s) =>
        `<label><input type="checkbox" name="granted_scope" value="${escapeHtml(s)}" checked> ${escapeHtml(s)}</label><br>`,
    )
    .join('')
  return `<!doctype html><title>TikTok (sandbox)</title><form method="post">${hidden}<label>TikTok username <input name="username" required></label><br>${boxes}<button name="decision" value="authorize">Authorize</button><button name="decision" value="cancel">Cancel</button></form>`
}

async function consent(state: TikTokSandboxState, request: FastifyRequest, reply: FastifyReply) {
  const params = formOf(request)
  const page = (status: number, text: string) =>
    reply
      .code(status)
      .type('text/html')
      .send(`<p>${escapeHtml(text)}</p>`)
  let redirect: URL
  try {
    redirect = new URL(params.redirect_uri ?? '')
  } catch {
    return page(400, 'redirect_uri is not a registered URI')
  }
  const app = state.apps.get(params.client_key ?? '')
  if (!app) return page(400, 'client_key is not a registered app')
  if (params.response_type !== 'code') return page(400, 'response_type must be code')
  const scopes = (params.scope ?? '').split(',').filter(Boolean)
  if (
    !scopes.includes('user.info.basic') ||
    scopes.some((s) => !(TIKTOK_SCOPES as readonly string[]).includes(s))
  )
    return page(400, 'scope must hold user.info.basic and only known scopes, comma-separated')
  if (request.method === 'GET') return reply.type('text/html').send(consentPage(params, scopes))
  const back = new URL(redirect)
  if (params.state) back.searchParams.set('state', params.state)
  if (params.decision !== 'authorize') {
    back.searchParams.set('error', 'access_denied')
    back.searchParams.set('error_description', 'The user denied the request')
    return reply.redirect(back.toString(), 302)
  }
  const username = (params.username ?? '').trim()
  if (!/^[A-Za-z0-9._ -]{1,40}$/.test(username))
    return page(400, 'Give a TikTok username (letters, digits, . _ -)')
  const granted = grantedOf(request).filter((s) => scopes.includes(s))
  const code = state.issueCode({
    openId: state.ensureUser(username).openId,
    clientKey: app.clientKey,
    scopes: granted,
    redirectUri: params.redirect_uri ?? '',
    ...(params.code_challenge ? { challenge: params.code_challenge } : {}),
  })
  back.searchParams.set('code', code)
  back.searchParams.set('scopes', granted.join(','))
  return reply.redirect(back.toString(), 302)
}

/** The app a token request names, with its secret checked (`invalid_client` otherwise). */
function clientOf(state: TikTokSandboxState, form: Record<string, string>) {
  const app = state.apps.get(form.client_key ?? '')
  if (!app || app.clientSecret !== form.client_secret)
    throw new TikTokOAuthError(401, 'invalid_client', 'Client key or secret is invalid.')
  return app
}

function token(state: TikTokSandboxState, form: Record<string, string>) {
  const app = clientOf(state, form)
  if (form.grant_type === 'authorization_code') {
    const entry = state.codes.get(form.code ?? '')
    state.codes.delete(form.code ?? '')
    if (!entry || entry.expiresAt < state.now() || entry.clientKey !== app.clientKey)
      throw new TikTokOAuthError(400, 'invalid_grant', 'Authorization code is expired or was already used.')
    if (entry.redirectUri !== form.redirect_uri)
      throw new TikTokOAuthError(
        400,
        'invalid_request',
        'redirect_uri does not match the authorization request.',
      )
    if (entry.challenge) {
      const derived = createHash('sha256')
        .update(form.code_verifier ?? '')
        .digest('base64url')
      if (derived !== entry.challenge)
        throw new TikTokOAuthError(400, 'invalid_grant', 'code_verifier does not match code_challenge.')
    }
    return state.issuePair(entry.openId, app.clientKey, entry.scopes)
  }
  if (form.grant_type === 'refresh_token') {
    const current = state.tokenOf(form.refresh_token, 'refresh')
    if (!current || current.clientKey !== app.clientKey)
      throw new TikTokOAuthError(400, 'invalid_grant', 'Refresh token is invalid or expired.')
    // Rotation: the refresh token used stops working, and so do the grant's older access tokens.
    state.revokeGrant(current.openId, current.clientKey)
    return state.issuePair(current.openId, current.clientKey, current.scopes)
  }
  throw new TikTokOAuthError(400, 'unsupported_grant_type', 'grant_type is not supported.')
}

function revoke(state: TikTokSandboxState, form: Record<string, string>) {
  const app = clientOf(state, form)
  const access = state.tokenOf(form.token, 'access')
  if (access && access.clientKey === app.clientKey) state.revokeGrant(access.openId, access.clientKey)
  return {}
}

export function registerOAuthRoutes(app: FastifyInstance, state: TikTokSandboxState): void {
  app.route({
    method: ['GET', 'POST'],
    url: '/v2/auth/authorize/',
    handler: (request, reply) => consent(state, request, reply),
  })
  app.post('/v2/oauth/token/', async (request) => token(state, formOf(request)))
  app.post('/v2/oauth/revoke/', async (request) => revoke(state, formOf(request)))
}
