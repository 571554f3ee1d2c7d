import type { FastifyInstance, FastifyReply } from 'fastify'
import type { FormBody } from '../../platform/form.js'
import { defineEndpoint } from './endpoint.js'
import { oauthErrors } from './problems.js'
import { knownScopes, type TwitterSandboxState } from './state.js'

const one = (body: unknown, key: string): string | undefined => {
  const value = (body as FormBody | undefined)?.[key]
  return Array.isArray(value) ? value[0] : value
}

const all = (body: unknown, key: string): string[] => {
  const value = (body as FormBody | undefined)?.[key]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

interface AuthorizeRequest {
  clientId: string
  redirectUri: string
  scopes: string[]
  state: string
  challenge: string
  method: 'S256' | 'plain'
}

/** Checks the authorize parameters as X does; problems are shown on the page, never redirected. */
function readAuthorizeRequest(params: Record<string, string | undefined>): AuthorizeRequest | string {
  if (params.response_type !== 'code') return 'response_type must be "code".'
  if (!params.client_id) return 'client_id is missing.'
  let redirect: URL
  try {
    redirect = new URL(params.redirect_uri ?? '')
  } catch {
    return 'redirect_uri is missing or not a URL.'
  }
  if (redirect.protocol !== 'http:' && redirect.protocol !== 'https:') return 'redirect_uri must be http(s).'
  const scopes = (params.scope ?? '').split(/\s+/).filter(Boolean)
  if (scopes.length === 0) return 'scope is missing.'
  const unknown = scopes.filter((scope) => !knownScopes.has(scope))
  if (unknown.length > 0) return `Unknown scope: ${unknown.join(', ')}.`
  if (!params.state) return 'state is missing.'
  if (params.state.length > 500) return 'state is longer than 500 characters.'
  if (!params.code_challenge) return 'code_challenge is missing.'
  const method = params.code_challenge_method ?? 'plain'
  if (method !== 'S256' && method !== 'plain') return 'code_challenge_method must be S256 or plain.'
  return {
    clientId: params.client_id,
    redirectUri: params.redirect_uri!,
    scopes,
    state: params.state,
    challenge: params.code_challenge,
    method,
  }
}

function page(title: string, body: string) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · X sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#0f1419}
fieldset{border:1px solid #cfd9de;border-radius:8px;margin:1rem 0}label{display:block;margin:.4rem 0}
button{font-size:1rem;padding:.5rem 1.2rem;border-radius:999px;border:1px solid #0f1419;margin-right:.5rem}
button[value=authorize]{background:#0f1419;color:#fff}</style></head>
<body><p><strong>X sandbox</strong> (no real account is used)</p>${body}</body></html>`
}

function consentPage(request: AuthorizeRequest, action: string) {
  const hidden = (name: string, value: string) =>
    `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`
  const scopes = request.scopes
    .map(
      (scope) =>
        `<label><input type="checkbox" name="granted_scope" value="${escapeHtml(scope)}" checked> ${escapeHtml(scope)}</label>`,
    )
    .join('\n')
  return page(
    'Authorize app',
    `<h1>Authorize <code>${escapeHtml(request.clientId)}</code> to use your account?</h1>
<form method="post" action="${escapeHtml(action)}">
${hidden('response_type', 'code')}${hidden('client_id', request.clientId)}${hidden('redirect_uri', request.redirectUri)}
${hidden('scope', request.scopes.join(' '))}${hidden('state', request.state)}
${hidden('code_challenge', request.challenge)}${hidden('code_challenge_method', request.method)}
<label>Username <input name="username" autocomplete="username" required pattern="@?[A-Za-z0-9_]{1,15}"></label>
<fieldset><legend>This app will be able to</legend>
${scopes}
</fieldset>
<button type="submit" name="decision" value="authorize">Authorize app</button>
<button type="submit" name="decision" value="cancel" formnovalidate>Cancel</button>
</form>`,
  )
}

function redirectWith(reply: FastifyReply, redirectUri: string, params: Record<string, string>) {
  const target = new URL(redirectUri)
  for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value)
  return reply.redirect(target.toString(), 302)
}

/** `${prefix}/i/oauth2/authorize`: the consent page (GET) and its answer (POST). */
export function registerAuthorizeRoutes(app: FastifyInstance, state: TwitterSandboxState, action: string) {
  app.get('/i/oauth2/authorize', async (request, reply) => {
    const parsed = readAuthorizeRequest(request.query as Record<string, string | undefined>)
    reply.type('text/html; charset=utf-8')
    if (typeof parsed === 'string') {
      return reply
        .code(400)
        .send(page('Something went wrong', `<h1>Something went wrong</h1><p>${escapeHtml(parsed)}</p>`))
    }
    state.client(parsed.clientId)
    return reply.send(consentPage(parsed, action))
  })

  app.post('/i/oauth2/authorize', async (request, reply) => {
    const body = request.body
    const fields = Object.fromEntries(
      [
        'response_type',
        'client_id',
        'redirect_uri',
        'scope',
        'state',
        'code_challenge',
        'code_challenge_method',
      ].map((key) => [key, one(body, key)]),
    )
    const parsed = readAuthorizeRequest(fields)
    if (typeof parsed === 'string') {
      reply.type('text/html; charset=utf-8')
      return reply
        .code(400)
        .send(page('Something went wrong', `<h1>Something went wrong</h1><p>${escapeHtml(parsed)}</p>`))
    }
    if (one(body, 'decision') !== 'authorize') {
      return redirectWith(reply, parsed.redirectUri, { error: 'access_denied', state: parsed.state })
    }
    const username = (one(body, 'username') ?? '').trim().replace(/^@/, '')
    if (!/^[A-Za-z0-9_]{1,15}$/.test(username)) {
      reply.type('text/html; charset=utf-8')
      return reply
        .code(400)
        .send(page('Authorize app', '<h1>Enter a username of 1 to 15 letters, digits or _</h1>'))
    }
    // Unlike X, the sandbox lets the user untick scopes, so a connection missing a scope can be tested.
    const ticked = new Set(all(body, 'granted_scope'))
    const granted = parsed.scopes.filter((scope) => ticked.has(scope))
    const account = state.findAccount(username) ?? state.upsertAccount({ username })
    const code = state.grants.issueCode({
      clientId: parsed.clientId,
      redirectUri: parsed.redirectUri,
      challenge: parsed.challenge,
      method: parsed.method,
      scopes: granted,
      userId: account.id,
    })
    return redirectWith(reply, parsed.redirectUri, { state: parsed.state, code })
  })
}

/** Who is calling the token endpoint: HTTP Basic for confidential clients, `client_id` for public ones. */
function clientOf(state: TwitterSandboxState, authorization: string | undefined, body: unknown) {
  const formClientId = one(body, 'client_id')
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '')
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const clientId = decodeURIComponent(decoded.slice(0, colon))
    const secret = decodeURIComponent(decoded.slice(colon + 1))
    const client = state.clients.get(clientId)
    if (colon < 0 || !client?.clientSecret || client.clientSecret !== secret) return undefined
    if (formClientId && formClientId !== clientId) return undefined
    return client
  }
  if (!formClientId) return undefined
  const client = state.client(formClientId)
  // A confidential client must prove its secret.
  return client.clientSecret ? undefined : client
}

/** `${prefix}/api/2/oauth2/token`: code exchange with PKCE, and refresh with rotation. */
export function registerTokenRoute(app: FastifyInstance, state: TwitterSandboxState) {
  defineEndpoint(
    app,
    state,
    { method: 'POST', url: '/2/oauth2/token', endpoint: 'oauth2Token', auth: 'none' },
    ({ request }) => {
      if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        return { status: 400, body: oauthErrors.missing('grant_type') }
      }
      const body = request.body
      const client = clientOf(state, request.headers.authorization, body)
      if (!client) return { status: 401, body: oauthErrors.unauthorizedClient() }
      const grantType = one(body, 'grant_type')
      if (grantType === 'authorization_code') {
        for (const name of ['code', 'redirect_uri', 'code_verifier']) {
          if (!one(body, name)) return { status: 400, body: oauthErrors.missing(name) }
        }
        const tokens = state.grants.redeemCode({
          code: one(body, 'code')!,
          clientId: client.clientId,
          redirectUri: one(body, 'redirect_uri')!,
          verifier: one(body, 'code_verifier')!,
        })
        return tokens ? { status: 200, body: tokens } : { status: 400, body: oauthErrors.invalidCode() }
      }
      if (grantType === 'refresh_token') {
        const refreshToken = one(body, 'refresh_token')
        if (!refreshToken) return { status: 400, body: oauthErrors.missing('refresh_token') }
        const tokens = state.grants.refresh(refreshToken, client.clientId)
        return tokens ? { status: 200, body: tokens } : { status: 400, body: oauthErrors.invalidToken() }
      }
      return { status: 400, body: oauthErrors.unsupportedGrant() }
    },
  )
}

/**
 * `${prefix}/api/2/oauth2/revoke`: X's token revocation, form-encoded `token` with the client authenticated
 * as at the token endpoint (HTTP Basic for a confidential client, `client_id` for a public one). Answers
 * `{"revoked": true}`; the token stops working at once. Unknown tokens are answered the same (RFC 7009).
 */
export function registerRevokeRoute(app: FastifyInstance, state: TwitterSandboxState) {
  defineEndpoint(
    app,
    state,
    { method: 'POST', url: '/2/oauth2/revoke', endpoint: 'oauth2Revoke', auth: 'none' },
    ({ request }) => {
      if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        return { status: 400, body: oauthErrors.missing('token') }
      }
      const client = clientOf(state, request.headers.authorization, request.body)
      if (!client) return { status: 401, body: oauthErrors.unauthorizedClient() }
      const token = one(request.body, 'token')
      if (!token) return { status: 400, body: oauthErrors.missing('token') }
      if (!state.grants.revokeIssued(token, client.clientId))
        return { status: 401, body: oauthErrors.unauthorizedClient() }
      return { status: 200, body: { revoked: true } }
    },
  )
}
