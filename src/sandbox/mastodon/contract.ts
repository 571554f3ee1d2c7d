import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Holds calls to the Mastodon simulator to the community description generated from Mastodon's own docs
 * (`mastodon.openapi.json`, stored in `../shared/reference/openapi/`): the path and method exist; every
 * query parameter is one the operation declares; a JSON, form or multipart body only carries fields the
 * request body declares (`name[]` is the form spelling of the array `name`), with the required ones of at
 * least one of its alternatives present. Answers are held to the 200 (or 202, 206) schema's required
 * fields, so the simulator cannot drift from what clients read.
 */

type Json = Record<string, unknown>

export interface MastodonSpec {
  paths: Record<string, Record<string, Json>>
  schemas: Record<string, Json>
}

export interface CallToCheck {
  method: string
  /** The path under the instance, e.g. `/api/v1/accounts/123/statuses`. */
  path: string
  query: Record<string, unknown>
  /** The body's field names and values (form and multipart fields as strings), when it had one. */
  body?: Record<string, unknown>
  /**
   * The description lists one set of required fields for what depends on another field (`/oauth/token`
   * requires `code` and `redirect_uri` even for `client_credentials`): only declared names are checked.
   */
  skipRequired?: boolean
}

/** `../shared/reference/openapi/mastodon.openapi.json` from the project root (from `src/` and `dist/`). */
export const defaultMastodonSpecPath = (): string =>
  path.resolve(
    fileURLToPath(new URL('.', import.meta.url)),
    '../../../../shared/reference/openapi/mastodon.openapi.json',
  )

export function loadMastodonSpec(file = defaultMastodonSpecPath()): MastodonSpec | undefined {
  if (!existsSync(file)) return undefined
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    paths: MastodonSpec['paths']
    components?: { schemas?: Record<string, Json> }
  }
  return { paths: doc.paths, schemas: doc.components?.schemas ?? {} }
}

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function resolve(spec: MastodonSpec, schema: unknown): Json | undefined {
  if (!isRecord(schema)) return undefined
  if (typeof schema.$ref === 'string')
    return resolve(spec, spec.schemas[schema.$ref.replace('#/components/schemas/', '')])
  return schema
}

/** A schema's alternatives, each flattened to its properties and required names (allOf merged). */
function alternatives(spec: MastodonSpec, raw: unknown): { properties: Set<string>; required: string[] }[] {
  const schema = resolve(spec, raw)
  if (!schema) return []
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf))
    return ((schema.oneOf ?? schema.anyOf) as unknown[]).flatMap((one) => alternatives(spec, one))
  const properties = new Set<string>(Object.keys((schema.properties as Json | undefined) ?? {}))
  const required = [...((schema.required as string[] | undefined) ?? [])]
  for (const part of (schema.allOf as unknown[] | undefined) ?? [])
    for (const flat of alternatives(spec, part)) {
      for (const name of flat.properties) properties.add(name)
      required.push(...flat.required)
    }
  return [{ properties, required }]
}

/** The template that matches a path (`/api/v1/media/{id}`), preferring literal segments. */
export function templateOf(spec: MastodonSpec, method: string, sent: string): string | undefined {
  const segments = sent.split('/').filter(Boolean)
  let best: { template: string; literal: number } | undefined
  for (const [template, operations] of Object.entries(spec.paths)) {
    if (!operations[method.toLowerCase()]) continue
    const parts = template.split('/').filter(Boolean)
    if (parts.length !== segments.length) continue
    let literal = 0
    const matches = parts.every((part, i) => {
      if (/^\{.+\}$/.test(part)) return /^[^/]+$/.test(segments[i]!)
      literal += 1
      return part === segments[i]
    })
    if (matches && (!best || literal > best.literal)) best = { template, literal }
  }
  return best?.template
}

const baseName = (name: string) => name.replace(/\[\]$/, '')

export function checkCall(spec: MastodonSpec, call: CallToCheck): string[] {
  const where = `${call.method.toUpperCase()} ${call.path}`
  const template = templateOf(spec, call.method, call.path)
  if (!template) return [`${where}: mastodon.openapi.json has no such method`]
  const operation = spec.paths[template]![call.method.toLowerCase()]!
  const problems: string[] = []
  const declared = new Set(
    ((operation.parameters as Json[] | undefined) ?? [])
      .filter((p) => p.in === 'query')
      .map((p) => String(p.name)),
  )
  for (const name of Object.keys(call.query))
    if (!declared.has(baseName(name))) problems.push(`${where}: unknown query parameter ${name}`)
  const content = (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined
  if (call.body && Object.keys(call.body).length > 0) {
    if (!content) return [...problems, `${where}: takes no request body`]
    const schema = Object.values(content)[0]?.schema
    const options = alternatives(spec, schema)
    const sent = Object.keys(call.body).map(baseName)
    const fits = options.filter((o) => sent.every((name) => o.properties.has(name)))
    if (options.length > 0 && fits.length === 0)
      problems.push(
        `${where}: the body has fields the description does not declare (${sent.filter((n) => !options.some((o) => o.properties.has(n))).join(', ') || sent.join(', ')})`,
      )
    else if (
      !call.skipRequired &&
      fits.length > 0 &&
      !fits.some((o) => o.required.every((name) => sent.includes(name)))
    )
      problems.push(
        `${where}: the body lacks a required field (${fits[0]!.required.filter((n) => !sent.includes(n)).join(', ')})`,
      )
  }
  return problems
}

/** The required fields an answer lacks, for the answer's status where the description has its schema. */
export function checkAnswer(
  spec: MastodonSpec,
  method: string,
  path: string,
  status: number,
  body: unknown,
): string[] {
  const template = templateOf(spec, method, path)
  const operation = template ? spec.paths[template]![method.toLowerCase()] : undefined
  const response = (operation?.responses as Record<string, Json> | undefined)?.[String(status)]
  const schema = (response?.content as Record<string, Json> | undefined)?.['application/json']?.schema
  if (!schema) return []
  const resolved = resolve(spec, schema)
  const where = `answer ${status} to ${method.toUpperCase()} ${template}`
  const items = resolved?.type === 'array' ? (Array.isArray(body) ? body : []) : [body]
  const itemSchema = resolved?.type === 'array' ? resolved.items : schema
  const options = alternatives(spec, itemSchema)
  if (options.length === 0) return []
  const problems: string[] = []
  for (const item of items) {
    if (!isRecord(item)) {
      problems.push(`${where}: not a JSON object`)
      continue
    }
    if (!options.some((o) => o.required.every((name) => name in item)))
      problems.push(`${where}: lacks ${options[0]!.required.filter((name) => !(name in item)).join(', ')}`)
  }
  return problems
}
