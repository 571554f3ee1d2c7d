import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Checks XRPC calls against Bluesky's published OpenAPI description (`atproto.openapi.json`, stored in
 * `../shared/reference/openapi/`): the method exists at `/xrpc/<nsid>` for that HTTP method, every query
 * parameter is declared (an array parameter may repeat, others may not), required ones are present and
 * typed values parse, and a JSON body only carries declared top-level fields of the declared types with
 * the required ones present. Answers are checked the same way against the 200 schema, where the
 * description has one (some of its schemas are truncated and are not checked).
 */

type Json = Record<string, unknown>

export interface AtprotoSpec {
  paths: Record<string, Record<string, Json>>
  schemas: Record<string, Json>
}

export interface XrpcRequestToCheck {
  method: string
  nsid: string
  /** Query parameters as sent, in order, names repeated for arrays. */
  query: ReadonlyArray<readonly [string, string]>
  contentType?: string
  /** The parsed JSON body, when the request had one. */
  body?: unknown
}

/** `../shared/reference/openapi/atproto.openapi.json` from the project root (works from `src/` and `dist/`). */
export const defaultAtprotoSpecPath = (): string =>
  path.resolve(
    fileURLToPath(new URL('.', import.meta.url)),
    '../../../../shared/reference/openapi/atproto.openapi.json',
  )

/** Reads the description; undefined when the file is not there (a deployment without it checks nothing). */
export function loadAtprotoSpec(file = defaultAtprotoSpecPath()): AtprotoSpec | undefined {
  if (!existsSync(file)) return undefined
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    paths: AtprotoSpec['paths']
    components?: { schemas?: Record<string, Json> }
  }
  return { paths: doc.paths, schemas: doc.components?.schemas ?? {} }
}

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function resolve(spec: AtprotoSpec, schema: unknown): Json | undefined {
  if (!isRecord(schema)) return undefined
  const ref = schema.$ref
  if (typeof ref === 'string') return spec.schemas[ref.replace('#/components/schemas/', '')]
  return schema
}

function operationOf(spec: AtprotoSpec, method: string, nsid: string): Json | undefined {
  return spec.paths[`/xrpc/${nsid}`]?.[method.toLowerCase()]
}

/** Why `value` does not fit a scalar schema, or undefined. */
function scalarProblem(schema: Json, value: unknown): string | undefined {
  // A blob is described as a binary string; in JSON it is the `{$type: 'blob', ref, ...}` object.
  if (schema.format === 'binary') return undefined
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return 'is not a string'
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
        return `is longer than ${schema.maxLength}`
      if (Array.isArray(schema.enum) && !schema.enum.includes(value))
        return `is not one of ${schema.enum.join(', ')}`
      return undefined
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'is not a boolean'
    case 'integer':
      return Number.isInteger(value) ? undefined : 'is not an integer'
    default:
      return undefined
  }
}

/** The problems with a request; empty when it matches the description. */
export function checkXrpcRequest(spec: AtprotoSpec, request: XrpcRequestToCheck): string[] {
  const where = `${request.method.toUpperCase()} ${request.nsid}`
  const operation = operationOf(spec, request.method, request.nsid)
  if (!operation) {
    const other = spec.paths[`/xrpc/${request.nsid}`]
    return [
      other
        ? `${where}: ${request.nsid} is called with ${Object.keys(other).join('/').toUpperCase()}`
        : `${where}: atproto.openapi.json has no method ${request.nsid}`,
    ]
  }
  const problems: string[] = []
  const parameters = ((operation.parameters as Json[] | undefined) ?? []).filter((p) => p.in === 'query')
  const declared = new Map(parameters.map((p) => [String(p.name), (p.schema ?? {}) as Json]))
  const counts = new Map<string, number>()
  for (const [name, value] of request.query) {
    const schema = declared.get(name)
    if (!schema) {
      problems.push(`${where}: unknown parameter ${name}`)
      continue
    }
    counts.set(name, (counts.get(name) ?? 0) + 1)
    const item = schema.type === 'array' ? ((schema.items ?? {}) as Json) : schema
    if (item.type === 'integer' && !/^-?\d+$/.test(value))
      problems.push(`${where}: ${name} is not an integer`)
    if (item.type === 'boolean' && value !== 'true' && value !== 'false')
      problems.push(`${where}: ${name} is not a boolean`)
  }
  for (const [name, schema] of declared) {
    const count = counts.get(name) ?? 0
    const parameter = parameters.find((p) => p.name === name)
    if (parameter?.required && count === 0) problems.push(`${where}: ${name} is required`)
    if (schema.type !== 'array' && count > 1) problems.push(`${where}: ${name} is given ${count} times`)
    if (schema.type === 'array' && typeof schema.maxItems === 'number' && count > schema.maxItems)
      problems.push(`${where}: ${name} takes at most ${schema.maxItems} values`)
  }
  problems.push(...bodyProblems(spec, where, operation, request))
  return problems
}

function bodyProblems(
  spec: AtprotoSpec,
  where: string,
  operation: Json,
  request: XrpcRequestToCheck,
): string[] {
  const content = (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined
  if (!content) {
    return request.body === undefined ? [] : [`${where}: takes no request body`]
  }
  if (content['*/*']) return []
  const json = content['application/json']
  if (!json) return []
  if (!request.contentType?.startsWith('application/json'))
    return [`${where}: the body must be application/json, not ${request.contentType ?? 'missing'}`]
  return objectProblems(spec, where, resolve(spec, json.schema), request.body, 'the body')
}

function objectProblems(
  spec: AtprotoSpec,
  where: string,
  schema: Json | undefined,
  value: unknown,
  what: string,
) {
  const properties = schema?.properties as Record<string, Json> | undefined
  if (!schema || !properties) return []
  if (!isRecord(value)) return [`${where}: ${what} is not a JSON object`]
  const problems: string[] = []
  for (const [name, field] of Object.entries(value)) {
    const declared = properties[name]
    if (!declared) {
      problems.push(`${where}: ${what} has unknown field ${name}`)
      continue
    }
    const problem = scalarProblem(resolve(spec, declared) ?? {}, field)
    if (problem) problems.push(`${where}: ${name} ${problem}`)
  }
  for (const name of (schema.required as string[] | undefined) ?? [])
    if (!(name in value)) problems.push(`${where}: ${what} lacks ${name}`)
  return problems
}

/** The problems with a 200 answer; empty when it matches (or the description has no usable schema). */
export function checkXrpcAnswer(spec: AtprotoSpec, method: string, nsid: string, body: unknown): string[] {
  const operation = operationOf(spec, method, nsid)
  const responses = operation?.responses as Record<string, Json> | undefined
  const content = responses?.['200']?.content as Record<string, Json> | undefined
  const schema = resolve(spec, content?.['application/json']?.schema)
  return objectProblems(spec, `answer to ${method.toUpperCase()} ${nsid}`, schema, body, 'the answer')
}
