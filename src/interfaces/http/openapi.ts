import { eventTypes } from '../../core/webhook-events.js'
import { scopeFor, scopeWords } from '../../modules/oauth-server/scopes.js'
import { eventSchema, openApiWebhooks } from '../../modules/outbox/catalog.js'
import type { AnyTool } from '../tools/tool.js'
import {
  errorBodySchema,
  inputJsonSchema,
  type JsonSchema,
  outputJsonSchema,
  zodJsonSchema,
} from './json-schema.js'
import { type ManageOperation, manageOperations, openApiPath, workspaceQuery } from './manage-api.js'
import {
  attemptsQuery,
  endpointCreateBody,
  endpointUpdateBody,
  plainBody,
  redeliverBody,
  settingsBody,
} from './webhook-api.js'

const errorResponses = {
  '400': 'Invalid request: bad JSON, wrong types, unknown fields, or a rule of the tool broken.',
  '401': 'No API key, or a key that is not valid or has been revoked.',
  '402': 'The workspace balance cannot pay for the call; nothing was done.',
  '403':
    'Not allowed: an OAuth token without the scope this needs, or an editor asking for an owner decision.',
  '404': 'Unknown tool, or a workspace, post or profile the caller cannot see.',
  '409': 'The call conflicts with the current state (for example editing a published post).',
  '413': 'The body is over 1 MB.',
  '415': 'The body is not application/json.',
  '429': 'Rate limit reached; see Retry-After.',
  '500': 'Internal error.',
}

/** The OpenAPI 3.1 description, generated from the registry so the docs cannot drift from the handlers. */
export function buildOpenApi(tools: readonly AnyTool[], baseUrl: string) {
  const paths: Record<string, unknown> = {}
  for (const tool of tools) {
    paths[`/api/tools/${tool.name}`] = {
      post: {
        operationId: tool.name,
        summary: tool.title,
        description: tool.description,
        tags: [tool.category],
        'x-access': tool.access,
        // An OAuth token needs the scope of the tool's access level; an API key may call every tool.
        security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { OAuth2: [scopeFor(tool.access)] }],
        ...(tool.name === 'create_post'
          ? {
              parameters: [
                {
                  name: 'Idempotency-Key',
                  in: 'header',
                  required: false,
                  description:
                    'Same key and same body within 24 hours: the first response again, nothing created or charged twice.',
                  schema: { type: 'string', maxLength: 255 },
                },
              ],
            }
          : {}),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: inputJsonSchema(tool) } },
        },
        responses: {
          '200': {
            description: 'The tool result.',
            content: { 'application/json': { schema: outputJsonSchema(tool) } },
          },
          ...errors(Object.keys(errorResponses)),
        },
      },
    }
  }
  for (const operation of manageOperations) {
    const path = openApiPath(operation.path)
    paths[path] = { ...(paths[path] as object), [operation.method.toLowerCase()]: describe(operation) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Herald',
      version: '1.0.0',
      summary: 'Publish and schedule social posts to seven networks through one JSON API.',
      description:
        'Every tool is `POST /api/tools/<name>` with a JSON object body (`{}` for no arguments). The same tools are served over MCP at `/mcp`.',
    },
    servers: [{ url: baseUrl }],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { OAuth2: [] }],
    tags: [
      ...['Account', 'Channels', 'Publishing', 'Analytics', 'Media', 'Batching'].map((name) => ({ name })),
      {
        name: TEAM_WORKFLOW,
        description:
          'Approvals, posting queues and CSV imports: REST paths of their own beside the tools (not MCP tools).',
      },
      { name: 'Webhooks', description: 'Webhook endpoints and settings (owners only; not MCP tools).' },
    ],
    paths: { ...paths, ...webhookManagementPaths() },
    webhooks: openApiWebhooks(),
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Service API key.' },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'Service API key as a bearer token.' },
        OAuth2: {
          type: 'oauth2',
          description:
            "Herald's own authorization server: authorization code with PKCE (S256) and a `resource` (this server's URL); the token acts in the workspace chosen on the consent page.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/oauth/token`,
              refreshUrl: `${baseUrl}/oauth/token`,
              scopes: scopeWords,
            },
          },
        },
      },
      schemas: { Error: errorBodySchema, Event: eventSchema },
    },
  }
}

/** The webhook management paths (owners only; not tools), their requests from the schemas the routes parse. */
function webhookManagementPaths() {
  return { ...webhookCatalogPaths(), ...webhookEndpointPaths(), ...webhookActionPaths() }
}

