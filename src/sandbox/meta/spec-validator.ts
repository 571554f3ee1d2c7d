import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * A checker for Meta's own API descriptions (facebook-business-sdk-codegen node specs, Graph API v25.0,
 * stored in `../shared/reference/openapi/meta/`). These are not OpenAPI: each node file lists `apis`
 * (method, `endpoint` edge name or `name` `#get`/`#update`/`#delete`, `params` with `name`/`type`) and
 * `fields` (`name`, `type`). A Graph call is checked for:
 *
 * - the edge existing on that node for that method (`POST /{page}/feed` needs `Page` `POST feed`);
 * - every parameter being declared for that edge (or Graph-wide: `access_token`, `fields`, paging);
 * - every value having its declared type (`bool`, `unsigned int`, `datetime`, `list<...>`, JSON `map`);
 * - enum values (`*_enum_param` types) coming from `enum_types.json`;
 * - every name in `fields` being a field or edge of the node the call returns.
 */

interface SpecParam {
  name: string
  type: string
  required?: boolean
}
interface SpecApi {
  method: string
  endpoint?: string
  name?: string
  return?: string
  params?: SpecParam[]
}
interface NodeSpec {
  apis: SpecApi[]
  fields: { name: string; type?: string }[]
}

export interface MetaSpecs {
  nodes: Map<string, NodeSpec>
  enums: Map<string, string[]>
}

export interface GraphCall {
  /** The node type of the object in the path (`Page`, `IGUser`, `ShadowIGMediaBuilder`, ...). */
  node: string
  method: string
  /** The edge after the object id (`feed`, `media_publish`); undefined for the object itself. */
  edge?: string
  /** Query and form parameters together, as sent. */
  params: Record<string, string>
}

/** Parameters every Graph call may carry, whatever the edge declares. */
const GRAPH_WIDE = new Set(['access_token', 'appsecret_proof', 'fields'])
/** Cursor paging parameters of list (GET edge) calls. */
const PAGING = new Set(['limit', 'after', 'before'])

/**
 * Spec-format quirks, recorded where they are handled: the Instagram-Login node spells `media_publish`
 * as `mediapublish`, and Meta's live API spells it with the underscore (as do its docs).
 */
const EDGE_ALIASES: Record<string, Record<string, string>> = {
  IGUserForIGOnlyAPI: { media_publish: 'mediapublish' },
}

/** `../shared/reference/openapi/meta/` from the project root (works from `src/` and `dist/`). */
export const defaultMetaSpecDir = (): string =>
  path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../../shared/reference/openapi/meta')

/** Reads the node specs and enums; undefined when the folder is not there (a deployment without it). */
export function loadMetaSpecs(dir = defaultMetaSpecDir()): MetaSpecs | undefined {
  if (!existsSync(path.join(dir, 'enum_types.json'))) return undefined
  const nodes = new Map<string, NodeSpec>()
  for (const name of [
    'Page',
    'PagePost',
    'Photo',
    'AdVideo',
    'VideoStatus',
    'InsightsResult',
    'IGUser',
    'IGMedia',
    'ShadowIGMediaBuilder',
    'ContentPublishingLimitResponse',
    'InstagramInsightsResult',
    'IGUserForIGOnlyAPI',
    'IGMediaForIGOnlyAPI',
  ]) {
    const file = path.join(dir, `${name}.json`)
    if (existsSync(file)) nodes.set(name, JSON.parse(readFileSync(file, 'utf8')) as NodeSpec)
  }
  const enums = new Map<string, string[]>()
  const list = JSON.parse(readFileSync(path.join(dir, 'enum_types.json'), 'utf8')) as {
    name: string
    values: string[]
  }[]
  for (const entry of list) enums.set(entry.name, entry.values)
  return { nodes, enums }
}

