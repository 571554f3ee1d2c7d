import type { FastifyInstance } from 'fastify'
import { consentHandler } from '../meta-common/consent-page.js'
import { ThreadsApiError } from './errors.js'
import type { ThreadsSandboxState } from './state.js'

/**
 * Threads login: the consent page at `${prefix}/oauth/authorize` (a user name and one checkbox per
 * requested scope; the form posts `username`, `granted_scope` (repeated) and `decision=authorize` back),
 * redirecting with `code` and Meta's trailing `#_`; and the three token endpoints of graph.threads.net,
 * which the API routes hand to {@link tokenCall}: the code exchange (a 1-hour token), `th_exchange_token`
 * (60 days) and `th_refresh_token` (refused while the token is under 24 hours old).
 */

export function registerOAuthRoutes(app: FastifyInstance, state: ThreadsSandboxState): void {
  const consent = consentHandler({
    title: 'Threads',
    requiredScope: 'threads_basic',
    // Meta appends `#_` to the redirect, which clients must strip.
    fragment: '#_',
    issueCode: (username, granted, params) =>
      state.issueCode(state.ensureUser(username).id, granted, params.redirect_uri ?? ''),
  })
  app.route({ method: ['GET', 'POST'], url: '/oauth/authorize', handler: consent })
}

/** The token endpoints (no bearer token needed); undefined when the path is not one of them. */
export function tokenCall(
  state: ThreadsSandboxState,
  method: string,
  joined: string,
  params: Record<string, string>,
  token: string | undefined,
): Record<string, unknown> | undefined {
  if (method === 'POST' && joined === 'oauth/access_token') {
    const entry = state.codes.get(params.code ?? '')
    if (params.grant_type !== 'authorization_code')
      throw new ThreadsApiError(400, 100, 'Unsupported grant_type')
    if (!params.client_id || !params.client_secret)
      throw new ThreadsApiError(
        400,
        101,
        'Error validating application: client_id and client_secret are required',
      )
    if (!entry || entry.expiresAt < state.now())
      throw new ThreadsApiError(400, 100, 'This authorization code has expired or been used.', {
        subcode: 36007,
      })
    if (entry.redirectUri !== params.redirect_uri)
      throw new ThreadsApiError(400, 100, 'Error validating verification code. redirect_uri does not match', {
        subcode: 36008,
      })
    state.codes.delete(params.code ?? '')
    const short = state.issueToken(entry.userId, entry.scopes, 3600, false)
    // A 17-digit number, as Meta sends it (clients must not rely on it surviving JSON parsing).
    return { access_token: short.token, user_id: Number(entry.userId) }
  }
  if (method === 'GET' && joined === 'access_token') {
    const short = state.tokenInfo(token)
    if (params.grant_type !== 'th_exchange_token' || !params.client_secret || !short || short.longLived)
      throw new ThreadsApiError(400, 190, 'Invalid OAuth access token.', { subcode: 467 })
    const long = state.issueToken(short.userId, short.scopes, state.longLivedTtlSeconds, true)
    return { access_token: long.token, token_type: 'bearer', expires_in: state.longLivedTtlSeconds }
  }
  if (method === 'GET' && joined === 'refresh_access_token') {
    const current = state.tokenInfo(token)
    if (params.grant_type !== 'th_refresh_token' || !current?.longLived)
      throw new ThreadsApiError(400, 190, 'Invalid OAuth access token.', { subcode: 467 })
    if (state.now() - current.issuedAt < 24 * 60 * 60 * 1000)
      throw new ThreadsApiError(
        400,
        100,
        'The access token is less than 24 hours old and cannot be refreshed yet',
      )
    const fresh = state.issueToken(current.userId, current.scopes, state.longLivedTtlSeconds, true)
    state.tokens.delete(current.token)
    return { access_token: fresh.token, token_type: 'bearer', expires_in: state.longLivedTtlSeconds }
  }
  return undefined
}
