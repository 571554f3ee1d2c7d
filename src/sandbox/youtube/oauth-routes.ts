import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { dropConnection, escapeHtml, queryOf } from './http.js'
import { scopeDescriptions } from './model.js'
import type { YouTubeSandbox } from './state.js'

/**
 * Google's OAuth 2.0 web-server flow (reference B.1): the consent page at `/o/oauth2/v2/auth` (an account
 * picker that includes an account without a channel, one checkbox per requested scope as granular consent
 * offers, Allow and Deny) and the token endpoint at `/token` (authorization_code with PKCE, single-use
 * codes; refresh_token; `scope` in the answer lists what was granted).
 */

interface AuthorizeParams {
  clientId: string
  redirectUri: string
  scopes: string[]
  state: string | undefined
  accessType: string | undefined
  prompt: string | undefined
  includeGrantedScopes: boolean
  challenge: string | undefined
  challengeMethod: string | undefined
}

const HIDDEN_FIELDS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'access_type',
  'prompt',
  'include_granted_scopes',
  'code_challenge',
  'code_challenge_method',
] as const

/** Reads and checks the authorize parameters; a message for Google's "Error 400" page when they are bad. */
function readAuthorizeParams(sandbox: YouTubeSandbox, params: URLSearchParams): AuthorizeParams | string {
  const clientId = params.get('client_id') ?? ''
  const redirectUri = params.get('redirect_uri') ?? ''
  if (!clientId) return 'invalid_request: Missing required parameter: client_id'
  if (sandbox.options.client && sandbox.options.client.id !== clientId)
    return 'invalid_client: The OAuth client was not found.'
  let redirect: URL
  try {
    redirect = new URL(redirectUri)
  } catch {
    return 'invalid_request: Missing or invalid parameter: redirect_uri'
  }
  if (redirect.protocol !== 'http:' && redirect.protocol !== 'https:')
    return 'invalid_request: Invalid parameter value for redirect_uri'
  if (sandbox.options.redirectUris && !sandbox.options.redirectUris.includes(redirectUri))
    return 'redirect_uri_mismatch: The redirect URI in the request does not match the ones authorized for the OAuth client.'
  if (params.get('response_type') !== 'code') return 'unsupported_response_type: response_type must be code'
  const scopes = (params.get('scope') ?? '').split(/\s+/).filter(Boolean)
  if (scopes.length === 0) return 'invalid_request: Missing required parameter: scope'
  const challenge = params.get('code_challenge') ?? undefined
  const challengeMethod = challenge ? (params.get('code_challenge_method') ?? 'plain') : undefined
  if (challengeMethod && challengeMethod !== 'S256' && challengeMethod !== 'plain')
    return 'invalid_request: Invalid code_challenge_method'
  if (challenge && !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge))
    return 'invalid_request: Invalid code_challenge'
  return {
    clientId,
    redirectUri,
    scopes,
    state: params.get('state') ?? undefined,
    accessType: params.get('access_type') ?? undefined,
    prompt: params.get('prompt') ?? undefined,
    includeGrantedScopes: params.get('include_granted_scopes') === 'true',
    challenge,
    challengeMethod,
  }
}

