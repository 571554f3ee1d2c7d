import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { topLevelFields } from '../meta/spec-validator.js'

/**
 * A checker for Meta's own Threads API collection (`threads-api.postman_collection.json`, stored in
 * `../shared/reference/openapi/meta/`). Every request of the collection is one endpoint: its method, its
 * path under `{{api_host}}` (`/me/threads`, `/{{thread_id}}/insights`, `/oauth/access_token`) and the
 * query and body parameter names it lists, disabled ones included (they are the optional parameters).
 * A call is checked for:
 *
 * - an endpoint with that method and path (a `{{variable}}` segment matches any id, and `me` matches the
 *   profile's own id, which the docs use in its place; a `/v1.0` version prefix is allowed);
 * - every parameter being one the collection names for that endpoint (or `access_token`);
 * - `fields` and `metric` naming only what the collection's `fields_*` and `metrics_*` variables list;
 * - `media_type` and `grant_type` values being ones the collection uses.
 */

interface Endpoint {
  method: string
  segments: string[]
  params: Set<string>
}

export interface ThreadsContract {
  endpoints: Endpoint[]
  fields: Set<string>
  metrics: Set<string>
  enums: Map<string, Set<string>>
}

export interface ThreadsCall {
  method: string
  /** The path as sent, e.g. `/v1.0/1784/threads`. */
  path: string
  /** Query and form parameters together, as sent (the token left out or in, either is fine). */
  params: Record<string, string>
  /**
   * Whether a numeric segment is a profile's own id (what `me` stands for). Without it any number
   * matches `me`, which confuses `/{thread-id}/replies` with `/me/replies`.
   */
  isOwnId?: (id: string) => boolean
}

interface PostmanItem {
  item?: PostmanItem[]
  request?: {
    method: string
    url: string | { raw?: string; path?: string[]; query?: { key: string; value?: string }[] }
    body?: { urlencoded?: { key: string; value?: string }[] }
  }
}

/** `../shared/reference/openapi/meta/threads-api.postman_collection.json` from the project root. */
export const defaultThreadsCollectionPath = (): string =>
  path.resolve(
    fileURLToPath(new URL('.', import.meta.url)),
    '../../../../shared/reference/openapi/meta/threads-api.postman_collection.json',
  )

const isVariable = (segment: string) => /^\{\{.+\}\}$/.test(segment)

/** Reads the collection; undefined when the file is not there (a deployment without ../shared). */
export function loadThreadsContract(file = defaultThreadsCollectionPath()): ThreadsContract | undefined {
  if (!existsSync(file)) return undefined
  const collection = JSON.parse(readFileSync(file, 'utf8')) as {
    item: PostmanItem[]
    variable?: { key: string; value?: string }[]
  }
  const endpoints: Endpoint[] = []
  const enums = new Map<string, Set<string>>([
    ['media_type', new Set()],
    ['grant_type', new Set()],
  ])
  const walk = (items: PostmanItem[]) => {
    for (const item of items) {
      if (item.item) walk(item.item)
      if (!item.request) continue
      const url = item.request.url
      const raw = typeof url === 'string' ? url : (url.raw ?? '')
      const segments = raw
        .replace(/^\{\{api_host\}\}/, '')
        .split('?')[0]!
        .split('/')
        .filter(Boolean)
      const query = typeof url === 'string' ? [] : (url.query ?? [])
      const body = item.request.body?.urlencoded ?? []
      const params = new Set<string>()
      for (const entry of [...query, ...body]) {
        params.add(entry.key)
        const values = enums.get(entry.key)
        if (values && entry.value && !isVariable(entry.value)) values.add(entry.value)
      }
      const method = item.request.method.toUpperCase()
      const same = endpoints.find((e) => e.method === method && e.segments.join('/') === segments.join('/'))
      if (same) for (const p of params) same.params.add(p)
      else endpoints.push({ method, segments, params })
    }
  }
  walk(collection.item)
  const fields = new Set<string>()
  const metrics = new Set<string>()
  for (const variable of collection.variable ?? []) {
    const value = variable.value ?? ''
    if (variable.key.startsWith('fields_')) for (const f of topLevelFields(value)) fields.add(f)
    if (variable.key.startsWith('metrics_')) for (const m of value.split(',')) metrics.add(m.trim())
    if (variable.key === 'media_type')
      for (const m of value.split(',')) enums.get('media_type')!.add(m.trim())
  }
  return { endpoints, fields, metrics, enums }
}

/** Whether a sent path segment matches a collection segment. */
function segmentMatches(template: string, sent: string, isOwnId?: (id: string) => boolean): boolean {
  if (isVariable(template)) return /^[A-Za-z0-9_-]+$/.test(sent)
  if (template === 'me') return sent === 'me' || (isOwnId ? isOwnId(sent) : /^\d+$/.test(sent))
  return template === sent
}

/** The problems with one call; empty when the collection describes it. */
export function validateThreadsCall(contract: ThreadsContract, call: ThreadsCall): string[] {
  const method = call.method.toUpperCase()
  const segments = call.path.split('?')[0]!.split('/').filter(Boolean)
  if (segments[0] && /^v\d+\.\d+$/.test(segments[0])) segments.shift()
  const where = `${method} /${segments.join('/')}`
  const candidates = contract.endpoints.filter(
    (e) =>
      e.method === method &&
      e.segments.length === segments.length &&
      e.segments.every((t, i) => segmentMatches(t, segments[i]!, call.isOwnId)),
  )
  if (candidates.length === 0) return [`${where}: no such request in the Threads collection`]
  // A literal segment beats a variable one (`/me/threads` over `/{{thread_id}}/replies`).
  const score = (e: Endpoint) => e.segments.filter((s) => !isVariable(s)).length
  const best = Math.max(...candidates.map(score))
  const allowed = new Set(candidates.filter((e) => score(e) === best).flatMap((e) => [...e.params]))
  const problems: string[] = []
  for (const [name, value] of Object.entries(call.params)) {
    if (name === 'access_token') continue
    if (!allowed.has(name)) {
      problems.push(`${where}: unknown parameter ${name}`)
      continue
    }
    if (name === 'fields')
      for (const field of topLevelFields(value))
        if (!contract.fields.has(field)) problems.push(`${where}: fields names ${field}, unknown to Threads`)
    if (name === 'metric')
      for (const metric of value.split(',').map((m) => m.trim()))
        if (!contract.metrics.has(metric)) problems.push(`${where}: metric ${metric} is not a Threads metric`)
    const values = contract.enums.get(name)
    if (values && values.size > 0 && !values.has(value))
      problems.push(`${where}: ${name}=${value} is not one of ${[...values].join(', ')}`)
  }
  return problems
}
