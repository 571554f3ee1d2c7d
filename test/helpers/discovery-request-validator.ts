import { readFileSync } from 'node:fs'
import { Ajv, type ValidateFunction } from 'ajv'
import formatsModule from 'ajv-formats'
import { referenceAvailable, referencePath } from './reference.js'

/**
 * Checks requests against a Google discovery document (the YouTube Data API v3 one in
 * ../shared/reference/openapi), so every call the YouTube adapter makes in tests is held to the
 * published contract rather than to the sandbox's reading of it.
 *
 * What is checked, for any method of the document (the adapter uses youtube.videos.insert,
 * youtube.channels.list and youtube.videos.list):
 * - the path and HTTP method match a method (`servicePath + path`, or a `mediaUpload.protocols` path);
 * - every query parameter is one of the method's or the document's global parameters, with the right type
 *   (`boolean`, `integer` with its minimum/maximum, `enum`), repeated only when `repeated`;
 * - required parameters are present, and each `part` names a property of the resource;
 * - a JSON body is validated against the method's `request` schema with `$ref`s resolved from
 *   `doc.schemas` and unknown properties refused (every object schema gets `additionalProperties: false`);
 * - for media uploads: `uploadType`, `X-Upload-Content-Type` / `Content-Type` against
 *   `mediaUpload.accept`, and sizes against `mediaUpload.maxSize`.
 *
 * Two things the discovery document does not encode, handled by hand:
 * - The resumable protocol. The document names `/resumable/upload/...` as the resumable path, while
 *   Google's resumable-upload guide opens sessions with `POST /upload/...?uploadType=resumable`; both are
 *   accepted. The follow-up `PUT` goes to the session URI Google returned, whose `upload_id` parameter is
 *   not in the document; it is accepted there only, with `uploadType=resumable`.
 * - OAuth. Google's token endpoint (oauth2.googleapis.com/token) is not part of the YouTube discovery
 *   document, so the validating fetch passes requests to exempt URLs (the token URL) through unchecked
 *   and lists them in `exempted`.
 */

export const YOUTUBE_DISCOVERY_PATH = referencePath('openapi/youtube-v3.discovery.json')

interface DiscoverySchema {
  id?: string
  type?: string
  $ref?: string
  properties?: Record<string, DiscoverySchema>
  additionalProperties?: DiscoverySchema
  items?: DiscoverySchema
  enum?: string[]
  format?: string
  deprecated?: boolean
}

interface DiscoveryParameter {
  type: string
  location: string
  required?: boolean
  repeated?: boolean
  enum?: string[]
  minimum?: string
  maximum?: string
  deprecated?: boolean
}

interface DiscoveryMethod {
  id: string
  path: string
  /** The path with each `{+name}` spelt out segment by segment (`v4/accounts/{accountsId}/...`), where given. */
  flatPath?: string
  httpMethod: string
  parameters?: Record<string, DiscoveryParameter>
  request?: { $ref: string }
  response?: { $ref: string }
  supportsMediaUpload?: boolean
  mediaUpload?: {
    accept: string[]
    maxSize?: string
    protocols: Record<string, { path: string; multipart?: boolean }>
  }
}

interface DiscoveryResource {
  methods?: Record<string, DiscoveryMethod>
  resources?: Record<string, DiscoveryResource>
}

export interface DiscoveryDoc {
  revision: string
  servicePath: string
  parameters: Record<string, DiscoveryParameter>
  schemas: Record<string, DiscoverySchema>
  resources: Record<string, DiscoveryResource>
}

/** The stored discovery document, or undefined (with a note on stderr) when ../shared is absent. */
export function loadDiscovery(path = YOUTUBE_DISCOVERY_PATH): DiscoveryDoc | undefined {
  if (!referenceAvailable(path)) return undefined
  return JSON.parse(readFileSync(path, 'utf8')) as DiscoveryDoc
}

export interface RequestToCheck {
  method: string
  url: URL
  headers: Headers
  /** The parsed JSON body, `undefined` when there is none, or 'stream' for a binary (media) body. */
  body: unknown
}

export interface CheckResult {
  /** The discovery method id matched (with ` (resumable session)` for a session URI), if any. */
  methodId: string | undefined
  problems: string[]
}

interface Route {
  method: DiscoveryMethod
  httpMethod: string
  pattern: RegExp
  kind: 'plain' | 'upload'
}

const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (
  ajv: Ajv,
) => Ajv

export class DiscoveryRequestValidator {
  private readonly routes: Route[] = []
  private readonly ajv: Ajv
  private readonly compiled = new Map<string, ValidateFunction>()
  /** The path under which the API is served (the pathname of `apiUrl`, e.g. a sandbox prefix). */
  private readonly basePath: string

