import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type AtprotoSpec, checkXrpcAnswer, checkXrpcRequest } from './contract.js'
import type { BlueskySandboxState, SandboxAccount } from './state.js'

/** An XRPC error answer: `{error, message}` with the status the PDS gives it. */
export class XrpcError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message)
  }
}

export const invalidRequest = (message: string, error = 'InvalidRequest') =>
  new XrpcError(400, error, message)

/**
 * Who may call: `access` needs a live access token, `refresh` a live refresh token, `optional` checks a
 * token only when one is sent (reads the PDS also serves to anyone), `none` ignores it.
 */
export type XrpcAuth = 'access' | 'refresh' | 'optional' | 'none'

export interface XrpcContext {
  request: FastifyRequest
  /** The caller's account, when the call was authenticated. */
  account: SandboxAccount | undefined
  /** The token's id (a refresh token's `jti`), when the call was authenticated. */
  tokenId: string | undefined
  /** Query parameters in order, names repeated for arrays. */
  query: Array<[string, string]>
  /** The first value of a query parameter. */
  param(name: string): string | undefined
}

export interface XrpcMethod {
  nsid: string
  method: 'GET' | 'POST'
  auth: XrpcAuth
}

export function sendXrpcError(reply: FastifyReply, error: XrpcError) {
  return reply.code(error.status).type('application/json; charset=utf-8').send({
    error: error.error,
    message: error.message,
  })
}

function authenticate(
  state: BlueskySandboxState,
  request: FastifyRequest,
  auth: XrpcAuth,
): { account: SandboxAccount; tokenId: string } | undefined {
  if (auth === 'none') return undefined
  const header = request.headers.authorization
  const token = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : undefined
  if (!token) {
    if (auth === 'optional') return undefined
    throw new XrpcError(401, 'AuthMissing', 'Authentication Required')
  }
  const claims = state.signer.verify(token)
  if (!claims) throw invalidRequest('Token could not be verified', 'InvalidToken')
  const wanted = auth === 'refresh' ? 'refresh' : 'access'
  if (claims.kind !== wanted) throw invalidRequest('Invalid token type', 'InvalidToken')
  if (claims.exp * 1000 <= state.clock()) throw invalidRequest('Token has expired', 'ExpiredToken')
  if (claims.kind === 'refresh' && !state.liveRefreshTokens.has(claims.jti))
    throw invalidRequest('Token has been revoked', 'ExpiredToken')
  const account = state.accounts.get(claims.did)
  if (!account) throw new XrpcError(403, 'AccountNotFound', 'Account not found')
  return { account, tokenId: claims.jti }
}

/** Closes the connection without an answer, as a lost response looks to a client. */
function drop(request: FastifyRequest, reply: FastifyReply) {
  reply.hijack()
  request.raw.socket.destroy()
}

/**
 * Registers one XRPC method at `/xrpc/<nsid>`: the request is checked against atproto.openapi.json (a
 * mismatch is a 400 InvalidRequest and is recorded), an injected fault applies, the caller is
 * authenticated, then the handler runs and its answer is checked too.
 */
export function defineXrpc(
  app: FastifyInstance,
  state: BlueskySandboxState,
  spec: AtprotoSpec | undefined,
  method: XrpcMethod,
  handler: (context: XrpcContext) => unknown | Promise<unknown>,
): void {
  app.route({
    method: method.method,
    url: `/xrpc/${method.nsid}`,
    handler: async (request, reply) => {
      const query = [...new URL(request.url, 'http://sandbox.invalid').searchParams.entries()]
      if (spec) {
        const problems = checkXrpcRequest(spec, {
          method: method.method,
          nsid: method.nsid,
          query,
          ...(typeof request.headers['content-type'] === 'string'
            ? { contentType: request.headers['content-type'] }
            : {}),
          body: Buffer.isBuffer(request.body) ? undefined : request.body,
        })
        if (problems.length > 0) {
          state.violations.push(...problems)
          return sendXrpcError(reply, invalidRequest(problems.join('; ')))
        }
      }
      const fault = state.takeFault(method.nsid)
      if (fault?.action === 'drop_before') return drop(request, reply)
      if (fault?.action === 'error')
        return sendXrpcError(
          reply,
          new XrpcError(
            fault.status ?? 500,
            fault.error ?? 'InternalServerError',
            fault.message ?? 'Internal Server Error',
          ),
        )
      let body: unknown
      try {
        const caller = authenticate(state, request, method.auth)
        body = await handler({
          request,
          account: caller?.account,
          tokenId: caller?.tokenId,
          query,
          param: (name) => query.find(([key]) => key === name)?.[1],
        })
      } catch (error) {
        if (error instanceof XrpcError) return sendXrpcError(reply, error)
        throw error
      }
      if (fault?.action === 'drop_after') return drop(request, reply)
      if (spec) state.violations.push(...checkXrpcAnswer(spec, method.method, method.nsid, body))
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(body))
    },
  })
}