function errorPage(reply: FastifyReply, message: string) {
  const [code, ...rest] = message.split(': ')
  return reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><title>Error 400 (Sandbox Google)</title></head>` +
        `<body><h1>Access blocked: authorisation error</h1><p>Error 400: ${escapeHtml(code ?? '')}</p>` +
        `<p>${escapeHtml(rest.join(': '))}</p></body></html>`,
    )
}

function consentPage(sandbox: YouTubeSandbox, params: URLSearchParams, parsed: AuthorizeParams): string {
  const hidden = HIDDEN_FIELDS.map((name) => {
    const value = params.get(name)
    return value === null ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`
  })
    .filter(Boolean)
    .join('\n      ')
  const accounts = [...sandbox.accounts.values()]
    .map(
      (account, index) =>
        `<label class="account"><input type="radio" name="account" value="${escapeHtml(account.email)}"${index === 0 ? ' checked' : ''}> ` +
        `<strong>${escapeHtml(account.name)}</strong> &lt;${escapeHtml(account.email)}&gt; ` +
        (account.channel
          ? `<span>channel ${escapeHtml(account.channel.title)} (${escapeHtml(account.channel.handle)})</span>`
          : '<span class="warn">no YouTube channel</span>') +
        `</label>`,
    )
    .join('\n      ')
  const scopes = parsed.scopes
    .map(
      (scope) =>
        `<label class="scope"><input type="checkbox" name="granted" value="${escapeHtml(scope)}" checked> ` +
        `${escapeHtml(scopeDescriptions[scope] ?? scope)} <code>${escapeHtml(scope)}</code></label>`,
    )
    .join('\n      ')
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Sign in - Google Accounts (sandbox)</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; color: #202124; }
    label { display: block; margin: .5rem 0; }
    .warn { color: #b3261e; }
    code { font-size: .8em; color: #5f6368; }
    button { margin-right: 1rem; padding: .5rem 1.5rem; }
  </style>
</head>
<body>
  <h1>Sandbox Google</h1>
  <p>An app (client <code>${escapeHtml(parsed.clientId)}</code>) wants access to your Google Account.</p>
  <form method="post" action="${escapeHtml(sandbox.prefix)}/o/oauth2/v2/auth">
      ${hidden}
    <fieldset>
      <legend>Choose an account</legend>
      ${accounts}
    </fieldset>
    <fieldset>
      <legend>Select what the app can access</legend>
      ${scopes}
    </fieldset>
    <p>
      <button type="submit" name="decision" value="allow">Allow</button>
      <button type="submit" name="decision" value="deny">Deny</button>
    </p>
  </form>
</body>
</html>`
}

function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value)
  return url.toString()
}

/** A form (URLSearchParams from the form parser) or a JSON object, as URLSearchParams. */
function formOf(request: FastifyRequest): URLSearchParams {
  const body = request.body
  if (body instanceof URLSearchParams) return body
  const params = new URLSearchParams()
  if (typeof body === 'object' && body !== null)
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (Array.isArray(value)) for (const item of value) params.append(key, String(item))
      else if (value !== undefined && value !== null) params.set(key, String(value))
    }
  return params
}

/** Client credentials from the form or HTTP Basic (both are accepted by Google). */
function clientOf(
  request: FastifyRequest,
  form: URLSearchParams,
): { id: string; secret: string | undefined } {
  const header = request.headers.authorization
  const basic = typeof header === 'string' ? header.match(/^Basic\s+(.+)$/i) : null
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon > 0)
      return {
        id: decodeURIComponent(decoded.slice(0, colon)),
        secret: decodeURIComponent(decoded.slice(colon + 1)),
      }
  }
  return { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? undefined }
}

export function registerOAuthRoutes(app: FastifyInstance, sandbox: YouTubeSandbox): void {
  app.get('/o/oauth2/v2/auth', async (request, reply) => {
    sandbox.record({ op: 'authorize', method: 'GET', path: '/o/oauth2/v2/auth' })
    const params = queryOf(request)
    const parsed = readAuthorizeParams(sandbox, params)
    if (typeof parsed === 'string') return errorPage(reply, parsed)
    return reply.type('text/html; charset=utf-8').send(consentPage(sandbox, params, parsed))
  })

  app.post('/o/oauth2/v2/auth', async (request, reply) => {
    sandbox.record({ op: 'authorize', method: 'POST', path: '/o/oauth2/v2/auth' })
    const form = formOf(request)
    const parsed = readAuthorizeParams(sandbox, form)
    if (typeof parsed === 'string') return errorPage(reply, parsed)
    if (form.get('decision') !== 'allow')
      return reply.redirect(
        redirectWith(parsed.redirectUri, { error: 'access_denied', state: parsed.state }),
        302,
      )
    const account = sandbox.accounts.get((form.get('account') ?? '').toLowerCase())
    if (!account) return errorPage(reply, 'invalid_request: Choose an account')
    // Only scopes that were requested can be granted, whatever the form says.
    const granted = form.getAll('granted').filter((scope) => parsed.scopes.includes(scope))
    const { code, scopes } = sandbox.oauth.issueCode({
      email: account.email,
      clientId: parsed.clientId,
      redirectUri: parsed.redirectUri,
      granted,
      includeGrantedScopes: parsed.includeGrantedScopes,
      offline: parsed.accessType === 'offline',
      forceConsent: (parsed.prompt ?? '').split(/\s+/).includes('consent'),
      ...(parsed.challenge ? { challenge: parsed.challenge, challengeMethod: parsed.challengeMethod } : {}),
    })
    return reply.redirect(
      redirectWith(parsed.redirectUri, { state: parsed.state, code, scope: scopes.join(' '), authuser: '0' }),
      302,
    )
  })

  app.post('/token', async (request, reply) => {
    const form = formOf(request)
    const grantType = form.get('grant_type') ?? ''
    sandbox.record({ op: 'token', method: 'POST', path: '/token', grantType })
    const fault = sandbox.takeFault('token')
    if (fault?.action === 'drop') return dropConnection(request, reply)
    if (fault?.action === 'error')
      return reply
        .code(fault.status ?? 500)
        .send({ error: fault.reason ?? 'internal_failure', error_description: 'Backend Error' })
    const client = clientOf(request, form)
    const expected = sandbox.options.client
    if (
      !client.id ||
      (expected &&
        (client.id !== expected.id || (expected.secret !== undefined && client.secret !== expected.secret)))
    )
      return reply
        .code(401)
        .send({ error: 'invalid_client', error_description: 'The OAuth client was not found.' })
    const answer =
      grantType === 'authorization_code'
        ? sandbox.oauth.redeemCode({
            code: form.get('code') ?? '',
            clientId: client.id,
            redirectUri: form.get('redirect_uri') ?? '',
            codeVerifier: form.get('code_verifier') ?? undefined,
          })
        : grantType === 'refresh_token'
          ? sandbox.oauth.refresh({ refreshToken: form.get('refresh_token') ?? '', clientId: client.id })
          : { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${grantType}` }
    reply
      .header('cache-control', 'no-cache, no-store, max-age=0, must-revalidate')
      .header('pragma', 'no-cache')
    return reply.code('error' in answer ? 400 : 200).send(answer)
  })
}
