import type { FastifyInstance, FastifyRequest } from 'fastify'
import { eventTypes } from '../../core/webhook-events.js'
import { keyFromHeaders } from '../../modules/accounts/caller.js'
import type { AppContext } from '../../modules/app-context.js'
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
} from '../../modules/outbox/endpoints.js'
import { workspaceQuery } from './manage-api.js'
import { actorFor, parse } from './manage-routes.js'
import { authenticateRequest } from './rest.js'
import {
  attemptsQuery,
  endpointCreateBody,
  endpointUpdateBody,
  plainBody,
  redeliverBody,
  settingsBody,
} from './webhook-api.js'

/**
 * REST paths for webhook endpoints, for scripts: not one of the 17 tools (DESIGN.md "Additions
 * beyond the spec"). Authenticated like the tools; owners only (an editor is 403). Thin: src/webhooks decides.
 */

const MANAGE = { name: 'webhooks', access: 'write' } as const

type WithId = { Params: { id: string } }

export function registerWebhookRoutes(server: FastifyInstance, app: AppContext) {
  const deps = webhookDepsOf(app)
  const actor = async (request: FastifyRequest, asked: string | undefined) => {
    const who = await actorFor(app, request, asked, MANAGE)
    return { workspaceId: who.workspaceId, role: who.role }
  }
  server.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      await authenticateRequest(app, request, reply, keyFromHeaders(request.headers))
    })
    scope.get('/api/webhooks/event-types', async () => ({
      eventTypes: eventTypes.filter((t) => t !== 'webhook.test'),
    }))
    // The workspace of a GET or DELETE, given once: a repeated one is a 400, never a guess.
    const asked = (request: FastifyRequest) => parse(workspaceQuery, request.query, 'query').workspaceId
    scope.get('/api/webhooks/settings', async (request) =>
      getWebhookSettings(deps, await actor(request, asked(request))),
    )
    scope.post('/api/webhooks/settings', async (request) => {
      const body = parse(settingsBody, request.body, 'webhook settings')
      return changeWebhookSettings(deps, await actor(request, body.workspaceId), body)
    })
    scope.get('/api/webhooks/endpoints', async (request) =>
      listEndpoints(deps, await actor(request, asked(request))),
    )
    scope.post('/api/webhooks/endpoints', async (request, reply) => {
      const body = parse(endpointCreateBody, request.body, 'webhook endpoint')
      const created = await createEndpoint(deps, await actor(request, body.workspaceId), body)
      reply.code(201)
      return created
    })
    scope.get<WithId>('/api/webhooks/endpoints/:id', async (request) =>
      getEndpoint(deps, await actor(request, asked(request)), request.params.id),
    )
    scope.patch<WithId>('/api/webhooks/endpoints/:id', async (request) => {
      const body = parse(endpointUpdateBody, request.body, 'webhook endpoint')
      return updateEndpoint(deps, await actor(request, body.workspaceId), request.params.id, body)
    })
    scope.delete<WithId>('/api/webhooks/endpoints/:id', async (request) =>
      deleteEndpoint(deps, await actor(request, asked(request)), request.params.id),
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
    scope.get<WithId>('/api/webhooks/endpoints/:id/attempts', async (request) => {
      const query = parse(attemptsQuery, request.query, 'query')
      return listAttempts(deps, await actor(request, query.workspaceId), request.params.id, query.limit)
    })
    scope.post<WithId>('/api/webhooks/endpoints/:id/redeliver', async (request, reply) => {
      const body = parse(redeliverBody, request.body, 'redelivery')
      reply.code(202)
      return redeliver(deps, await actor(request, body.workspaceId), request.params.id, body.eventId)
    })
  })
}