const webhookSecurity = [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { OAuth2: [scopeFor('write')] }]
const jsonBody = (schema: unknown) => ({ content: { 'application/json': { schema } } })
const subscribable = eventTypes.filter((type) => type !== 'webhook.test')
const endpointSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    description: { type: 'string' },
    eventTypes: {
      type: 'array',
      items: { type: 'string', enum: subscribable },
      description: '[] means every type.',
    },
    enabled: { type: 'boolean' },
    disabledReason: { type: 'string' },
    disabledAt: { type: 'string', format: 'date-time' },
    previousSecretValidUntil: { type: 'string', format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
  },
}
const withSecretSchema = {
  allOf: [
    endpointSchema,
    {
      type: 'object',
      properties: { secret: { type: 'string', description: 'whsec_…, shown only in this answer.' } },
    },
  ],
}
/** An endpoint's input as the route parses it, each event type named. */
const endpointInput = (schema: typeof endpointCreateBody | typeof endpointUpdateBody) => {
  const body = zodJsonSchema(schema, 'input') as { properties: Record<string, Record<string, unknown>> }
  const types = body.properties.eventTypes
  if (types) types.items = { ...(types.items as object), enum: subscribable }
  return body
}
const settingsSchema = {
  type: 'object',
  properties: { creditsLowThreshold: { type: ['integer', 'null'], minimum: 1 } },
}
const attemptSchema = {
  type: 'object',
  properties: {
    eventId: { type: 'string' },
    eventType: { type: 'string' },
    attemptedAt: { type: 'string', format: 'date-time' },
    statusCode: { type: ['integer', 'null'], description: 'null: no answer (refused, timed out, reset).' },
    latencyMs: { type: 'integer' },
    outcome: { type: 'string', enum: ['delivered', 'failed', 'gave_up', 'gone'] },
    responseExcerpt: { type: 'string', description: "The answer's first characters, or why none came." },
  },
}
const queuedSchema = {
  type: 'object',
  properties: {
    eventId: { type: 'string' },
    endpointId: { type: 'string' },
    status: { type: 'string', enum: ['pending'] },
  },
}
/** One owner-only webhook operation with the error answers every such route can give. */
const op = (
  operationId: string,
  summary: string,
  extra: { parameters?: unknown[]; requestBody?: unknown; responses: object },
  conflicts = false,
) => ({
  operationId,
  summary,
  tags: ['Webhooks'],
  security: webhookSecurity,
  ...extra,
  responses: {
    ...extra.responses,
    ...Object.fromEntries(
      [
        '400',
        '401',
        '403',
        '404',
        ...(conflicts ? ['409'] : []),
        ...(extra.requestBody ? ['413', '415'] : []),
        '429',
        '500',
      ].map((status) => [
        status,
        {
          description:
            status === '403'
              ? 'Not an owner of the workspace.'
              : (errorResponses as Record<string, string>)[status],
          ...jsonBody({ $ref: '#/components/schemas/Error' }),
        },
      ]),
    ),
  },
})
const requestBody = (schema: Parameters<typeof zodJsonSchema>[0], required = true) => ({
  required,
  ...jsonBody(zodJsonSchema(schema, 'input')),
})
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } }

/** Evaluated per call, like the other paths: the workspace query parameter as the routes parse it. */
const workspaceParameters = () => parameters(workspaceQuery, 'query')

/** The event catalog and the credits.low setting. */
function webhookCatalogPaths() {
  return {
    '/api/webhooks/event-types': {
      get: op('listWebhookEventTypes', 'The event catalog', {
        responses: {
          '200': {
            description: 'Event types.',
            ...jsonBody({
              type: 'object',
              properties: { eventTypes: { type: 'array', items: { type: 'string', enum: subscribable } } },
            }),
          },
        },
      }),
    },
    '/api/webhooks/settings': {
      get: op('getWebhookSettings', 'The credits.low threshold', {
        parameters: workspaceParameters(),
        responses: { '200': { description: 'Settings.', ...jsonBody(settingsSchema) } },
      }),
      post: op('changeWebhookSettings', 'Set the credits.low threshold (null: off)', {
        requestBody: requestBody(settingsBody),
        responses: { '200': { description: 'Settings.', ...jsonBody(settingsSchema) } },
      }),
    },
  }
}

