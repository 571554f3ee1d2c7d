import type { FastifyReply, FastifyRequest } from 'fastify'
import { type GoogleErrorReason, googleError, isGoogleErrorReason } from './google-errors.js'
import type { Fault } from './model.js'

/** Small HTTP helpers shared by the sandbox's routes. */

export function sendGoogleError(
  reply: FastifyReply,
  reason: GoogleErrorReason,
  override: { message?: string; code?: number } = {},
): FastifyReply {
  const { status, body } = googleError(reason, override)
  return reply.code(status).header('content-type', 'application/json; charset=UTF-8').send(body)
}

/** Closes the connection without an answer (a lost response, as the client sees it). */
export function dropConnection(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack()
  request.raw.socket?.destroy()
}

/** Applies an `error` or `drop` fault; true when the request has been answered (or dropped). */
export function applySimpleFault(
  request: FastifyRequest,
  reply: FastifyReply,
  fault: Fault | undefined,
): boolean {
  if (!fault) return false
  if (fault.action === 'drop') {
    dropConnection(request, reply)
    return true
  }
  if (fault.action === 'error') {
    const reason = fault.reason && isGoogleErrorReason(fault.reason) ? fault.reason : 'backendError'
    sendGoogleError(reply, reason, fault.status === undefined ? {} : { code: fault.status })
    return true
  }
  return false
}

/** The query string as URLSearchParams (repeated keys kept in order). */
export function queryOf(request: FastifyRequest): URLSearchParams {
  return new URL(request.url, 'http://sandbox.invalid').searchParams
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  const match = typeof header === 'string' ? header.match(/^Bearer\s+(.+)$/i) : null
  return match?.[1]?.trim()
}

/** A `part` parameter (comma-separated and/or repeated) as a list of names. */
export function partsOf(query: URLSearchParams): string[] {
  return query
    .getAll('part')
    .flatMap((value) => value.split(','))
    .map((part) => part.trim())
    .filter(Boolean)
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The origin a client used to reach this server. */
export function requestOrigin(request: FastifyRequest, configured: string | undefined): string {
  if (configured) return configured.replace(/\/+$/, '')
  return `${request.protocol}://${request.host}`
}
