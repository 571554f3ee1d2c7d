import type { FastifyReply, FastifyRequest } from 'fastify'
import { checkAnswer, checkCall, type MastodonSpec } from './contract.js'
import { isInstanceName, type MastodonSandboxState, type SimInstance, type SimToken } from './state.js'

/**
 * What every route of the Mastodon simulator shares: its refusals in Mastodon's `{"error": "…"}` body
 * (with `error_description` on OAuth's), the instance a request is for (the path's first segment, or the
 * root instance), the bearer token, the parameters from the query and a JSON, form or multipart body, and
 * the check of each call and answer against the description.
 */

export class MastodonError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description?: string,
  ) {
    super(error)
  }
  get body() {
    return { error: this.error, ...(this.description ? { error_description: this.description } : {}) }
  }
}

export const fail = (status: number, error: string, description?: string) =>
  new MastodonError(status, error, description)

export type Params = Record<string, unknown>

/** The instance this request is for; a name that is not a host is a 404, as no such server answers. */
export function instanceOf(state: MastodonSandboxState, request: FastifyRequest): SimInstance {
  const named = (request.params as { instance?: string }).instance ?? state.options.rootInstance
  const host = named?.toLowerCase()
  if (!host || !isInstanceName(host)) throw fail(404, 'Record not found')
  return state.instance(host)
}

/** The path under the instance: `/api/v1/statuses` whatever the mount. */
export function pathUnder(state: MastodonSandboxState, request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? ''
  const rest = path.startsWith(state.prefix) ? path.slice(state.prefix.length) : path
  const named = (request.params as { instance?: string }).instance
  return named && rest.startsWith(`/${named}`) ? rest.slice(named.length + 1) || '/' : rest || '/'
}

export const bearer = (request: FastifyRequest): string | undefined => {
  const header = request.headers.authorization
  const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header) : null
  return match?.[1]?.trim()
}

/** The token of the request, which must be a user's with one of `scopes` (or their parent scope). */
export function userToken(
  instance: SimInstance,
  request: FastifyRequest,
  scopes: string[],
): SimToken & { accountId: string } {
  const token = instance.tokens.get(bearer(request) ?? '')
  if (!token) throw fail(401, 'The access token is invalid')
  if (!token.accountId) throw fail(422, 'This method requires an authenticated user')
  const allowed = scopes.some(
    (scope) => token.scopes.includes(scope) || token.scopes.includes(scope.split(':')[0]!),
  )
  if (!allowed) throw fail(403, 'This action is outside the authorized scopes')
  return token as SimToken & { accountId: string }
}

/** A form or multipart body's fields: names repeated become arrays; files stay as Blobs. */
export async function bodyOf(request: FastifyRequest): Promise<Params> {
  const type = String(request.headers['content-type'] ?? '')
  if (type.startsWith('multipart/form-data') && Buffer.isBuffer(request.body)) {
    const form = await new Response(request.body as Buffer<ArrayBuffer>, {
      headers: { 'content-type': type },
    })
      .formData()
      .catch(() => {
        throw fail(422, 'Validation failed: the multipart body could not be read')
      })
    const out: Params = {}
    for (const [name, value] of form) add(out, name, value)
    return out
  }
  if (typeof request.body === 'object' && request.body !== null && !Buffer.isBuffer(request.body))
    return request.body as Params
  return {}
}

function add(out: Params, name: string, value: unknown) {
  const existing = out[name]
  out[name] =
    existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
}

/** A urlencoded body as {@link bodyOf} gives it. */
export function parseForm(text: string): Params {
  const out: Params = {}
  for (const [name, value] of new URLSearchParams(text)) add(out, name, value)
  return out
}

/** A parameter that may be sent as `name` or `name[]`, as a list. */
export const listParam = (params: Params, name: string): unknown[] => {
  const value = params[name] ?? params[`${name}[]`]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

export const stringParam = (params: Params, name: string): string | undefined => {
  const value = params[name]
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined
}

/** Records the call's disagreements with the description and refuses it, as a server that cannot read it. */
export function checkRequest(
  state: MastodonSandboxState,
  spec: MastodonSpec | undefined,
  request: FastifyRequest,
  body: Params,
  options: { requiredByGrant?: boolean } = {},
): void {
  if (!spec) return
  const query = (request.query ?? {}) as Params
  const fields = Object.fromEntries(Object.keys(body).map((key) => [key, true]))
  const problems = checkCall(spec, {
    method: request.method,
    path: pathUnder(state, request),
    query,
    body: fields,
    ...(options.requiredByGrant ? { skipRequired: true } : {}),
  })
  if (problems.length === 0) return
  state.violations.push(...problems)
  throw fail(400, problems.join('; '))
}

/** Sends an answer, holding it to the description first (a simulator bug is recorded, not hidden). */
export function answer(
  state: MastodonSandboxState,
  spec: MastodonSpec | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  body: unknown,
) {
  if (spec)
    state.violations.push(...checkAnswer(spec, request.method, pathUnder(state, request), status, body))
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(body))
}
