import { withTimeout } from '../youtube/auth.js'
import { classifyGoogleApiError, failureWithoutAnswer } from './errors.js'
import type { GoogleBusinessContext } from './settings.js'

/**
 * One call to a Business Profile API: JSON in and out, the token in the `Authorization` header, every
 * refusal and every lost answer classified (errors.ts). `publishing` marks the one call that can make a
 * post public (a local post's creation): a lost or failed answer to it is an unknown outcome.
 */
export interface GoogleCall {
  method: 'GET' | 'POST'
  /** The API's base (one of the settings' four hosts). */
  base: string
  /** Under the base, e.g. `/v4/accounts/1/locations/2/localPosts`. */
  path: string
  query?: Record<string, string | string[] | undefined>
  body?: unknown
  token: string
  signal?: AbortSignal | undefined
  /** Named in failure messages: "the location's posts". */
  what: string
  publishing?: boolean
}

const TIMEOUT_MS = 30_000

export async function callGoogle(
  ctx: GoogleBusinessContext,
  call: GoogleCall,
): Promise<Record<string, unknown>> {
  const url = new URL(`${call.base}${call.path}`)
  for (const [key, value] of Object.entries(call.query ?? {}))
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      url.searchParams.append(key, one)
  const publishing = call.publishing === true
  let response: Response
  try {
    response = await ctx.deps.http(url, {
      method: call.method,
      headers: {
        authorization: `Bearer ${call.token}`,
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: withTimeout(call.signal, TIMEOUT_MS),
    })
  } catch (error) {
    throw failureWithoutAnswer(error, { what: call.what, publishing })
  }
  let body: unknown
  try {
    const text = await response.text()
    body = text === '' ? {} : JSON.parse(text)
  } catch (error) {
    // An answer cut off mid-body (or not JSON) says nothing certain about what was done.
    if (response.ok || response.status >= 500)
      throw failureWithoutAnswer(error, { what: call.what, publishing })
    body = undefined
  }
  if (!response.ok)
    throw classifyGoogleApiError(response.status, body, {
      now: ctx.deps.now(),
      retryAfter: response.headers.get('retry-after'),
      what: call.what,
      publishing,
    })
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
}

/** One page of a Google list: its rows under `key` and the token to the next page (absent on the last). */
export async function listPage(
  ctx: GoogleBusinessContext,
  call: GoogleCall,
  key: string,
): Promise<{ rows: Record<string, unknown>[]; next?: string }> {
  const page = await callGoogle(ctx, call)
  const rows = Array.isArray(page[key]) ? (page[key] as unknown[]) : []
  const next =
    typeof page.nextPageToken === 'string' && page.nextPageToken !== '' ? page.nextPageToken : undefined
  return {
    rows: rows.filter((row): row is Record<string, unknown> => typeof row === 'object' && row !== null),
    ...(next ? { next } : {}),
  }
}

/** Every row of a Google list, page after page until one comes without a next-page token. */
export async function listAll(
  ctx: GoogleBusinessContext,
  call: GoogleCall,
  key: string,
  maxPages = 50,
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = []
  let token: string | undefined
  for (let page = 0; page < maxPages; page++) {
    const answer = await listPage(ctx, { ...call, query: { ...call.query, pageToken: token } }, key)
    rows.push(...answer.rows)
    token = answer.next
    if (!token) return rows
  }
  return rows
}

export const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined
