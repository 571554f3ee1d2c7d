import type { AdapterDeps } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import {
  failureFromGraph,
  failureFromNetworkError,
  type GraphAnswer,
  highestUsage,
  parseGraphError,
} from './errors.js'

/**
 * The HTTP client every Meta adapter shares (Facebook Pages, Instagram on either host, and Threads):
 * one request to a Graph host, the token in the `Authorization` header (never in the URL, so it cannot
 * reach a log line through a path), parameters as the query (GET) or a form body (POST), and every
 * refusal classified through Meta's error envelope.
 */
export interface GraphClient {
  /** The Graph origin with its version, e.g. `https://graph.facebook.com/v25.0`; no trailing slash. */
  baseUrl: string
  /** The network's name in messages. */
  label: string
  deps: AdapterDeps
}

export interface GraphRequest {
  method: 'GET' | 'POST' | 'DELETE'
  /** Path under the base, e.g. `/123/feed`. */
  path: string
  params?: Record<string, string | number | boolean | undefined>
  token?: string
  signal?: AbortSignal
  /** Named in failure messages. */
  what: string
  /** True for calls that create a post: a lost answer is then an unknown outcome. */
  mayHaveTakenEffect?: boolean
  timeoutMs?: number
  /** Other secrets (client secret, code) redacted from any message. */
  secrets?: readonly (string | undefined)[]
}

export const GRAPH_TIMEOUT_MS = 30_000
/** Meta's usage headers at or above this percentage are logged: calls are about to be throttled. */
const USAGE_WARNING_PERCENT = 90

const stringify = (params: GraphRequest['params']): [string, string][] =>
  Object.entries(params ?? {})
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([key, value]) => [key, String(value)])

/** Sends one request and returns the answer (body parsed as JSON); network failures are thrown. */
export async function sendGraph(client: GraphClient, request: GraphRequest): Promise<GraphAnswer> {
  const url = new URL(`${client.baseUrl}${request.path}`)
  const params = stringify(request.params)
  const headers: Record<string, string> = { accept: 'application/json' }
  if (request.token) headers.authorization = `Bearer ${request.token}`
  let body: URLSearchParams | undefined
  if (request.method === 'GET' || request.method === 'DELETE') {
    for (const [key, value] of params) url.searchParams.set(key, value)
  } else {
    body = new URLSearchParams(params)
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const timeout = AbortSignal.timeout(request.timeoutMs ?? GRAPH_TIMEOUT_MS)
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout
  try {
    const response = await client.deps.http(url, { method: request.method, headers, body, signal })
    const text = await response.text()
    const usage = highestUsage(response.headers)
    if (usage !== undefined && usage >= USAGE_WARNING_PERCENT)
      client.deps.logger.warn(
        { network: client.label, usage, path: redactPath(request.path) },
        `${client.label} reports the app's rate-limit usage near its ceiling`,
      )
    return { status: response.status, headers: response.headers, body: parseBody(text) }
  } catch (error) {
    client.deps.logger.warn(
      { network: client.label, path: redactPath(request.path), method: request.method },
      `request to ${client.label} failed without an answer`,
    )
    throw failureFromNetworkError(error, {
      label: client.label,
      mayHaveTakenEffect: request.mayHaveTakenEffect ?? false,
      what: request.what,
    })
  }
}

/** Sends and returns the body of a successful answer; throws the classified failure otherwise. */
export async function callGraph(
  client: GraphClient,
  request: GraphRequest,
): Promise<Record<string, unknown>> {
  const answer = await sendGraph(client, request)
  const secrets = [request.token, ...(request.secrets ?? [])]
  if (answer.status < 200 || answer.status >= 300 || parseGraphError(answer.status, answer.body)) {
    const failure = failureFromGraph(answer, { label: client.label, now: client.deps.now(), secrets })
    // Meta can apply a publishing call and still answer code 1/2, `is_transient` or a 5xx: only a refusal
    // (rate limit, permission, token, content) says nothing happened. The rest is an unknown outcome.
    if (request.mayHaveTakenEffect && failure.kind === 'transient')
      throw new PublishFailure(
        'unknown_outcome',
        `${failure.message}; ${request.what} may or may not have been published`,
        failure.options,
      )
    throw failure
  }
  if (typeof answer.body !== 'object' || answer.body === null || Array.isArray(answer.body)) {
    if (request.mayHaveTakenEffect)
      throw new PublishFailure(
        'unknown_outcome',
        `${client.label} accepted ${request.what} but its answer was not JSON`,
        {
          status: answer.status,
        },
      )
    throw new PublishFailure(
      'transient',
      `${client.label} answered ${request.what} with something that is not JSON`,
      {
        status: answer.status,
      },
    )
  }
  return answer.body as Record<string, unknown>
}

/** Every item of a paginated edge (`data` + `paging.next`), up to `maxPages` pages. */
export async function readAllPages(
  client: GraphClient,
  request: GraphRequest,
  maxPages = 20,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = []
  let params = { ...request.params }
  for (let page = 0; page < maxPages; page++) {
    const body = await callGraph(client, { ...request, params })
    if (Array.isArray(body.data))
      for (const item of body.data)
        if (typeof item === 'object' && item !== null) items.push(item as Record<string, unknown>)
    const paging = body.paging as { next?: unknown; cursors?: { after?: unknown } } | undefined
    const after = paging?.cursors?.after
    if (typeof paging?.next !== 'string' || typeof after !== 'string') break
    params = { ...request.params, after }
  }
  return items
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Paths carry ids only; long opaque segments are shortened in logs anyway. */
const redactPath = (path: string) => path.replace(/[A-Za-z0-9_-]{40,}/g, '[redacted]')
