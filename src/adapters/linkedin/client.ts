import type { AdapterDeps } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import { NOT_SENT_CODES, thrownErrorCode } from '../network-errors.js'
import { classifyLinkedInError, nextMidnightUtc } from './errors.js'
import type { LinkedInSettings } from './settings.js'

/** What every LinkedIn call needs: the settings (hosts, pinned version) and the injected I/O. */
export interface LinkedInContext {
  settings: LinkedInSettings
  deps: AdapterDeps
}

export interface LinkedInAnswer {
  status: number
  headers: Headers
  body: Record<string, unknown>
}

const CALL_TIMEOUT_MS = 60_000

/** A Rest.li query: each value already encoded as Rest.li 2.0.0 wants it (`List(urn%3Ali%3A…)`). */
export type RestQuery = [string, string][]

/** Encodes a URN (or any value) for a query or path position. */
export const enc = (value: string) => encodeURIComponent(value)

/**
 * One call to LinkedIn. `/rest` paths carry the pinned `LinkedIn-Version` and Rest.li 2.0.0; every
 * refusal becomes a {@link PublishFailure} classified from its status and `serviceErrorCode`/`code`.
 * `sentIsCreate`: a failure after the request left (a 5xx, a timeout) is an unknown outcome, not transient.
 */
export async function linkedinCall(
  ctx: LinkedInContext,
  input: {
    method: 'GET' | 'POST'
    path: string
    query?: RestQuery
    token: string
    json?: unknown
    what: string
    signal?: AbortSignal
    sentIsCreate?: boolean
  },
): Promise<LinkedInAnswer> {
  const query = input.query?.length ? `?${input.query.map(([k, v]) => `${k}=${v}`).join('&')}` : ''
  const url = `${ctx.settings.apiUrl}${input.path}${query}`
  const headers: Record<string, string> = { authorization: `Bearer ${input.token}` }
  if (input.path.startsWith('/rest/')) {
    headers['linkedin-version'] = ctx.settings.version
    headers['x-restli-protocol-version'] = '2.0.0'
  }
  if (input.json !== undefined) headers['content-type'] = 'application/json'
  const signals = [AbortSignal.timeout(CALL_TIMEOUT_MS), ...(input.signal ? [input.signal] : [])]
  let response: Response
  try {
    response = await ctx.deps.http(url, {
      method: input.method,
      headers,
      ...(input.json !== undefined ? { body: JSON.stringify(input.json) } : {}),
      signal: AbortSignal.any(signals),
      redirect: 'error',
    })
  } catch (error) {
    // Only a connection that never opened proves the create did not reach LinkedIn; a timeout, a reset or
    // the caller giving up (a lost lease, a shutdown) after sending leaves the post possibly made.
    const code = thrownErrorCode(error)
    const notSent = code !== undefined && NOT_SENT_CODES.has(code)
    if (input.sentIsCreate && !notSent)
      throw new PublishFailure(
        'unknown_outcome',
        `LinkedIn did not answer ${input.what}; the post may or may not exist`,
        code ? { code } : {},
      )
    if (input.signal?.aborted) throw error
    throw new PublishFailure(
      'transient',
      `LinkedIn could not be reached for ${input.what}`,
      code ? { code } : {},
    )
  }
  const text = await response.text().catch(() => '')
  let body: Record<string, unknown> = {}
  try {
    const parsed = text ? (JSON.parse(text) as unknown) : {}
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>
  } catch {
    body = {}
  }
  if (response.ok) return { status: response.status, headers: response.headers, body }
  throw classifyLinkedInError({
    status: response.status,
    body,
    what: input.what,
    version: ctx.settings.version,
    sentIsCreate: input.sentIsCreate ?? false,
    now: ctx.deps.now(),
    secrets: [input.token],
  })
}

export { nextMidnightUtc }
