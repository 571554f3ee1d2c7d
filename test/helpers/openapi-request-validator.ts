import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Ajv, type ValidateFunction } from 'ajv'
import type { FormatsPlugin } from 'ajv-formats'

/**
 * Checks outgoing HTTP requests against an OpenAPI 3.0 document: the operation exists for the method
 * and path (templates such as `/2/tweets/{id}` matched, path parameters checked against their schemas),
 * query parameters are declared, present when required and valid, a JSON body matches the operation's
 * requestBody schema with every `$ref` resolved, a multipart or form body only uses fields the schema
 * declares (and carries the required ones), and secured operations carry an Authorization header.
 *
 * Used by adapter tests through {@link createValidatingFetch}, passed to an adapter as `deps.http`.
 */

// ajv-formats is CommonJS with a default export; require gives the plugin under Node and vitest alike.
const addFormats = createRequire(import.meta.url)('ajv-formats') as FormatsPlugin

type Json = Record<string, unknown>

interface Parameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required?: boolean
  explode?: boolean
  schemaPointer: string
  schema: Json
}

interface Operation {
  method: string
  template: string
  operationId?: string
  pointer: string
  operation: Json
  parameters: Parameter[]
  regex: RegExp
  pathParamNames: string[]
  literalLength: number
}

export interface RequestToValidate {
  method: string
  /** Path relative to the API base, e.g. `/2/tweets/123`. */
  path: string
  query: URLSearchParams
  headers: Headers
  /** Absent when the request has no body. */
  body?: { contentType: string; text?: string; form?: [string, string | Blob][] }
}

export interface ValidationOutcome {
  operationId?: string
  problems: string[]
}