  constructor(
    readonly doc: DiscoveryDoc,
    options: { apiUrl: string },
  ) {
    this.basePath = new URL(options.apiUrl).pathname.replace(/\/+$/, '')
    const definitions = Object.fromEntries(
      Object.entries(doc.schemas).map(([name, schema]) => [name, toJsonSchema(schema)]),
    )
    this.ajv = new Ajv({ allErrors: true, strict: false })
    addFormats(this.ajv)
    this.ajv.addSchema({ $id: 'discovery', definitions })
    const walk = (resource: DiscoveryResource) => {
      for (const method of Object.values(resource.methods ?? {})) {
        this.routes.push({
          method,
          httpMethod: method.httpMethod,
          // The flat path, where the document gives one, tells `v4/{+name}` of an account from one of a post.
          pattern: pathPattern(`/${doc.servicePath}${method.flatPath ?? method.path}`),
          kind: 'plain',
        })
        for (const protocol of Object.values(method.mediaUpload?.protocols ?? {})) {
          this.routes.push({
            method,
            httpMethod: method.httpMethod,
            pattern: pathPattern(protocol.path),
            kind: 'upload',
          })
        }
      }
      for (const child of Object.values(resource.resources ?? {})) walk(child)
    }
    for (const resource of Object.values(doc.resources)) walk(resource)
  }

  method(id: string): DiscoveryMethod | undefined {
    return this.routes.find((route) => route.method.id === id)?.method
  }

  /** Validates a value against a named schema of the document (unknown properties refused). */
  validateSchema(name: string, value: unknown): string[] {
    let validate = this.compiled.get(name)
    if (!validate) {
      validate = this.ajv.compile({ $ref: `discovery#/definitions/${name}` })
      this.compiled.set(name, validate)
    }
    if (validate(value)) return []
    return (validate.errors ?? []).map(
      (error) =>
        `${name}${error.instancePath || ''} ${error.message ?? 'is invalid'}${
          error.keyword === 'additionalProperties'
            ? ` (${(error.params as { additionalProperty: string }).additionalProperty})`
            : ''
        }`,
    )
  }

  check(request: RequestToCheck): CheckResult {
    const problems: string[] = []
    const httpMethod = request.method.toUpperCase()
    const fullPath = request.url.pathname
    if (!fullPath.startsWith(this.basePath))
      return {
        methodId: undefined,
        problems: [`${httpMethod} ${fullPath} is outside the API at ${this.basePath || '/'}`],
      }
    const path = fullPath.slice(this.basePath.length) || '/'
    const query = request.url.searchParams

    // A PUT on an upload path carrying upload_id continues a resumable session opened by videos.insert.
    const uploadRoutes = this.routes.filter((route) => route.kind === 'upload' && route.pattern.test(path))
    if (httpMethod === 'PUT' && query.has('upload_id') && uploadRoutes.length > 0) {
      const method = uploadRoutes[0]!.method
      if (query.get('uploadType') !== 'resumable')
        problems.push(`${method.id} session: uploadType must be resumable, got ${query.get('uploadType')}`)
      this.checkQuery(method, query, problems, { allowUploadId: true, checkRequired: false })
      this.checkMediaHeaders(method, request.headers, problems, 'session')
      return { methodId: `${method.id} (resumable session)`, problems }
    }

    const route =
      uploadRoutes.find((r) => r.httpMethod === httpMethod) ??
      this.routes.find((r) => r.kind === 'plain' && r.httpMethod === httpMethod && r.pattern.test(path))
    if (!route) {
      const other = this.routes.find((r) => r.pattern.test(path))
      return {
        methodId: undefined,
        problems: [
          other
            ? `${httpMethod} ${path}: the document has ${other.httpMethod} there (${other.method.id}), not ${httpMethod}`
            : `${httpMethod} ${path} matches no method of the discovery document (revision ${this.doc.revision})`,
        ],
      }
    }
    const { method } = route
    this.checkQuery(method, query, problems, { allowUploadId: false, checkRequired: true })
    if (route.kind === 'upload') {
      const uploadType = query.get('uploadType')
      if (!uploadType || !['resumable', 'multipart', 'media'].includes(uploadType))
        problems.push(`${method.id}: an upload needs uploadType=resumable|multipart|media, got ${uploadType}`)
      if (uploadType === 'resumable') this.checkMediaHeaders(method, request.headers, problems, 'initiation')
    }
    if (request.body === 'stream') {
      if (route.kind !== 'upload')
        problems.push(`${method.id}: a binary body on a method without media upload`)
    } else if (request.body !== undefined) {
      if (!method.request) problems.push(`${method.id} takes no request body`)
      else
        problems.push(
          ...this.validateSchema(method.request.$ref, request.body).map((p) => `${method.id} body: ${p}`),
        )
    } else if (method.request && route.kind === 'upload' && query.get('uploadType') === 'resumable') {
      problems.push(`${method.id}: the resumable session request carries no metadata`)
    }
    return { methodId: method.id, problems }
  }

