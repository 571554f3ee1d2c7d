import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { MastodonSpec } from './contract.js'
import { applicationJson, serverMetadataJson } from './entities.js'
import {
  answer,
  bearer,
  bodyOf,
  checkRequest,
  fail,
  instanceOf,
  listParam,
  type Params,
  stringParam,
} from './http.js'
import type { MastodonSandboxState, SimApp, SimInstance } from './state.js'

/**
 * Registration and sign-in on a simulated instance (methods/apps, methods/oauth): `POST /api/v1/apps`,
 * `GET /api/v1/apps/verify_credentials`, the authorization server metadata (absent on a legacy instance,
 * which takes no PKCE either), the authorize page (a form asking for a user name: anyone may sign in as
 * anyone, which is the point of a sandbox), `POST /oauth/token` for codes (PKCE S256 checked) and client
 * credentials, and `POST /oauth/revoke`.
 */

const OOB = 'urn:ietf:wg:oauth:2.0:oob'
const CODE_TTL_MS = 10 * 60_000
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const scopesOf = (value: unknown, fallback = 'read') =>
  (typeof value === 'string' && value.trim() !== '' ? value : fallback).split(/[\s+]+/).filter(Boolean)

/** A requested scope is granted by the same scope or its parent (`write` covers `write:statuses`). */
const covered = (granted: readonly string[], wanted: string) =>
  granted.includes(wanted) || granted.includes(wanted.split(':')[0]!)

function validRedirect(uri: string): boolean {
  if (uri === OOB) return true
  try {
    const url = new URL(uri)
    return url.protocol !== 'javascript:' && url.protocol !== 'data:' && !url.hash
  } catch {
    return false
  }
}

function registerApp(state: MastodonSandboxState, instance: SimInstance, params: Params): SimApp {
  const name = stringParam(params, 'client_name')
  if (!name?.trim()) throw fail(422, "Validation failed: Application name can't be blank")
  const uris = listParam(params, 'redirect_uris').flatMap((uri) =>
    typeof uri === 'string' ? uri.split(/\s+/) : [],
  )
  if (uris.length === 0 || !uris.every(validRedirect))
    throw fail(422, 'Validation failed: Redirect URI must be an absolute URI.')
  const app: SimApp = {
    id: state.nextId(),
    name: name.trim().slice(0, 60),
    website: stringParam(params, 'website') ?? null,
    clientId: state.secret(),
    clientSecret: state.secret(),
    redirectUris: uris.filter(Boolean),
    scopes: scopesOf(params.scopes),
    createdAt: state.now(),
  }
  instance.apps.set(app.id, app)
  return app
}

const appByClient = (instance: SimInstance, clientId: unknown) =>
  [...instance.apps.values()].find((app) => app.clientId === clientId)

/** The app a token request names, with its secret checked (form fields or HTTP Basic). */
function authenticatedApp(instance: SimInstance, request: FastifyRequest, params: Params): SimApp {
  let clientId = stringParam(params, 'client_id')
  let secret = stringParam(params, 'client_secret')
  const basic = /^Basic\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1]
  if (basic) [clientId, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':')
  const app = appByClient(instance, clientId)
  if (!app || app.clientSecret !== secret)
    throw fail(
      401,
      'invalid_client',
      'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    )
  return app
}