const DOC_ID = 'openapi.json'
const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1')
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export class OpenApiRequestValidator {
  private readonly operations: Operation[] = []
  private readonly ajv: Ajv
  /** Coerces strings (query, path, form fields) to the schema's scalar types before validating. */
  private readonly ajvCoercing: Ajv
  private readonly compiled = new Map<string, ValidateFunction>()

  constructor(readonly doc: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false })
    this.ajvCoercing = new Ajv({
      strict: false,
      allErrors: true,
      validateSchema: false,
      coerceTypes: 'array',
    })
    for (const ajv of [this.ajv, this.ajvCoercing]) {
      addFormats(ajv)
      // OpenAPI 3.0 format names that ajv-formats does not define.
      for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) {
        ajv.addFormat(format, true)
      }
      ajv.addSchema(doc, DOC_ID)
    }
    const paths = isRecord(doc.paths) ? doc.paths : {}
    for (const [template, item] of Object.entries(paths)) {
      if (!isRecord(item)) continue
      const itemPointer = `#/paths/${escapePointer(template)}`
      const shared = this.parameters(item.parameters, `${itemPointer}/parameters`)
      for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']) {
        const operation = item[method]
        if (!isRecord(operation)) continue
        const pointer = `${itemPointer}/${method}`
        const own = this.parameters(operation.parameters, `${pointer}/parameters`)
        const merged = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own]
        const pathParamNames: string[] = []
        const pattern = template
          .split('/')
          .map((segment) =>
            segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name: string | undefined) => {
              if (name) {
                pathParamNames.push(name)
                return '([^/]+)'
              }
              return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
            }),
          )
          .join('/')
        this.operations.push({
          method: method.toUpperCase(),
          template,
          operationId: typeof operation.operationId === 'string' ? operation.operationId : undefined,
          pointer,
          operation,
          parameters: merged,
          regex: new RegExp(`^${pattern}$`),
          pathParamNames,
          literalLength: template.replace(/\{[^}]+\}/g, '').length,
        })
      }
    }
  }

  /**
   * Reads the `oneOf` of an array parameter's items as `anyOf`, for a description that lists the same value
   * in two of its alternatives (Pinterest's pin `metric_types`: `IMPRESSION` is both a standard and a video
   * metric, so a strict `oneOf` refuses every metric the two share). Refused (thrown) unless the
   * alternatives do share a value, so it cannot loosen a check that works. Call it before any validation.
   */
  readOverlappingOneOfAsAnyOf(method: string, template: string, parameter: string): void {
    const operation = this.operations.find((o) => o.method === method && o.template === template)
    const found = operation?.parameters.find((p) => p.name === parameter)
    const items = found && isRecord(found.schema.items) ? found.schema.items : undefined
    const alternatives = Array.isArray(items?.oneOf) ? (items.oneOf as Json[]) : []
    const seen = new Set<unknown>()
    const shared = alternatives.some((alt) =>
      (Array.isArray(alt.enum) ? alt.enum : []).some((value) => seen.has(value) || !seen.add(value)),
    )
    if (!items || !shared) throw new Error(`${method} ${template} ${parameter}: no oneOf with shared values`)
    // The parameter's schema is the document's own node: ajv compiles the change on first use.
    items.anyOf = items.oneOf
    delete items.oneOf
  }

  /**
   * Form fields an operation's description names although its schema lacks them (Pinterest's token
   * endpoint describes `continuous_refresh` in words only), by `METHOD template`. See {@link allowDescribedField}.
   */
  private readonly describedFields = new Map<string, Set<string>>()

  /**
   * Accepts `field` on the form of `method template` because the operation's own description names it.
   * Refused (thrown) when the schema already has the field or the description does not mention it, so an
   * allowance cannot hide a real check.
   */
  allowDescribedField(method: string, template: string, field: string): void {
    const operation = this.operations.find((o) => o.method === method && o.template === template)
    if (!operation) throw new Error(`${method} ${template} is not in the OpenAPI document`)
    const description =
      typeof operation.operation.description === 'string' ? operation.operation.description : ''
    if (!description.includes(field))
      throw new Error(`the description of ${method} ${template} does not name ${field}`)
    const content = this.resolve(operation.operation.requestBody).node.content
    for (const media of Object.values(isRecord(content) ? content : {})) {
      const schema = this.resolve(isRecord(media) ? media.schema : undefined).node
      if (field in this.formShape(schema, [['grant_type', '']]).properties)
        throw new Error(`${field} is in the schema of ${method} ${template}: validate it instead`)
    }
    const key = `${method} ${template}`
    this.describedFields.set(key, new Set([...(this.describedFields.get(key) ?? []), field]))
  }

  /**
   * The fields a form schema declares and requires: its own properties, those of its `allOf` parts, and,
   * when it has a discriminator, those of the schema the form's discriminating field maps to (OpenAPI 3.0's
   * way of saying "one of these shapes, by `grant_type`").
   */
  private formShape(schema: Json, form: [string, string | Blob][]): { properties: Json; required: string[] } {
    const properties: Json = {}
    const required: string[] = []
    const visit = (node: Json, depth: number) => {
      if (depth > 5) return
      if (isRecord(node.properties)) Object.assign(properties, node.properties)
      if (Array.isArray(node.required)) required.push(...node.required.map(String))
      for (const part of Array.isArray(node.allOf) ? node.allOf : [])
        visit(this.resolve(part).node, depth + 1)
      const discriminator = isRecord(node.discriminator) ? node.discriminator : undefined
      const property =
        typeof discriminator?.propertyName === 'string' ? discriminator.propertyName : undefined
      const value = property ? form.find(([name]) => name === property)?.[1] : undefined
      const mapping = isRecord(discriminator?.mapping) ? discriminator.mapping : {}
      if (typeof value === 'string' && typeof mapping[value] === 'string')
        visit(this.resolve({ $ref: mapping[value] }).node, depth + 1)
    }
    visit(schema, 0)
    return { properties, required: [...new Set(required)] }
  }

  static fromFile(path: string): OpenApiRequestValidator {
    return new OpenApiRequestValidator(JSON.parse(readFileSync(path, 'utf8')) as Json)
  }

  /** True when the document defines `path` (a template, e.g. `/2/tweets/{id}`) for any method. */
  hasPath(path: string): boolean {
    return this.operations.some((operation) => operation.template === path || operation.regex.test(path))
  }

  /** Resolves a local `$ref` (`#/...`) to the node it names, following chains. */
  resolve(node: unknown): { node: Json; pointer?: string } {
    let current = node
    let pointer: string | undefined
    for (let depth = 0; isRecord(current) && typeof current.$ref === 'string' && depth < 20; depth++) {
      pointer = current.$ref
      current = this.at(pointer)
    }
    return { node: isRecord(current) ? current : {}, pointer }
  }

  private at(pointer: string): unknown {
    if (!pointer.startsWith('#/')) throw new Error(`Only local $refs are supported, got ${pointer}`)
    let current: unknown = this.doc
    for (const raw of pointer.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
      current = isRecord(current) ? current[key] : Array.isArray(current) ? current[Number(key)] : undefined
    }
    return current
  }

  private parameters(list: unknown, pointer: string): Parameter[] {
    if (!Array.isArray(list)) return []
    return list.flatMap((entry, index) => {
      const resolved = this.resolve(entry)
      const base = resolved.pointer ?? `${pointer}/${index}`
      const p = resolved.node
      if (typeof p.name !== 'string' || typeof p.in !== 'string') return []
      return [
        {
          name: p.name,
          in: p.in as Parameter['in'],
          required: p.required === true,
          explode: typeof p.explode === 'boolean' ? p.explode : undefined,
          schemaPointer: `${base}/schema`,
          schema: this.resolve(p.schema).node,
        },
      ]
    })
  }

  private validator(pointer: string, coercing: boolean): ValidateFunction {
    const key = `${coercing ? 'c' : 'p'}${pointer}`
    let validate = this.compiled.get(key)
    if (!validate) {
      validate = (coercing ? this.ajvCoercing : this.ajv).compile({ $ref: `${DOC_ID}${pointer}` })
      this.compiled.set(key, validate)
    }
    return validate
  }

  private check(pointer: string, value: unknown, coercing: boolean, label: string): string[] {
    const validate = this.validator(pointer, coercing)
    if (validate(value)) return []
    return (validate.errors ?? []).map(
      (error) =>
        `${label}${error.instancePath ? ` ${error.instancePath}` : ''} ${error.message ?? 'is invalid'}`,
    )
  }

  /** The operation `method path` maps to: the most literal template wins (`/a/b` over `/a/{id}`). */
  findOperation(
    method: string,
    path: string,
  ): (Operation & { pathParams: Record<string, string> }) | undefined {
    const matches = this.operations
      .filter((operation) => operation.method === method.toUpperCase() && operation.regex.test(path))
      .sort((a, b) => b.literalLength - a.literalLength)
    const best = matches[0]
    if (!best) return undefined
    const values = best.regex.exec(path)!.slice(1)
    const pathParams = Object.fromEntries(
      best.pathParamNames.map((name, i) => [name, decodeURIComponent(values[i]!)]),
    )
    return { ...best, pathParams }
  }

  validate(request: RequestToValidate): ValidationOutcome {
    const label = `${request.method} ${request.path}`
    const found = this.findOperation(request.method, request.path)
    if (!found) {
      const other = this.operations.some((operation) => operation.regex.test(request.path))
      return {
        problems: [
          `${label}: ${other ? 'method not allowed for this path' : 'no such path'} in the OpenAPI document`,
        ],
      }
    }
    const problems: string[] = []
    const where = `${label} (${found.operationId ?? found.template})`

    for (const parameter of found.parameters.filter((p) => p.in === 'path')) {
      const value = found.pathParams[parameter.name]
      problems.push(
        ...this.check(parameter.schemaPointer, value, true, `${where}: path parameter ${parameter.name}`),
      )
    }

    const declared = new Set(found.parameters.filter((p) => p.in === 'query').map((p) => p.name))
    for (const name of new Set(request.query.keys())) {
      if (!declared.has(name)) problems.push(`${where}: query parameter ${name} is not declared`)
    }
    for (const parameter of found.parameters.filter((p) => p.in === 'query')) {
      const values = request.query.getAll(parameter.name)
      if (values.length === 0) {
        if (parameter.required)
          problems.push(`${where}: required query parameter ${parameter.name} is missing`)
        continue
      }
      let value: unknown = values[0]
      if (parameter.schema.type === 'array') {
        // style: form; explode false means one comma-separated value (X's convention), true repeats the key.
        value = parameter.explode === false ? values.join(',').split(',') : values
      }
      problems.push(
        ...this.check(parameter.schemaPointer, value, true, `${where}: query parameter ${parameter.name}`),
      )
    }

    const security = Array.isArray(found.operation.security) ? found.operation.security : undefined
    const secured =
      security &&
      security.length > 0 &&
      !security.some((entry) => isRecord(entry) && Object.keys(entry).length === 0)
    if (secured && !request.headers.get('authorization')) {
      problems.push(`${where}: the operation is secured but the request has no Authorization header`)
    }

    problems.push(...this.validateBody(found, request, where))
    return { operationId: found.operationId, problems }
  }

  private validateBody(found: Operation, request: RequestToValidate, where: string): string[] {
    const declared = this.resolve(found.operation.requestBody)
    const hasDeclared = found.operation.requestBody !== undefined
    const body = request.body
    if (!body) {
      return hasDeclared && declared.node.required === true
        ? [`${where}: the required request body is missing`]
        : []
    }
    if (!hasDeclared) return [`${where}: sends a body but the operation declares none`]
    const bodyPointer = declared.pointer ?? `${found.pointer}/requestBody`
    const content = isRecord(declared.node.content) ? declared.node.content : {}
    const mediaType = body.contentType.split(';')[0]!.trim().toLowerCase()
    if (!(mediaType in content)) {
      return [`${where}: content type ${mediaType} is not one of ${Object.keys(content).join(', ')}`]
    }
    const schemaPointer = `${bodyPointer}/content/${escapePointer(mediaType)}/schema`
    if (mediaType === 'application/json') {
      let parsed: unknown
      try {
        parsed = JSON.parse(body.text ?? '')
      } catch {
        return [`${where}: the body is not valid JSON`]
      }
      return this.check(schemaPointer, parsed, false, `${where}: body`)
    }
    if (mediaType === 'multipart/form-data' || mediaType === 'application/x-www-form-urlencoded') {
      const form = body.form ?? []
      const { properties, required } = this.formShape(this.resolve(this.at(schemaPointer)).node, form)
      const described = this.describedFields.get(`${found.method} ${found.template}`) ?? new Set<string>()
      const problems: string[] = []
      const fields: Json = {}
      for (const [name, value] of form) {
        if (!(name in properties) && !described.has(name))
          problems.push(`${where}: form field ${name} is not in the schema`)
        // A file part stands in as a string: its bytes are not the schema's concern (format: binary).
        fields[name] = typeof value === 'string' ? value : '<binary>'
      }
      for (const name of required) {
        if (!(name in fields)) problems.push(`${where}: required form field ${name} is missing`)
      }
      if (problems.length > 0) return problems
      return this.check(schemaPointer, fields, true, `${where}: form`)
    }
    return []
  }
}