/** Endpoints: list, add, read, change, remove. */
function webhookEndpointPaths() {
  return {
    '/api/webhooks/endpoints': {
      get: op('listWebhookEndpoints', 'List endpoints (never a secret)', {
        parameters: workspaceParameters(),
        responses: {
          '200': { description: 'Endpoints.', ...jsonBody({ type: 'array', items: endpointSchema }) },
        },
      }),
      post: op('createWebhookEndpoint', 'Add an endpoint; its secret is shown once', {
        requestBody: { required: true, ...jsonBody(endpointInput(endpointCreateBody)) },
        responses: { '201': { description: 'Created.', ...jsonBody(withSecretSchema) } },
      }),
    },
    '/api/webhooks/endpoints/{id}': {
      get: op('getWebhookEndpoint', 'One endpoint', {
        parameters: [idParameter, ...workspaceParameters()],
        responses: { '200': { description: 'The endpoint.', ...jsonBody(endpointSchema) } },
      }),
      patch: op('updateWebhookEndpoint', 'Change URL, description, event types or enabled', {
        parameters: [idParameter],
        requestBody: { required: true, ...jsonBody(endpointInput(endpointUpdateBody)) },
        responses: { '200': { description: 'The endpoint.', ...jsonBody(endpointSchema) } },
      }),
      delete: op('deleteWebhookEndpoint', 'Remove an endpoint and its log', {
        parameters: [idParameter, ...workspaceParameters()],
        responses: {
          '200': {
            description: 'Deleted.',
            ...jsonBody({
              type: 'object',
              properties: { id: { type: 'string' }, deleted: { type: 'boolean', enum: [true] } },
            }),
          },
        },
      }),
    },
  }
}

/** What an endpoint does besides: rotate its secret, send a test, its log, redeliver an event. */
function webhookActionPaths() {
  return {
    '/api/webhooks/endpoints/{id}/rotate-secret': {
      post: op(
        'rotateWebhookSecret',
        'A new secret (shown once); the old one also signs for 24 hours (rotating again within them replaces only the new one)',
        {
          parameters: [idParameter],
          requestBody: requestBody(plainBody, false),
          responses: {
            '200': { description: 'The endpoint with its new secret.', ...jsonBody(withSecretSchema) },
          },
        },
      ),
    },
    '/api/webhooks/endpoints/{id}/test': {
      post: op(
        'sendWebhookTest',
        'Send a webhook.test event (409 while the endpoint is disabled)',
        {
          parameters: [idParameter],
          requestBody: requestBody(plainBody, false),
          responses: { '202': { description: 'Queued.', ...jsonBody(queuedSchema) } },
        },
        true,
      ),
    },
    '/api/webhooks/endpoints/{id}/attempts': {
      get: op('listWebhookAttempts', 'The delivery log, newest first', {
        parameters: [idParameter, ...parameters(attemptsQuery, 'query')],
        responses: {
          '200': {
            description: 'Attempts: time, event type, status code, latency, response excerpt, outcome.',
            ...jsonBody({ type: 'array', items: attemptSchema }),
          },
        },
      }),
    },
    '/api/webhooks/endpoints/{id}/redeliver': {
      post: op(
        'redeliverWebhookEvent',
        'Send an event to this endpoint again (same webhook-id; 409 while it is still pending)',
        {
          parameters: [idParameter],
          requestBody: requestBody(redeliverBody),
          responses: { '202': { description: 'Queued.', ...jsonBody(queuedSchema) } },
        },
        true,
      ),
    },
  }
}

const TEAM_WORKFLOW = 'Team workflow'

const errors = (statuses: string[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: errorResponses[status as keyof typeof errorResponses],
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  )

/** Path or query parameters from an object schema, one per field. */
function parameters(schema: ManageOperation['query'], where: 'path' | 'query') {
  if (!schema) return []
  const json = zodJsonSchema(schema, 'input')
  const required = new Set((json.required as string[] | undefined) ?? [])
  return Object.entries((json.properties ?? {}) as Record<string, JsonSchema>).map(
    ([name, { description, ...property }]) => ({
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: property,
    }),
  )
}

/** One team-workflow path (src/interfaces/http/manage-api.ts) as an OpenAPI operation. */
function describe(operation: ManageOperation) {
  const file = { schema: { type: 'string', description: 'The CSV file, UTF-8 (with or without BOM).' } }
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: [TEAM_WORKFLOW],
    'x-access': operation.access,
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { OAuth2: [scopeFor(operation.access)] }],
    parameters: [...parameters(operation.params, 'path'), ...parameters(operation.query, 'query')],
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: zodJsonSchema(operation.body, 'input') },
              ...(operation.csvBody ? { 'text/csv': file, 'text/plain': file } : {}),
            },
          },
        }
      : {}),
    responses: {
      '200': {
        description: 'The result.',
        content: { 'application/json': { schema: zodJsonSchema(operation.answer, 'output') } },
      },
      ...errors(['400', '401', ...operation.errors, '429', '500'].sort()),
    },
  }
}