function consentPage(instance: SimInstance, app: SimApp, query: Record<string, string>): string {
  const hidden = Object.entries(query)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('')
  const scopes = (query.scope ?? 'read').split(/[\s+]+/).filter(Boolean)
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize ${escapeHtml(app.name)} on ${escapeHtml(instance.host)} (sandbox)</title></head>
<body><main><h1>${escapeHtml(instance.host)}</h1><p><strong>${escapeHtml(app.name)}</strong> would like to use your account: ${scopes.map(escapeHtml).join(', ')}.</p>
<form method="post">${hidden}<label>User name on ${escapeHtml(instance.host)} <input name="username" required autocomplete="username"></label>
<button name="decision" value="authorize">Authorize</button> <button name="decision" value="deny">Deny</button></form></main></body></html>`
}

/** The authorize request, checked as Doorkeeper checks it; a problem is shown on the page, not redirected. */
function checkAuthorize(instance: SimInstance, params: Record<string, string>): SimApp {
  const app = appByClient(instance, params.client_id)
  if (!app) throw fail(401, 'invalid_client', 'Client authentication failed due to unknown client.')
  if (!params.redirect_uri || !app.redirectUris.includes(params.redirect_uri))
    throw fail(400, 'invalid_redirect_uri', 'The redirect uri included is not valid.')
  if (params.response_type !== 'code') throw fail(400, 'unsupported_response_type')
  if (!scopesOf(params.scope).every((scope) => covered(app.scopes, scope)))
    throw fail(400, 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.')
  if (params.code_challenge && (instance.settings.legacy || params.code_challenge_method !== 'S256'))
    throw fail(400, 'invalid_request', 'The code challenge method is not supported.')
  return app
}

async function authorize(state: MastodonSandboxState, request: FastifyRequest, reply: FastifyReply) {
  const instance = instanceOf(state, request)
  const params = Object.fromEntries(
    Object.entries(request.method === 'GET' ? (request.query as Params) : await bodyOf(request)).flatMap(
      ([k, v]) => (typeof v === 'string' ? [[k, v]] : []),
    ),
  )
  let app: SimApp
  try {
    app = checkAuthorize(instance, params)
  } catch (error) {
    const text = error instanceof Error ? error.message : 'invalid request'
    return reply
      .code(400)
      .type('text/html')
      .send(`<div class="problem"><p>${escapeHtml(text)}</p></div>`)
  }
  if (request.method === 'GET') return reply.type('text/html').send(consentPage(instance, app, params))
  const back = new URL(params.redirect_uri!)
  if (params.state) back.searchParams.set('state', params.state)
  if (params.decision !== 'authorize') {
    back.searchParams.set('error', 'access_denied')
    back.searchParams.set(
      'error_description',
      'The resource owner or authorization server denied the request.',
    )
    return reply.redirect(back.toString(), 302)
  }
  const username = (params.username ?? '').trim().replace(/^@/, '').split('@')[0] ?? ''
  if (!/^[A-Za-z0-9_]{1,30}$/.test(username))
    return reply
      .code(400)
      .type('text/html')
      .send('<div class="problem"><p>A user name is letters, digits and _</p></div>')
  const account = state.ensureAccount(instance, username)
  const code = state.secret()
  instance.codes.set(code, {
    appId: app.id,
    accountId: account.id,
    redirectUri: params.redirect_uri!,
    scopes: scopesOf(params.scope),
    ...(params.code_challenge ? { challenge: params.code_challenge } : {}),
    expiresAt: state.now() + CODE_TTL_MS,
  })
  back.searchParams.set('code', code)
  return reply.redirect(back.toString(), 302)
}

function issueToken(
  state: MastodonSandboxState,
  instance: SimInstance,
  request: FastifyRequest,
  params: Params,
) {
  const app = authenticatedApp(instance, request, params)
  const grant = stringParam(params, 'grant_type')
  const made = (scopes: string[], accountId?: string) => {
    const token = {
      token: state.secret(),
      appId: app.id,
      scopes,
      createdAt: state.now(),
      ...(accountId ? { accountId } : {}),
    }
    instance.tokens.set(token.token, token)
    return {
      access_token: token.token,
      token_type: 'Bearer',
      scope: scopes.join(' '),
      created_at: Math.floor(token.createdAt / 1000),
    }
  }
  if (grant === 'client_credentials') {
    const scopes = scopesOf(params.scope)
    if (!scopes.every((scope) => covered(app.scopes, scope))) throw fail(400, 'invalid_scope')
    return made(scopes)
  }
  if (grant !== 'authorization_code')
    throw fail(
      400,
      'unsupported_grant_type',
      'The authorization grant type is not supported by the authorization server.',
    )
  const code = instance.codes.get(stringParam(params, 'code') ?? '')
  const invalid = fail(
    400,
    'invalid_grant',
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  )
  if (
    !code ||
    code.appId !== app.id ||
    code.expiresAt < state.now() ||
    code.redirectUri !== stringParam(params, 'redirect_uri')
  )
    throw invalid
  if (code.challenge) {
    const verifier = stringParam(params, 'code_verifier') ?? ''
    if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) throw invalid
  }
  instance.codes.delete(stringParam(params, 'code') ?? '')
  return made(code.scopes, code.accountId)
}

export function registerOAuthRoutes(
  app: FastifyInstance,
  state: MastodonSandboxState,
  spec: MastodonSpec | undefined,
) {
  app.get('/.well-known/oauth-authorization-server', async (request, reply) => {
    const instance = instanceOf(state, request)
    if (instance.settings.legacy) throw fail(404, 'Record not found')
    return answer(state, spec, request, reply, 200, serverMetadataJson(state, instance))
  })
  app.route({
    method: ['GET', 'POST'],
    url: '/oauth/authorize',
    handler: (request, reply) => authorize(state, request, reply),
  })
  app.post('/oauth/token', async (request, reply) => {
    const instance = instanceOf(state, request)
    const params = await bodyOf(request)
    // The description requires the code grant's fields of every grant (and of HTTP Basic clients).
    checkRequest(state, spec, request, params, { requiredByGrant: true })
    return answer(state, spec, request, reply, 200, issueToken(state, instance, request, params))
  })
  app.post('/oauth/revoke', async (request, reply) => {
    const instance = instanceOf(state, request)
    const params = await bodyOf(request)
    checkRequest(state, spec, request, params, { requiredByGrant: true })
    const client = authenticatedApp(instance, request, params)
    const token = instance.tokens.get(stringParam(params, 'token') ?? '')
    if (token && token.appId !== client.id)
      throw fail(403, 'unauthorized_client', 'You are not authorized to revoke this token')
    if (token) instance.tokens.delete(token.token)
    return answer(state, spec, request, reply, 200, {})
  })
  app.post('/api/v1/apps', async (request, reply) => {
    const instance = instanceOf(state, request)
    const params = await bodyOf(request)
    checkRequest(state, spec, request, params)
    const made = registerApp(state, instance, params)
    return answer(state, spec, request, reply, 200, {
      ...applicationJson(made),
      client_id: made.clientId,
      client_secret: made.clientSecret,
      client_secret_expires_at: 0,
    })
  })
  app.get('/api/v1/apps/verify_credentials', async (request, reply) => {
    const instance = instanceOf(state, request)
    const token = instance.tokens.get(bearer(request) ?? '')
    const made = token && instance.apps.get(token.appId)
    if (!made) throw fail(401, 'The access token is invalid')
    return answer(state, spec, request, reply, 200, applicationJson(made))
  })
}