export interface ValidatingFetch {
  /** Pass as `deps.http`: checks each request, then sends it unchanged with the global fetch. */
  fetch: typeof fetch
  /** Every violation seen so far; a test asserts this is empty. */
  problems: string[]
  /** Every request sent, in order, with the operation it matched (and its query, when it has one). */
  requests: {
    method: string
    path: string
    operationId?: string
    exempt?: boolean
    query?: URLSearchParams
  }[]
  reset(): void
}

export interface Exemption {
  method: string
  path: string
  /** Why this request cannot be checked; kept in the code next to the exemption. */
  reason: string
}

/**
 * A fetch that validates every request under `baseUrl` against the document before sending it. A
 * request outside `baseUrl` is a problem too (an adapter talks only to its network). `exempt` lists
 * requests the document does not describe; an exemption for a path the document does define is refused
 * at creation, so it cannot hide a real check.
 */
export function createValidatingFetch(
  doc: OpenApiRequestValidator | string,
  baseUrl: string,
  options: { exempt?: Exemption[] } = {},
): ValidatingFetch {
  const validator = typeof doc === 'string' ? OpenApiRequestValidator.fromFile(doc) : doc
  const base = new URL(baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl)
  const basePath = base.pathname.replace(/\/$/, '')
  const exempt = options.exempt ?? []
  for (const exemption of exempt) {
    if (validator.hasPath(exemption.path)) {
      throw new Error(`${exemption.path} is in the OpenAPI document: validate it instead of exempting it`)
    }
  }
  const problems: string[] = []
  const requests: ValidatingFetch['requests'] = []

  const validatingFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    if (
      url.origin !== base.origin ||
      !(url.pathname === basePath || url.pathname.startsWith(`${basePath}/`))
    ) {
      problems.push(`${request.method} ${url.origin}${url.pathname}: outside the API base ${baseUrl}`)
      requests.push({ method: request.method, path: url.pathname })
      return fetch(request)
    }
    const path = url.pathname.slice(basePath.length) || '/'
    if (exempt.some((e) => e.method.toUpperCase() === request.method && e.path === path)) {
      requests.push({ method: request.method, path, exempt: true })
      return fetch(request)
    }
    const contentType = request.headers.get('content-type')
    let body: RequestToValidate['body']
    if (request.body !== null) {
      const copy = request.clone()
      const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
      if (type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded') {
        const form = await copy.formData()
        body = { contentType: contentType ?? '', form: [...form.entries()] }
      } else {
        const text = await copy.text()
        body = text === '' && !contentType ? undefined : { contentType: contentType ?? '', text }
      }
    }
    const outcome = validator.validate({
      method: request.method,
      path,
      query: url.searchParams,
      headers: request.headers,
      body,
    })
    problems.push(...outcome.problems)
    requests.push({
      method: request.method,
      path,
      operationId: outcome.operationId,
      ...(url.search ? { query: url.searchParams } : {}),
    })
    return fetch(request)
  }

  return {
    fetch: validatingFetch,
    problems,
    requests,
    reset() {
      problems.length = 0
      requests.length = 0
    },
  }
}
