import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tools } from '../src/tools/registry.js'
import { type Harness, startHarness } from './helpers/harness.js'

describe('OpenAPI description', () => {
  let h: Harness
  let doc: any
  beforeAll(async () => {
    h = await startHarness()
    doc = await (await fetch(`${h.baseUrl}/openapi.json`)).json()
  })
  afterAll(() => h.close())

  it('passes a real OpenAPI 3.1 validator', async () => {
    const validator = new Validator()
    const result = await validator.validate(doc)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('has one POST path per registry tool with operationId equal to the tool name', () => {
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/api/tools/'))
        .sort(),
    ).toEqual(tools.map((t) => `/api/tools/${t.name}`).sort())
    // Management paths that are not tools live under their own prefix.
    expect(
      Object.keys(doc.paths).every((p) => p.startsWith('/api/tools/') || p.startsWith('/api/webhooks/')),
    ).toBe(true)
    for (const tool of tools) {
      const operation = doc.paths[`/api/tools/${tool.name}`].post
      expect(operation.operationId).toBe(tool.name)
      expect(operation.requestBody.content['application/json'].schema.type).toBe('object')
      expect(operation.responses['200']).toBeDefined()
      expect(operation.responses['401'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/Error',
      )
    }
  })

  it('declares both security schemes', () => {
    expect(doc.components.securitySchemes.ApiKeyHeader).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    })
    expect(doc.components.securitySchemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('declares the OAuth scheme and the scope each tool needs from an OAuth token', () => {
    expect(doc.components.securitySchemes.OAuth2.flows.authorizationCode).toMatchObject({
      authorizationUrl: expect.stringMatching(/\/oauth\/authorize$/),
      tokenUrl: expect.stringMatching(/\/oauth\/token$/),
    })
    for (const tool of tools) {
      const security = doc.paths[`/api/tools/${tool.name}`].post.security
      expect(security).toContainEqual({ OAuth2: [tool.access === 'read' ? 'posts:read' : 'posts:write'] })
      expect(security).toContainEqual({ ApiKeyHeader: [] })
    }
  })

  it('describes every input field', () => {
    for (const tool of tools) {
      const schema = doc.paths[`/api/tools/${tool.name}`].post.requestBody.content['application/json'].schema
      for (const [field, property] of Object.entries<any>(schema.properties ?? {})) {
        expect(property.description, `${tool.name}.${field}`).toBeTruthy()
      }
    }
  })

  it('serves a browsable reference at /docs listing every tool', async () => {
    const response = await fetch(`${h.baseUrl}/docs`)
    expect(response.headers.get('content-type')).toContain('text/html')
    const html = await response.text()
    for (const tool of tools) expect(html).toContain(`id="${tool.name}"`)
  })
})

describe('OpenAPI description of webhooks', () => {
  let h: Harness
  let doc: any
  beforeAll(async () => {
    h = await startHarness()
    doc = await (await fetch(`${h.baseUrl}/openapi.json`)).json()
  })
  afterAll(() => h.close())

  it('documents every event type with an example payload under webhooks', () => {
    const types = Object.keys(doc.webhooks).sort()
    expect(types).toEqual(
      [
        'account.needs_reconnect',
        'credits.low',
        'endpoint.disabled',
        'post.failed',
        'post.partially_published',
        'post.published',
        'target.failed',
        'target.published',
        'target.stuck',
        'webhook.test',
      ].sort(),
    )
    for (const type of types) {
      const example = doc.webhooks[type].post.requestBody.content['application/json'].example
      expect(example.type).toBe(type)
      expect(JSON.stringify(example)).not.toMatch(/accessToken|refreshToken|credentials|whsec_/)
    }
  })

  it('documents the endpoint management paths as owner operations that are not tools', () => {
    expect(doc.paths['/api/webhooks/endpoints'].post.operationId).toBe('createWebhookEndpoint')
    expect(doc.paths['/api/webhooks/endpoints/{id}/redeliver'].post.responses['403']).toBeDefined()
  })
})