/** The problems with one call; empty when it matches the spec. */
export function validateGraphCall(specs: MetaSpecs, call: GraphCall): string[] {
  const spec = specs.nodes.get(call.node)
  if (!spec) return [`no spec for node ${call.node}`]
  const method = call.method.toUpperCase()
  const edge = call.edge ? (EDGE_ALIASES[call.node]?.[call.edge] ?? call.edge) : undefined
  const api = spec.apis.find((a) =>
    edge === undefined
      ? a.method === method && a.endpoint === undefined && a.name?.startsWith('#')
      : a.method === method && a.endpoint === edge,
  )
  const where = `${method} ${call.node}${call.edge ? `/${call.edge}` : ''}`
  if (!api) return [`${where}: ${call.node} has no ${method} ${call.edge ?? 'on the object itself'}`]
  const problems: string[] = []
  const declared = new Map((api.params ?? []).map((p) => [p.name, p]))
  const isList = method === 'GET' && edge !== undefined
  for (const [name, value] of Object.entries(call.params)) {
    const param = declared.get(name)
    if (param) {
      const problem = checkType(specs, param.type, value)
      if (problem) problems.push(`${where}: ${name}=${truncate(value)} ${problem}`)
      continue
    }
    if (name === 'fields') {
      const returned = method === 'GET' ? (edge === undefined ? call.node : api.return) : api.return
      const target = returned ? specs.nodes.get(returned) : undefined
      if (target) {
        const known = new Set([
          ...target.fields.map((f) => f.name),
          ...target.apis.filter((a) => a.method === 'GET' && a.endpoint).map((a) => a.endpoint as string),
        ])
        for (const field of topLevelFields(value))
          if (!known.has(field))
            problems.push(`${where}: fields names ${field}, which ${returned} does not have`)
      }
      continue
    }
    if (GRAPH_WIDE.has(name) || (isList && PAGING.has(name))) continue
    problems.push(`${where}: unknown parameter ${name}`)
  }
  for (const param of api.params ?? [])
    if (param.required && !(param.name in call.params)) problems.push(`${where}: ${param.name} is required`)
  return problems
}

const truncate = (value: string) => (value.length > 60 ? `${value.slice(0, 60)}…` : value)

/** `id,instagram_business_account{id,username},picture.type(large)` → the top-level names. */
export function topLevelFields(value: string): string[] {
  const names: string[] = []
  let depth = 0
  let current = ''
  for (const char of value) {
    if (char === '{' || char === '(') depth++
    else if (char === '}' || char === ')') depth--
    else if (char === ',' && depth === 0) {
      names.push(current)
      current = ''
      continue
    }
    if (depth === 0 && char !== '}' && char !== ')') current += char
  }
  names.push(current)
  return names.map((n) => n.split('.')[0]?.trim() ?? '').filter((n) => n !== '')
}

/** Why `value` is not of `type`, or undefined when it is. */
function checkType(specs: MetaSpecs, type: string, value: string): string | undefined {
  const list = /^list<(.+)>$/.exec(type)
  if (list) {
    const inner = list[1] as string
    let items: unknown[]
    const trimmed = value.trim()
    if (trimmed.startsWith('[')) {
      try {
        const parsed = JSON.parse(trimmed) as unknown
        if (!Array.isArray(parsed)) return `is not a list`
        items = parsed
      } catch {
        return 'is not a JSON list'
      }
    } else items = trimmed === '' ? [] : trimmed.split(',')
    for (const item of items) {
      const problem = checkItem(specs, inner, item)
      if (problem) return problem
    }
    return undefined
  }
  return checkItem(specs, type, value)
}

function checkItem(specs: MetaSpecs, type: string, item: unknown): string | undefined {
  const text =
    typeof item === 'string'
      ? item
      : typeof item === 'number' || typeof item === 'boolean'
        ? String(item)
        : undefined
  if (type.endsWith('_enum_param') || specs.enums.has(type)) {
    const values = specs.enums.get(type)
    if (!values) return `has enum type ${type}, which enum_types.json lacks`
    return text !== undefined && values.includes(text)
      ? undefined
      : `is not one of ${type} (${values.slice(0, 12).join(', ')}${values.length > 12 ? ', …' : ''})`
  }
  switch (type) {
    case 'string':
      return text === undefined ? 'is not a string' : undefined
    case 'bool':
      return text !== undefined && /^(true|false|1|0)$/.test(text) ? undefined : 'is not a bool'
    case 'unsigned int':
      return text !== undefined && /^\d+$/.test(text) ? undefined : 'is not an unsigned int'
    case 'int':
      return text !== undefined && /^-?\d+$/.test(text) ? undefined : 'is not an int'
    case 'float':
      return text !== undefined && Number.isFinite(Number(text)) ? undefined : 'is not a number'
    case 'datetime':
      return text !== undefined && (/^\d+$/.test(text) || !Number.isNaN(Date.parse(text)))
        ? undefined
        : 'is not a datetime (unix seconds or ISO 8601)'
    case 'map':
    case 'Object': {
      if (typeof item === 'object' && item !== null) return undefined
      if (type === 'Object' && text !== undefined) return undefined
      if (text === undefined) return `is not a ${type}`
      try {
        const parsed = JSON.parse(text) as unknown
        return typeof parsed === 'object' && parsed !== null ? undefined : `is not a JSON ${type}`
      } catch {
        return `is not a JSON ${type}`
      }
    }
    default:
      // A node type (`Page`, `IGUser`): an object id.
      return text !== undefined && /^[A-Za-z0-9_:-]+$/.test(text) ? undefined : `is not a ${type} id`
  }
}
