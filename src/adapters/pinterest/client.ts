import type { AdapterDeps } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'
import { classifyPinterestError } from './errors.js'
import { apiBase, type PinterestSettings } from './settings.js'

/** What every Pinterest call needs: the settings (hosts, app) and the injected I/O. */
export interface PinterestContext {
  settings: PinterestSettings
  deps: AdapterDeps
}

export type PinterestBody = Record<string, unknown>

const CALL_TIMEOUT_MS = 60_000

/**
 * One call to the Pinterest API (`${apiUrl}${path}`), with the bearer token and a JSON body when given.
 * Every refusal becomes a {@link PublishFailure} ({@link classifyPinterestError}). `sentIsCreate`: the call
 * creates a pin, so a failure after the request left (a 5xx, a timeout, a reset) is an unknown outcome,
 * never transient.
 */
export async function pinterestCall(
  ctx: PinterestContext,
  input: {
    method: 'GET' | 'POST'
    path: string
    query?: Record<string, string>
    token: string
    json?: unknown
    what: string
    signal?: AbortSignal
    sentIsCreate?: boolean
  },
): Promise<PinterestBody> {
  const query = input.query && Object.keys(input.query).length ? `?${new URLSearchParams(input.query)}` : ''
  const headers: Record<string, string> = { authorization: `Bearer ${input.token}` }
  if (input.json !== undefined) headers['content-type'] = 'application/json'
  const signals = [AbortSignal.timeout(CALL_TIMEOUT_MS), ...(input.signal ? [input.signal] : [])]
  let response: Response
  try {
    response = await ctx.deps.http(`${apiBase(ctx.settings)}${input.path}${query}`, {
      method: input.method,
      headers,
      ...(input.json !== undefined ? { body: JSON.stringify(input.json) } : {}),
      signal: AbortSignal.any(signals),
      redirect: 'error',
    })
  } catch (error) {
    throw unanswered(error, input)
  }
  const body = await readBody(response)
  if (response.ok) return body
  throw classifyPinterestError({
    status: response.status,
    body,
    headers: response.headers,
    what: input.what,
    sentIsCreate: input.sentIsCreate ?? false,
    now: ctx.deps.now(),
    secrets: [input.token],
  })
}

/**
 * A request that got no answer. Only a connection that never opened proves a pin's create did not reach
 * Pinterest; a timeout, a reset, or the caller giving up (a lost lease, a shutdown) after sending leaves
 * the pin possibly made.
 */
function unanswered(error: unknown, input: { what: string; signal?: AbortSignal; sentIsCreate?: boolean }) {
  const code = thrownErrorCode(error)
  const notSent = code !== undefined && NOT_SENT_CODES.has(code)
  if (input.sentIsCreate && !notSent)
    return new PublishFailure(
      'unknown_outcome',
      `Pinterest did not answer ${input.what}; the pin may or may not exist`,
      code ? { code } : {},
    )
  if (input.signal?.aborted) return error
  return new PublishFailure(
    'transient',
    `Pinterest could not be reached for ${input.what}`,
    code ? { code } : {},
  )
}

/** The answer's JSON object (an empty one for an empty or unreadable body). */
export async function readBody(response: Response): Promise<PinterestBody> {
  const text = await response.text().catch(() => '')
  try {
    const parsed = text ? (JSON.parse(text) as unknown) : {}
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as PinterestBody) : {}
  } catch {
    return {}
  }
}

export const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)
export const num = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined
