import { readFileSync } from 'node:fs'
import { parseDocument } from 'yaml'
import { referencePath } from './reference.js'

/**
 * A checker for `../shared/reference/openapi/tiktok-zernio.openapi.yaml`, the community-written OpenAPI
 * description of TikTok's API (Zernio's, hand-written from TikTok's pages). Every call Herald's adapter
 * makes (and every answer the simulator gives) is compared with it: the operation for the method and path,
 * the query parameters it declares, the body and answer fields of its schemas. Where the file and TikTok's
 * own pages disagree, Herald follows TikTok's pages: those differences are listed by the test (and in
 * docs/networks.md), so a new one fails it.
 *
 * The file holds the path `/post/publish/creator_info/query/` twice (a POST, and a GET TikTok does not
 * have), which a strict YAML parser refuses: the two are read as one path item with both methods.
 */

export const ZERNIO_FILE = referencePath('openapi/tiktok-zernio.openapi.yaml')

type Schema = Record<string, any>

export interface ZernioSpec {
  paths: Record<string, Record<string, any>>
  schemas: Record<string, Schema>
  duplicatePaths: string[]
}

export function loadZernio(file = ZERNIO_FILE): ZernioSpec {
  const doc = parseDocument(readFileSync(file, 'utf8'), { uniqueKeys: false })
  if (doc.errors.length > 0) throw doc.errors[0]
  const paths: Record<string, Record<string, any>> = {}
  const duplicatePaths: string[] = []
  const items = (doc.get('paths') as { items: Array<{ key: any; value: any }> }).items
  for (const item of items) {
    const key = String(item.key?.value ?? item.key)
    if (paths[key]) duplicatePaths.push(key)
    paths[key] = { ...paths[key], ...item.value.toJSON() }
  }
  const json = doc.toJSON() as { components: { schemas: Record<string, Schema> } }
  return { paths, schemas: json.components.schemas, duplicatePaths }
}

/** A schema with its `$ref`s followed, `oneOf` variants merged into one set of properties. */
function resolve(spec: ZernioSpec, schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined
  if (typeof schema.$ref === 'string') return resolve(spec, spec.schemas[schema.$ref.split('/').at(-1)!])
  if (Array.isArray(schema.oneOf)) {
    const properties: Record<string, Schema> = {}
    for (const variant of schema.oneOf) Object.assign(properties, resolve(spec, variant)?.properties ?? {})
    return { type: 'object', properties }
  }
  return schema
}

/**
 * The fields of `value` that `schema` does not declare, as dotted paths (`post_info.post_mode`). Objects
 * the schema declares without properties (`properties: {}`) take no fields; arrays are checked item by item.
 */
export function undeclared(spec: ZernioSpec, schema: Schema | undefined, value: unknown, at = ''): string[] {
  const resolved = resolve(spec, schema)
  if (!resolved || value === null || typeof value !== 'object') return []
  if (Array.isArray(value))
    return resolved.items
      ? value.flatMap((item, i) => undeclared(spec, resolved.items, item, `${at}[${i}]`))
      : []
  if (!resolved.properties) return []
  return Object.entries(value as Record<string, unknown>).flatMap(([key, field]) => {
    const path = at ? `${at}.${key}` : key
    const declared = (resolved.properties as Record<string, Schema>)[key]
    return declared ? undeclared(spec, declared, field, path) : [path]
  })
}

/** Zernio's server is `https://open.tiktokapis.com/v2`: its paths are the URL's path after `/v2`. */
export const zernioPath = (urlPath: string) => urlPath.replace(/^\/v2(?=\/)/, '')

export interface SentCall {
  method: string
  /** The URL path as sent (`/v2/post/publish/video/init/`). */
  path: string
  query: Record<string, string>
  /** The JSON or form body, parsed. */
  body?: unknown
  headers: Record<string, string>
}

/** What in a call the description does not have: its operation, a query parameter, a body field. */
export function requestDifferences(spec: ZernioSpec, call: SentCall): string[] {
  const method = call.method.toLowerCase()
  const where = `${call.method} ${call.path}`
  const operation = spec.paths[zernioPath(call.path)]?.[method] ?? spec.paths[call.path]?.[method]
  if (!operation) return [`${where}: no such operation`]
  const out: string[] = []
  const query = new Set(
    (operation.parameters ?? []).filter((p: Schema) => p.in === 'query').map((p: Schema) => p.name as string),
  )
  for (const name of Object.keys(call.query))
    if (!query.has(name)) out.push(`${where}: query parameter ${name}`)
  const content = operation.requestBody?.content ?? {}
  const schema = (content['application/json'] ?? content['application/x-www-form-urlencoded'])?.schema
  for (const field of undeclared(spec, schema, call.body)) out.push(`${where}: body field ${field}`)
  return out
}

/** The fields of a 200 answer's `data` (or the whole answer, for OAuth) the description does not have. */
export function responseDifferences(
  spec: ZernioSpec,
  call: Pick<SentCall, 'method' | 'path'>,
  body: unknown,
): string[] {
  const method = call.method.toLowerCase()
  const operation = spec.paths[zernioPath(call.path)]?.[method] ?? spec.paths[call.path]?.[method]
  const schema = operation?.responses?.['200']?.content?.['application/json']?.schema
  const resolved = resolve(spec, schema)
  const data = resolved?.properties?.data
  const [target, value] = data ? [data, (body as { data?: unknown })?.data] : [schema, body]
  return undeclared(spec, target, value).map((field) => `${call.method} ${call.path} answer: ${field}`)
}
