import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TikTokToken } from './model.js'
import type { TikTokSandboxState } from './state.js'

/**
 * TikTok's two error shapes (reference A.2, A.8): the v2 envelope `{data, error: {code, message, log_id}}`
 * of every API call, success included (`error.code` is `ok`), and the flat OAuth envelope
 * `{error, error_description, log_id}` of the token endpoints.
 */

export const logId = () =>
  `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(9).toString('hex').toUpperCase()}`

/** An API refusal, answered in the v2 envelope with its HTTP status. */
export class TikTokApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** A token endpoint refusal, answered in the flat OAuth envelope. */
export class TikTokOAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message)
  }
}

export const envelope = (data: unknown, error?: { code: string; message: string }) => ({
  data,
  error: { code: error?.code ?? 'ok', message: error?.message ?? '', log_id: logId() },
})

/** The v2 envelope of a refusal, for the fault injector's statuses. */
export function faultBody(status: number): { body: unknown; headers?: Record<string, string> } {
  const [code, message] =
    status === 429
      ? ['rate_limit_exceeded', 'Your request is blocked due to exceeding the API rate limit.']
      : status === 401
        ? ['access_token_invalid', 'The access token is invalid or not found in the request.']
        : status >= 500
          ? ['internal_error', 'Something went wrong. Please try again later.']
          : ['invalid_params', 'The request parameters are invalid.']
  return {
    body: envelope({}, { code, message }),
    headers: { 'content-type': 'application/json; charset=UTF-8' },
  }
}

export function sendApiError(reply: FastifyReply, error: TikTokApiError) {
  return reply.code(error.status).send(envelope({}, { code: error.code, message: error.message }))
}

export function sendOAuthError(reply: FastifyReply, error: TikTokOAuthError) {
  return reply
    .code(error.status)
    .send({ error: error.error, error_description: error.message, log_id: logId() })
}

/** The bearer token of a call, with the scope it needs; 401 in TikTok's words otherwise. */
export function authorize(
  state: TikTokSandboxState,
  request: FastifyRequest,
  scopes: readonly string[],
): TikTokToken {
  const header = request.headers.authorization ?? ''
  const match = /^Bearer\s+(\S+)$/i.exec(header)
  const token = state.tokenOf(match?.[1], 'access')
  if (!token)
    throw new TikTokApiError(
      401,
      'access_token_invalid',
      'The access token is invalid or not found in the request.',
    )
  if (!scopes.some((scope) => token.scopes.includes(scope)))
    throw new TikTokApiError(
      401,
      'scope_not_authorized',
      `The user did not authorize the scope required for completing this request (${scopes.join(' or ')}).`,
    )
  return token
}

/**
 * Refuses a body with fields TikTok does not describe for this endpoint (reference A.4), recording the
 * mismatch: the simulator answers as TikTok's validation would, and tests read `violations`.
 */
export function onlyKnown(
  state: TikTokSandboxState,
  where: string,
  value: unknown,
  known: readonly string[],
): Record<string, unknown> {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) {
    state.violations.push(`${where}: not an object`)
    throw new TikTokApiError(400, 'invalid_params', `${where} must be an object.`)
  }
  const unknown = Object.keys(value).filter((key) => !known.includes(key))
  if (unknown.length > 0) {
    state.violations.push(`${where}: unknown field ${unknown.join(', ')}`)
    throw new TikTokApiError(400, 'invalid_params', `Unknown field ${unknown[0]} in ${where}.`)
  }
  return value as Record<string, unknown>
}

/** A refusal of a request whose fields are wrong, recorded like an unknown field. */
export function badParam(state: TikTokSandboxState, where: string, message: string): TikTokApiError {
  state.violations.push(`${where}: ${message}`)
  return new TikTokApiError(400, 'invalid_params', message)
}