  private checkQuery(
    method: DiscoveryMethod,
    query: URLSearchParams,
    problems: string[],
    options: { allowUploadId: boolean; checkRequired: boolean },
  ) {
    const params = method.parameters ?? {}
    const names = new Set(query.keys())
    for (const name of names) {
      if (name === 'upload_id' && options.allowUploadId) continue
      const param = params[name] ?? this.doc.parameters[name]
      if (param?.location !== 'query') {
        problems.push(`${method.id}: unknown query parameter ${name}`)
        continue
      }
      if (param.deprecated) problems.push(`${method.id}: query parameter ${name} is deprecated`)
      const values = query.getAll(name)
      if (values.length > 1 && !param.repeated) problems.push(`${method.id}: ${name} is not repeatable`)
      for (const value of values) {
        const problem = checkValue(name, param, value)
        if (problem) problems.push(`${method.id}: ${problem}`)
      }
    }
    if (options.checkRequired)
      for (const [name, param] of Object.entries(params))
        if (param.required && param.location === 'query' && !names.has(name))
          problems.push(`${method.id}: required parameter ${name} is missing`)
    if (names.has('part')) {
      const resource = this.resourceSchema(method)
      const properties = resource ? Object.keys(this.doc.schemas[resource]?.properties ?? {}) : []
      for (const part of query.getAll('part').flatMap((value) => value.split(','))) {
        if (!part.trim()) problems.push(`${method.id}: empty part`)
        else if (properties.length > 0 && !properties.includes(part.trim()))
          problems.push(`${method.id}: part ${part} is not a property of ${resource}`)
      }
    }
  }

  /** The resource a method's `part` refers to: its request schema, or the item schema of a list response. */
  private resourceSchema(method: DiscoveryMethod): string | undefined {
    if (method.request) return method.request.$ref
    const response = method.response?.$ref
    const items = response ? this.doc.schemas[response]?.properties?.items?.items?.$ref : undefined
    return items ?? response
  }

  private checkMediaHeaders(
    method: DiscoveryMethod,
    headers: Headers,
    problems: string[],
    stage: 'initiation' | 'session',
  ) {
    const upload = method.mediaUpload
    if (!upload) {
      problems.push(`${method.id} does not take media`)
      return
    }
    const maxSize = upload.maxSize ? Number(upload.maxSize) : Number.POSITIVE_INFINITY
    const accepts = (type: string) =>
      upload.accept.some((pattern) =>
        pattern.endsWith('/*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern,
      )
    if (stage === 'initiation') {
      const type = headers.get('x-upload-content-type')
      if (type && !accepts(type.split(';')[0]!.trim()))
        problems.push(`${method.id}: X-Upload-Content-Type ${type} is not in ${upload.accept.join(', ')}`)
      const length = headers.get('x-upload-content-length')
      if (length !== null && (!/^\d+$/.test(length) || Number(length) > maxSize))
        problems.push(`${method.id}: X-Upload-Content-Length ${length} is not a size up to ${maxSize}`)
      const contentType = headers.get('content-type')
      if (!contentType?.startsWith('application/json'))
        problems.push(`${method.id}: the session request must send JSON metadata, not ${contentType}`)
      return
    }
    const range = headers.get('content-range')
    const statusQuery = range !== null && /^bytes \*\/\d+$/.test(range)
    const length = headers.get('content-length')
    if (statusQuery) {
      if (length !== '0') problems.push(`${method.id}: a status query must have Content-Length 0`)
      return
    }
    const type = headers.get('content-type')
    if (!type || !accepts(type.split(';')[0]!.trim()))
      problems.push(`${method.id}: upload Content-Type ${type} is not in ${upload.accept.join(', ')}`)
    if (length !== null && (!/^\d+$/.test(length) || Number(length) > maxSize))
      problems.push(`${method.id}: upload Content-Length ${length} is not a size up to ${maxSize}`)
  }
}

function checkValue(name: string, param: DiscoveryParameter, value: string): string | undefined {
  if (param.enum && !param.enum.includes(value))
    return `${name}=${value} is not one of ${param.enum.join(', ')}`
  switch (param.type) {
    case 'boolean':
      return value === 'true' || value === 'false' ? undefined : `${name}=${value} is not a boolean`
    case 'integer': {
      if (!/^-?\d+$/.test(value)) return `${name}=${value} is not an integer`
      const n = Number(value)
      if (param.minimum !== undefined && n < Number(param.minimum))
        return `${name}=${value} is below ${param.minimum}`
      if (param.maximum !== undefined && n > Number(param.maximum))
        return `${name}=${value} is above ${param.maximum}`
      return undefined
    }
    default:
      return undefined
  }
}

/**
 * `youtube/v3/videos/{id}` as an anchored regular expression. A `{name}` segment stops at a `/` and at a
 * `:` (Google's custom methods, `locations/{id}:fetchMultiDailyMetricsTimeSeries`).
 */
function pathPattern(template: string): RegExp {
  const normalized = `/${template.replace(/^\/+/, '')}`
  const source = normalized
    .split(/(\{\+?[^}]+\})/)
    .map((piece) =>
      piece.startsWith('{+')
        ? '.+'
        : piece.startsWith('{')
          ? '[^/:]+'
          : piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('')
  return new RegExp(`^${source}$`)
}

/** A discovery schema as JSON Schema, with unknown properties refused on every object that lists its properties. */
function toJsonSchema(schema: DiscoverySchema): Record<string, unknown> {
  if (schema.$ref) return { $ref: `discovery#/definitions/${schema.$ref}` }
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = { type: 'object' }
      if (schema.properties)
        out.properties = Object.fromEntries(
          Object.entries(schema.properties).map(([name, child]) => [name, toJsonSchema(child)]),
        )
      if (schema.additionalProperties) out.additionalProperties = toJsonSchema(schema.additionalProperties)
      else if (schema.properties) out.additionalProperties = false
      return out
    }
    case 'array':
      return { type: 'array', ...(schema.items ? { items: toJsonSchema(schema.items) } : {}) }
    case 'string':
      return {
        type: 'string',
        ...(schema.enum ? { enum: schema.enum } : {}),
        ...(schema.format === 'date-time' ? { format: 'date-time' } : {}),
      }
    case 'integer':
      return { type: 'integer' }
    case 'number':
      return { type: 'number' }
    case 'boolean':
      return { type: 'boolean' }
    default:
      return {}
  }
}

