import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manageOperations } from '../src/interfaces/http/manage-api.js'
import { tools } from '../src/interfaces/tools/registry.js'
import { connectProfile } from './helpers/connections.js'
import { type Harness, startHarness } from './helpers/harness.js'
import { addMember, manage } from './helpers/team.js'

/**
 * Routes under /api that /openapi.json leaves out on purpose, each with its reason. `POST /api/tools/:name`
 * is described once per tool (`/api/tools/create_post`, …).
 */
const UNDESCRIBED: Record<string, string> = {
  'GET /api/tools/:name': 'answers 405 with "use POST" for a browser; not an operation',
}

/** A registered route as the OpenAPI operations that describe it. */
const describedAs = (route: string) => {
  const [method, path] = route.split(' ') as [string, string]
  if (path === '/api/tools/:name') return tools.map((t) => `${method.toLowerCase()} /api/tools/${t.name}`)
  return [`${method.toLowerCase()} ${path.replace(/:(\w+)/g, '{$1}')}`]
}

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
    const toolPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/api/tools/'))
    expect(toolPaths.sort()).toEqual(tools.map((t) => `/api/tools/${t.name}`).sort())
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

  it('describes every REST route the server registers under /api, and no path the server does not serve', () => {
    const registered = h.routes.filter((r) => / \/api\//.test(r) && !r.startsWith('HEAD '))
    expect(registered.length).toBeGreaterThan(5)
    const operations = new Set(
      Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method} ${path}`),
      ),
    )
    const served = new Set<string>()
    for (const route of registered) {
      if (route in UNDESCRIBED) continue
      for (const operation of describedAs(route)) {
        expect(operations, `${route} is registered but not in /openapi.json`).toContain(operation)
        served.add(operation)
      }
    }
    expect([...operations].filter((o) => !served.has(o))).toEqual([])
  })

  it('describes the team-workflow paths with their bodies, answers, an API key and the OAuth scope each needs', () => {
    expect(manageOperations.length).toBe(7)
    for (const operation of manageOperations) {
      const path = operation.path.replace(/:(\w+)/g, '{$1}')
      const described = doc.paths[path]?.[operation.method.toLowerCase()]
      expect(described, `${operation.method} ${path}`).toBeDefined()
      expect(described.tags).toEqual(['Team workflow'])
      expect(described.security).toContainEqual({ ApiKeyHeader: [] })
      expect(described.security).toContainEqual({ BearerAuth: [] })
      expect(described.security).toContainEqual({
        OAuth2: [operation.access === 'read' ? 'posts:read' : 'posts:write'],
      })
      expect(described.responses['200'].content['application/json'].schema.type).toBeDefined()
      expect(described.responses['401'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/Error',
      )
      if (operation.method === 'POST')
        expect(described.requestBody.content['application/json'].schema.type).toBe('object')
    }
    expect(doc.paths['/api/approvals/{id}/approve'].post.parameters).toContainEqual(
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
    )
    expect(Object.keys(doc.paths['/api/imports'].post.requestBody.content).sort()).toEqual([
      'application/json',
      'text/csv',
      'text/plain',
    ])
    expect(doc.paths['/api/imports'].post.parameters.map((p: any) => p.name).sort()).toEqual([
      'dryRun',
      'workspaceId',
    ])
  })

  it('answers each team-workflow path with what its schema in /openapi.json says', async () => {
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    const editor = await addMember(h, 'editor')
    const ajv = new Ajv2020({ strict: false })
    const check = (method: string, path: string, answer: { status: number; body: unknown }) => {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      const validate = ajv.compile(
        doc.paths[path][method.toLowerCase()].responses['200'].content['application/json'].schema,
      )
      expect(validate(answer.body), `${method} ${path}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
    check(
      'POST',
      '/api/approvals/settings',
      await manage(h, 'POST', '/api/approvals/settings', { requireApproval: true }),
    )
    check('GET', '/api/approvals', await manage(h, 'GET', '/api/approvals'))
    const post = (content: string) =>
      h.call(
        'create_post',
        { content, platforms: ['linkedin'], scheduleDate: '2031-01-05', scheduleTime: '10:00' },
        { key: editor.apiKey },
      )
    const first = (await post('For the schema check, approved')).body.postIds[0]
    const second = (await post('For the schema check, rejected')).body.postIds[0]
    check(
      'POST',
      '/api/approvals/{id}/approve',
      await manage(h, 'POST', `/api/approvals/${first}/approve`, {}),
    )
    check(
      'POST',
      '/api/approvals/{id}/reject',
      await manage(h, 'POST', `/api/approvals/${second}/reject`, { note: 'Say when' }),
    )
    check(
      'POST',
      '/api/queues',
      await manage(h, 'POST', '/api/queues', {
        platform: 'linkedin',
        profile: 'acme-li',
        timezone: 'Europe/Berlin',
        slots: ['daily 09:00'],
      }),
    )
    check('GET', '/api/queues', await manage(h, 'GET', '/api/queues'))
    const csv = 'content,profiles,queue\nFrom the schema check,linkedin,yes\n'
    check(
      'POST',
      '/api/imports',
      await manage(h, 'POST', '/api/imports?dryRun=1', csv, { contentType: 'text/csv' }),
    )
    check('POST', '/api/imports', await manage(h, 'POST', '/api/imports', { csv }))
  })

  it('refuses an import option it does not know instead of importing', async () => {
    const csv = 'content,profiles,queue\nAn option it does not know,linkedin,yes\n'
    const answer = await manage(h, 'POST', '/api/imports?dryRun=on', csv, { contentType: 'text/csv' })
    expect(answer.status).toBe(400)
    expect(answer.body.error.details[0].path).toBe('dryRun')
    const posts = await h.app.store.db
      .selectFrom('posts')
      .select('id')
      .where('content', '=', 'An option it does not know')
      .execute()
    expect(posts).toEqual([])
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
        'account.expiring',
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

  it('shows examples a real event could be: a post names the platforms of its targets, nothing unpublished has a publish time', () => {
    const example = (type: string) =>
      doc.webhooks[type].post.requestBody.content['application/json'].example.data
    for (const type of ['post.published', 'post.partially_published', 'post.failed']) {
      const { post } = example(type)
      expect(post.platforms, type).toEqual([...new Set(post.targets.map((t: any) => t.platform))])
      if (post.targets.every((t: any) => t.status !== 'published'))
        expect(post.publishedAt, type).toBeUndefined()
    }
    const { target } = example('target.stuck')
    expect(target.status).toBe('pending')
    for (const field of ['postId', 'url', 'publishedAt']) expect(target[field], field).toBeUndefined()
  })

  it('documents the endpoint management paths as owner operations that are not tools', () => {
    expect(doc.paths['/api/webhooks/endpoints'].post.operationId).toBe('createWebhookEndpoint')
    expect(doc.paths['/api/webhooks/endpoints/{id}/redeliver'].post.responses['403']).toBeDefined()
  })

  it('describes each management request as the route parses it: the workspace query, closed bodies, named event types', () => {
    const paths = doc.paths as Record<string, Record<string, any>>
    for (const [path, item] of Object.entries(paths).filter(([p]) => p.startsWith('/api/webhooks/'))) {
      for (const [method, operation] of Object.entries(item)) {
        const names = (operation.parameters ?? []).map((p: { name: string }) => p.name)
        const body = operation.requestBody?.content['application/json'].schema
        const where = `${method} ${path}`
        if (path === '/api/webhooks/event-types') continue
        // The workspace travels in the query of a GET or DELETE and in the body of the rest.
        if (method === 'get' || method === 'delete') expect(names, where).toContain('workspaceId')
        else expect(Object.keys(body.properties), where).toContain('workspaceId')
        if (body) {
          expect(body.additionalProperties, where).toBe(false)
          expect(operation.responses['415'], where).toBeDefined()
        }
        expect(Boolean(operation.responses['409']), where).toBe(/\/(test|redeliver)$/.test(path))
      }
    }
    const create = doc.paths['/api/webhooks/endpoints'].post.requestBody.content['application/json'].schema
    expect(create.properties.url.maxLength).toBe(2000)
    expect(create.properties.eventTypes.items.enum).toContain('post.published')
    expect(create.properties.eventTypes.items.enum).not.toContain('webhook.test')
    const limit = doc.paths['/api/webhooks/endpoints/{id}/attempts'].get.parameters.find(
      (p: { name: string }) => p.name === 'limit',
    )
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 })
  })
})
