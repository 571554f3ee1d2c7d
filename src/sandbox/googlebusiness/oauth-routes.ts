import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { escapeHtml } from '../web/post-page.js'
import { BUSINESS_SCOPE, LEGACY_BUSINESS_SCOPE } from './model.js'
import type { GoogleBusinessSandbox } from './state.js'

/**
 * Google's OAuth web-server flow as the Business Profile simulator serves it: the consent page at
 * `/o/oauth2/v2/auth` (a picker of the Google users the simulator knows, each with its businesses, and a
 * checkbox for the business scope, as granular consent offers; Allow and Deny) and `/token`
 * (authorization_code with PKCE, single-use codes; refresh_token). Codes and tokens are kept by the same
 * store the YouTube simulator uses: it is the same Google.
 */

const SCOPE_WORDS: Record<string, string> = {
  [BUSINESS_SCOPE]: 'See, edit, create and delete your Google business listings',
  [LEGACY_BUSINESS_SCOPE]: 'Manage your business listings on Google',
}

const PASSED = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'access_type',
  'prompt',
  'code_challenge',
  'code_challenge_method',
] as const

interface Authorize {
  clientId: string
  redirectUri: string
  scopes: string[]
  state: string | undefined
  offline: boolean
  forceConsent: boolean
  challenge: string | undefined
  challengeMethod: string | undefined
}

function readAuthorize(sandbox: GoogleBusinessSandbox, params: URLSearchParams): Authorize | string {
  const clientId = params.get('client_id') ?? ''
  if (!clientId) return 'invalid_request: Missing required parameter: client_id'
  if (sandbox.options.client && sandbox.options.client.id !== clientId)
    return 'invalid_client: The OAuth client was not found.'
  const redirectUri = params.get('redirect_uri') ?? ''
  if (!/^https?:\/\//.test(redirectUri)) return 'invalid_request: Missing or invalid parameter: redirect_uri'
  if (params.get('response_type') !== 'code') return 'unsupported_response_type: response_type must be code'
  const scopes = (params.get('scope') ?? '').split(/\s+/).filter(Boolean)
  if (scopes.length === 0) return 'invalid_request: Missing required parameter: scope'
  const challenge = params.get('code_challenge') ?? undefined
  const challengeMethod = challenge ? (params.get('code_challenge_method') ?? 'plain') : undefined
  if (challengeMethod && challengeMethod !== 'S256' && challengeMethod !== 'plain')
    return 'invalid_request: Invalid code_challenge_method'
  return {
    clientId,
    redirectUri,
    scopes,
    state: params.get('state') ?? undefined,
    offline: params.get('access_type') === 'offline',
    forceConsent: (params.get('prompt') ?? '').split(/\s+/).includes('consent'),
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
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error 400 (Sandbox Google)</title></head><body><h1>Access blocked: authorisation error</h1><p>Error 400: ${escapeHtml(code ?? '')}</p><p>${escapeHtml(rest.join(': '))}</p></body></html>`,
    )
}

function consentPage(sandbox: GoogleBusinessSandbox, params: URLSearchParams, parsed: Authorize): string {
  const hidden = PASSED.flatMap((name) => {
    const value = params.get(name)
    return value === null ? [] : [`<input type="hidden" name="${name}" value="${escapeHtml(value)}">`]
  }).join('')
  const users = [...sandbox.users.values()]
    .map((user, index) => {
      const businesses = sandbox.accountsOf(user.email).map((a) => a.accountName)
      return `<label><input type="radio" name="account" value="${escapeHtml(user.email)}"${index === 0 ? ' checked' : ''}> <strong>${escapeHtml(user.name)}</strong> &lt;${escapeHtml(user.email)}&gt; <span>${escapeHtml(businesses.join(', ') || 'no business')}</span></label>`
    })
    .join('\n')
  const scopes = parsed.scopes
    .map(
      (scope) =>
        `<label><input type="checkbox" name="granted" value="${escapeHtml(scope)}" checked> ${escapeHtml(SCOPE_WORDS[scope] ?? scope)} <code>${escapeHtml(scope)}</code></label>`,
    )
    .join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - Google Accounts (sandbox)</title></head>
<body><h1>Sandbox Google</h1>
<p>An app (client <code>${escapeHtml(parsed.clientId)}</code>) wants access to your Google Account.</p>
<form method="post" action="${escapeHtml(sandbox.prefix)}/o/oauth2/v2/auth">${hidden}
<fieldset><legend>Choose an account</legend>
${users}
</fieldset>
<fieldset><legend>Select what the app can access</legend>
${scopes}
</fieldset>
<p><button type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny">Deny</button></p>
</form></body></html>`
}

const redirectWith = (uri: string, params: Record<string, string | undefined>) => {
  const url = new URL(uri)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value)
  return url.toString()
}

const formOf = (request: FastifyRequest) =>
  request.body instanceof URLSearchParams ? request.body : new URLSearchParams()

/** Client credentials from the form or HTTP Basic (Google takes both). */
function clientOf(
  request: FastifyRequest,
  form: URLSearchParams,
): { id: string; secret: string | undefined } {
  const basic = /^Basic\s+(.+)$/i.exec(request.headers.authorization ?? '')
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

export function registerOAuthRoutes(app: FastifyInstance, sandbox: GoogleBusinessSandbox): void {
  app.get('/o/oauth2/v2/auth', async (request, reply) => {
    const params = new URL(request.url, 'http://sandbox.invalid').searchParams
    const parsed = readAuthorize(sandbox, params)
    if (typeof parsed === 'string') return errorPage(reply, parsed)
    return reply.type('text/html; charset=utf-8').send(consentPage(sandbox, params, parsed))
  })

  app.post('/o/oauth2/v2/auth', async (request, reply) => {
    const form = formOf(request)
    const parsed = readAuthorize(sandbox, form)
    if (typeof parsed === 'string') return errorPage(reply, parsed)
    if (form.get('decision') !== 'allow')
      return reply.redirect(
        redirectWith(parsed.redirectUri, { error: 'access_denied', state: parsed.state }),
        302,
      )
    const user = sandbox.users.get((form.get('account') ?? '').toLowerCase())
    if (!user) return errorPage(reply, 'invalid_request: Choose an account')
    // Only scopes that were asked for can be granted, whatever the form says.
    const granted = form.getAll('granted').filter((scope) => parsed.scopes.includes(scope))
    const { code, scopes } = sandbox.oauth.issueCode({
      email: user.email,
      clientId: parsed.clientId,
      redirectUri: parsed.redirectUri,
      granted,
      includeGrantedScopes: false,
      offline: parsed.offline,
      forceConsent: parsed.forceConsent,
      ...(parsed.challenge ? { challenge: parsed.challenge, challengeMethod: parsed.challengeMethod } : {}),
    })
    return reply.redirect(
      redirectWith(parsed.redirectUri, { state: parsed.state, code, scope: scopes.join(' ') }),
      302,
    )
  })

  app.post('/token', async (request, reply) => {
    const form = formOf(request)
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
    const grantType = form.get('grant_type') ?? ''
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
    reply.header('cache-control', 'no-cache, no-store, max-age=0, must-revalidate')
    return reply.code('error' in answer ? 400 : 200).send(answer)
  })
}