export interface CheckedRequest extends CheckResult {
  method: string
  url: string
}

export interface ValidatingFetch {
  fetch: typeof fetch
  /** Every request checked against the document, with its method id. */
  checked: CheckedRequest[]
  /** Requests passed through unchecked (the OAuth token endpoint). */
  exempted: string[]
  /** Every problem found, prefixed with the request; tests assert it stays empty. */
  problems: string[]
  /** Problems in JSON answers checked against the method's response schema (the sandbox's fidelity). */
  responseProblems: string[]
}

/**
 * A fetch for `deps.http` that validates each request to `apiUrl` before sending it. URLs starting with
 * one of `exempt` pass through unchecked; anything else outside `apiUrl` is a problem. With
 * `validateResponses`, JSON answers are checked against the method's response schema too. Without a
 * validator (document absent) it only forwards.
 */
export function createValidatingFetch(options: {
  validator: DiscoveryRequestValidator | undefined
  apiUrl: string
  exempt?: string[]
  inner?: typeof fetch
  validateResponses?: boolean
}): ValidatingFetch {
  const inner = options.inner ?? fetch
  const state: ValidatingFetch = {
    fetch: inner,
    checked: [],
    exempted: [],
    problems: [],
    responseProblems: [],
  }
  const validator = options.validator
  const apiBase = options.apiUrl.replace(/\/+$/, '')
  state.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    const href = url.toString()
    if (options.exempt?.some((prefix) => href.startsWith(prefix))) {
      state.exempted.push(`${method} ${url.origin}${url.pathname}`)
      return inner(input, init)
    }
    if (!validator) return inner(input, init)
    const label = `${method} ${url.pathname}${url.search}`
    if (!href.startsWith(apiBase)) {
      state.problems.push(`${label}: outside the YouTube API at ${apiBase}`)
      return inner(input, init)
    }
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
    let body: unknown
    const raw = init?.body
    if (raw === undefined || raw === null) body = undefined
    else if (typeof raw === 'string') {
      try {
        body = JSON.parse(raw)
      } catch {
        body = 'stream'
      }
    } else body = 'stream'
    const result = validator.check({ method, url, headers, body })
    state.checked.push({ ...result, method, url: href })
    state.problems.push(...result.problems.map((problem) => `${label}: ${problem}`))
    const response = await inner(input, init)
    if (
      options.validateResponses &&
      result.methodId &&
      (response.status === 200 || response.status === 201)
    ) {
      const type = response.headers.get('content-type') ?? ''
      const responseRef = validator.method(result.methodId.replace(' (resumable session)', ''))?.response
        ?.$ref
      if (type.includes('json') && responseRef) {
        const json = await response
          .clone()
          .json()
          .catch(() => undefined)
        if (json !== undefined)
          state.responseProblems.push(
            ...validator.validateSchema(responseRef, json).map((problem) => `${label} answer: ${problem}`),
          )
      }
    }
    return response
  }) as typeof fetch
  return state
}
