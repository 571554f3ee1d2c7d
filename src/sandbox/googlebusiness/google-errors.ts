import type { FastifyReply } from 'fastify'

/**
 * The error envelope of Google's newer APIs (the Business Profile ones among them):
 * `{error: {code, message, status, details}}`, with `details` holding typed messages such as
 * `google.rpc.ErrorInfo` (a reason and metadata) and `google.rpc.BadRequest` (field violations). A
 * project with no Business Profile access has a quota of 0: its 429 says `quota_limit_value: "0"`.
 */

export type RpcStatus =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'

const HTTP: Record<RpcStatus, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
}

export function rpcError(status: RpcStatus, message: string, details: unknown[] = [], code = HTTP[status]) {
  return { status: code, body: { error: { code, message, status, ...(details.length ? { details } : {}) } } }
}

export function sendRpcError(
  reply: FastifyReply,
  status: RpcStatus,
  message: string,
  details: unknown[] = [],
): FastifyReply {
  const error = rpcError(status, message, details)
  return reply.code(error.status).header('content-type', 'application/json; charset=UTF-8').send(error.body)
}

/** A field Google refuses, as a BadRequest detail. */
export const badRequest = (field: string, description: string) => ({
  '@type': 'type.googleapis.com/google.rpc.BadRequest',
  fieldViolations: [{ field, description }],
})

/** The 429 of a per-minute quota: the project's own (300), or 0 when Google has not granted access. */
export function quotaError(service: string, limit: number) {
  return rpcError(
    'RESOURCE_EXHAUSTED',
    `Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service '${service}.googleapis.com' for consumer 'project_number:000000000000'.`,
    [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RATE_LIMIT_EXCEEDED',
        domain: 'googleapis.com',
        metadata: {
          quota_limit_value: String(limit),
          quota_metric: `${service}.googleapis.com/default_requests`,
          quota_limit: 'DefaultRequestsPerMinutePerProject',
          quota_location: 'global',
          quota_unit: '1/min/{project}',
          service: `${service}.googleapis.com`,
          consumer: 'projects/000000000000',
        },
      },
      {
        '@type': 'type.googleapis.com/google.rpc.Help',
        links: [
          {
            description: 'Request a higher quota limit.',
            url: 'https://cloud.google.com/docs/quotas/help/request_increase',
          },
        ],
      },
    ],
  )
}

/** What an injected status looks like from this network: its own envelope for 429 and 5xx. */
export function faultBody(
  status: number,
  service: string,
): { body: unknown; headers: Record<string, string> } {
  const { body } =
    status === 429
      ? quotaError(service, 300)
      : status === 503
        ? rpcError('UNAVAILABLE', 'The service is currently unavailable.', [], status)
        : status >= 500
          ? rpcError('INTERNAL', 'Internal error encountered.', [], status)
          : rpcError('INVALID_ARGUMENT', 'Request contains an invalid argument.', [], status)
  return { body, headers: { 'content-type': 'application/json; charset=UTF-8' } }
}
