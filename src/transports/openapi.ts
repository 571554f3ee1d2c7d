import { scopeFor, scopeWords } from '../oauth/scopes.js'
import type { AnyTool } from '../tools/tool.js'
import { errorBodySchema, inputJsonSchema, outputJsonSchema } from './json-schema.js'

const errorResponses = {
  '400': 'Invalid request: bad JSON, wrong types, unknown fields, or a rule of the tool broken.',
  '401': 'No API key, or a key that is not valid or has been revoked.',
  '402': 'The workspace balance cannot pay for the call; nothing was done.',
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
          ...Object.fromEntries(
            Object.entries(errorResponses).map(([status, description]) => [
              status,
              {
                description,
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
              },
            ]),
          ),
        },
      },
    }
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
    tags: ['Account', 'Channels', 'Publishing', 'Analytics', 'Media', 'Batching'].map((name) => ({ name })),
    paths,
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
      schemas: { Error: errorBodySchema },
    },
  }
}
