import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { AppContext } from '../app-context.js'
import { keyFromHeaders } from '../auth/caller.js'
import { eventTypes, MAX_ENDPOINT_URL_LENGTH } from '../domain/webhook-events.js'
import {
  changeWebhookSettings,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  getWebhookSettings,
  listAttempts,
  listEndpoints,
  redeliver,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  webhookDepsOf,
} from '../webhooks/endpoints.js'
import { actorFor, parse } from './manage-routes.js'
import { authenticateRequest } from './rest.js'

/**
 * REST paths for webhook endpoints (issue 25), for scripts: not one of the 17 tools (DESIGN.md "Additions
 * beyond the spec"). Authenticated like the tools; owners only (an editor is 403). Thin: src/webhooks decides.
 */

const workspaceId = z.string().max(64).optional().describe('Workspace; omitted: the key default.')
const eventTypesField = z
  .array(z.string().max(64))
  .max(eventTypes.length)
  .describe('Event types to receive; [] or omitted: every type.')

export const endpointCreateBody = z.strictObject({
  workspaceId,
  url: z
    .string()
    .max(MAX_ENDPOINT_URL_LENGTH + 1)
    .describe('Where events are POSTed (https; public address).'),
  description: z.string().max(500).optional().describe('A note for people.'),
  eventTypes: eventTypesField.optional(),
  enabled: z.boolean().optional().describe('Default true.'),
})
export const endpointUpdateBody = endpointCreateBody.partial()
const plainBody = z.strictObject({ workspaceId })
const redeliverBody = z.strictObject({
  workspaceId,
  eventId: z.string().min(1).max(64).describe('The event to send again.'),
})

const settingsBody = z.strictObject({
  workspaceId,
  creditsLowThreshold: z
    .number()
    .int()
    .min(1)
    .max(1_000_000_000)
    .nullable()
    .describe('A charge that takes the balance below this sends credits.low; null turns it off.'),
})

const MANAGE = { name: 'webhooks', access: 'write' } as const

type WithId = { Params: { id: string }; Querystring: { workspaceId?: string; limit?: string } }

export function registerWebhookRoutes(server: FastifyInstance, app: AppContext) {
  const deps = webhookDepsOf(app)
  const actor = async (request: FastifyRequest, asked: string | undefined) => {
    const who = await actorFor(app, request, asked, MANAGE)
    return { workspaceId: who.workspaceId, role: who.role }
  }
  server.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      await authenticateRequest(app, request, keyFromHeaders(request.headers))
    })
    scope.get('/api/webhooks/event-types', async () => ({
      eventTypes: eventTypes.filter((t) => t !== 'webhook.test'),
    }))
    scope.get<{ Querystring: { workspaceId?: string } }>('/api/webhooks/settings', async (request) =>
      getWebhookSettings(deps, await actor(request, request.query.workspaceId)),
    )
    scope.post('/api/webhooks/settings', async (request) => {
      const body = parse(settingsBody, request.body, 'webhook settings')
      return changeWebhookSettings(deps, await actor(request, body.workspaceId), body)
    })
    scope.get<{ Querystring: { workspaceId?: string } }>('/api/webhooks/endpoints', async (request) =>
      listEndpoints(deps, await actor(request, request.query.workspaceId)),
    )
    scope.post('/api/webhooks/endpoints', async (request, reply) => {
      const body = parse(endpointCreateBody, request.body, 'webhook endpoint')
      const created = await createEndpoint(deps, await actor(request, body.workspaceId), body)
      reply.code(201)
      return created
    })
    scope.get<WithId>('/api/webhooks/endpoints/:id', async (request) =>
      getEndpoint(deps, await actor(request, request.query.workspaceId), request.params.id),
    )
    scope.patch<WithId>('/api/webhooks/endpoints/:id', async (request) => {
      const body = parse(endpointUpdateBody, request.body, 'webhook endpoint')
      return updateEndpoint(deps, await actor(request, body.workspaceId), request.params.id, body)
    })
    scope.delete<WithId>('/api/webhooks/endpoints/:id', async (request) =>
      deleteEndpoint(deps, await actor(request, request.query.workspaceId), request.params.id),
    )
    scope.post<WithId>('/api/webhooks/endpoints/:id/rotate-secret', async (request) => {
      const body = parse(plainBody, request.body, 'request')
      return rotateSecret(deps, await actor(request, body.workspaceId), request.params.id)
    })
    scope.post<WithId>('/api/webhooks/endpoints/:id/test', async (request, reply) => {
      const body = parse(plainBody, request.body, 'request')
      reply.code(202)
      return sendTestEvent(deps, await actor(request, body.workspaceId), request.params.id)
    })
    scope.get<WithId>('/api/webhooks/endpoints/:id/attempts', async (request) =>
      listAttempts(
        deps,
        await actor(request, request.query.workspaceId),
        request.params.id,
        Number(request.query.limit ?? 50) || 50,
      ),
    )
    scope.post<WithId>('/api/webhooks/endpoints/:id/redeliver', async (request, reply) => {
      const body = parse(redeliverBody, request.body, 'redelivery')
      reply.code(202)
      return redeliver(deps, await actor(request, body.workspaceId), request.params.id, body.eventId)
    })
  })
}
