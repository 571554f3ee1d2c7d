import { setTimeout as delay } from 'node:timers/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemReply, problems } from './problems.js'
import type { AccessGrant, SandboxAccount, SandboxEndpoint, TwitterSandboxState } from './state.js'

/** What a sandbox handler answers; the wrapper adds rate-limit headers and injected failures. */
export interface SandboxAnswer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export interface EndpointContext {
  request: FastifyRequest
  /** The caller, for endpoints that take a user access token. */
  auth: { account: SandboxAccount; grant: AccessGrant } | undefined
}

export interface EndpointSpec {
  method: 'GET' | 'POST'
  url: string
  endpoint: SandboxEndpoint
  /** `bearer`: a user access token is required (401 otherwise). */
  auth: 'bearer' | 'none'
  /** Scopes the token must carry (403 otherwise), as the OpenAPI `security` of the operation lists. */
  scopes?: string[]
  /** A write endpoint: refused with 403 client-forbidden for an app whose access is read-only. */
  write?: boolean
}

const isProblem = (body: unknown) =>
  typeof body === 'object' && body !== null && 'title' in body && 'type' in body

export function send(reply: FastifyReply, answer: SandboxAnswer) {
  reply.code(answer.status)
  for (const [name, value] of Object.entries(answer.headers ?? {})) reply.header(name, value)
  if (answer.body === undefined) return reply.send()
  reply.type(
    answer.status >= 400 && isProblem(answer.body)
      ? 'application/problem+json'
      : 'application/json; charset=utf-8',
  )
  return reply.send(JSON.stringify(answer.body))
}

/** Closes the connection without an answer, as a network failure or a lost response looks to a client. */
function drop(request: FastifyRequest, reply: FastifyReply) {
  reply.hijack()
  request.raw.socket.destroy()
}

/**
 * Registers one X endpoint: injected failures first (so tests control exactly which call fails), then
 * bearer authentication, app access level, scopes and the per-user rate-limit window, then the handler.
 */
export function defineEndpoint(
  app: FastifyInstance,
  state: TwitterSandboxState,
  spec: EndpointSpec,
  handler: (context: EndpointContext) => SandboxAnswer | Promise<SandboxAnswer>,
) {
  app.route({
    method: spec.method,
    url: spec.url,
    handler: async (request, reply) => {
      const failure = state.faults.takeFailure(spec.endpoint)
      if (failure?.delayMs) await delay(failure.delayMs)
      if (failure?.dropConnection === 'before') return drop(request, reply)
      if (failure && !failure.dropConnection && !failure.afterEffect) {
        const status = failure.status ?? 500
        return send(reply, {
          status,
          body: failure.body ?? problems.forStatus(status),
          headers: failure.headers,
        })
      }
      const rateHeaders: Record<string, string> = {}
      let answer: SandboxAnswer
      try {
        let auth: EndpointContext['auth']
        if (spec.auth === 'bearer') {
          const header = request.headers.authorization ?? ''
          const match = /^Bearer\s+(\S+)$/i.exec(header)
          auth = match ? state.authenticate(match[1]!) : undefined
          if (!auth) throw new ProblemReply(401, problems.unauthorized())
          const clientId = auth.grant.clientId
          if (spec.write && state.client(clientId).access === 'read') {
            throw new ProblemReply(403, problems.clientForbidden(clientId))
          }
          const missing = (spec.scopes ?? []).filter((scope) => !auth?.grant.scopes.includes(scope))
          if (missing.length > 0) {
            throw new ProblemReply(
              403,
              problems.forbidden(
                `The access token lacks the scope this endpoint needs: ${missing.join(', ')}.`,
              ),
            )
          }
          const counted = state.faults.countRequest(auth.account.id, spec.endpoint)
          Object.assign(rateHeaders, counted.headers)
          if (counted.exceeded) throw new ProblemReply(429, problems.tooManyRequests())
        }
        answer = await handler({ request, auth })
      } catch (error) {
        if (!(error instanceof ProblemReply)) throw error
        answer = { status: error.status, body: error.body, headers: error.headers }
      }
      if (failure?.dropConnection === 'after') return drop(request, reply)
      if (failure?.afterEffect) {
        const status = failure.status ?? 500
        return send(reply, {
          status,
          body: failure.body ?? problems.forStatus(status),
          headers: failure.headers,
        })
      }
      return send(reply, { ...answer, headers: { ...rateHeaders, ...answer.headers } })
    },
  })
}
