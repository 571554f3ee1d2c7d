import { isIP } from 'node:net'
import { Readable } from 'node:stream'
import { checkAddress } from './address-policy.js'
import { type DialFn, pinnedRequest, type ResolvedAddress } from './pinned-request.js'
import { defaultLookup, type LookupFn } from './safe-fetch.js'

/**
 * A `fetch` for hosts that a user's data names, so that no user can make Herald reach its own network
 * (docs/adr/0029-one-guarded-client-for-user-chosen-hosts.md): a Bluesky PDS from a DID document, a
 * did:web host. Each request resolves the host once, within {@link LOOKUP_TIMEOUT_MS}; a lookup that fails,
 * times out or answers nothing is a refusal (never "allowed"); every address it answers must pass the media
 * fetcher's address policy; the socket goes to the checked address (pinned: no second lookup) and is checked
 * again on connect. https only, unless `allowPrivate` (sandbox, local PDS). Redirects are not followed. A
 * refusal is an error with code `HERALD_BLOCKED_ADDRESS` whose message names the host, never an address.
 */

const LOOKUP_TIMEOUT_MS = 5_000
const CONNECT_TIMEOUT_MS = 10_000
const IDLE_TIMEOUT_MS = 60_000

export interface GuardedHttpOptions {
  /** Loopback and private addresses and plain http allowed (HERALD_BLUESKY_ALLOW_LOCAL_PDS, sandbox). */
  allowPrivate: boolean
  lookup?: LookupFn
  /** Test seam (see pinned-request.ts). */
  dial?: DialFn
  ca?: string
}

export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError'
  readonly code = 'HERALD_BLOCKED_ADDRESS'
}

export async function resolveStrictly(host: string, lookup: LookupFn): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new BlockedAddressError(`${host} did not resolve within ${LOOKUP_TIMEOUT_MS / 1000} s`)),
      LOOKUP_TIMEOUT_MS,
    )
  })
  try {
    const answers = await Promise.race([
      lookup(host).catch(() => {
        throw new BlockedAddressError(`${host} could not be resolved`)
      }),
      timeout,
    ])
    if (answers.length === 0) throw new BlockedAddressError(`${host} could not be resolved`)
    return answers
  } finally {
    clearTimeout(timer)
  }
}

const bodyBytes = async (body: RequestInit['body']): Promise<Uint8Array | undefined> => {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return Buffer.from(body, 'utf8')
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  return new Uint8Array(await new Response(body).arrayBuffer())
}

export function createGuardedHttp(options: GuardedHttpOptions): typeof fetch {
  const lookup = options.lookup ?? defaultLookup
  const policy = { allowPrivate: options.allowPrivate }
  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.protocol !== 'https:' && !(options.allowPrivate && url.protocol === 'http:'))
      throw new BlockedAddressError(`${url.host} is not an https address`)
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const family = isIP(host)
    const addresses: ResolvedAddress[] = family
      ? [{ address: host, family: family as 4 | 6 }]
      : await resolveStrictly(host, lookup)
    for (const entry of addresses) {
      if (!checkAddress(entry.address, policy).allowed)
        throw new BlockedAddressError(`${url.host} is not on a public address`)
    }
    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value
    })
    const body = await bodyBytes(init.body)
    if (body && !headers['content-length']) headers['content-length'] = String(body.byteLength)
    const response = await pinnedRequest({
      url,
      target: addresses[0]!,
      policy,
      dial: options.dial,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      ca: options.ca,
      headers,
      signal: init.signal ?? new AbortController().signal,
      method: init.method ?? 'GET',
      ...(body ? { body } : {}),
    })
    const responseHeaders = new Headers()
    for (const [key, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const item of value) responseHeaders.append(key, item)
      else if (value !== undefined) responseHeaders.set(key, value)
    }
    const status = response.statusCode ?? 502
    const empty = status === 204 || status === 304 || init.method === 'HEAD'
    return new Response(empty ? null : (Readable.toWeb(response) as ReadableStream), {
      status,
      headers: responseHeaders,
    })
  }
  return guarded as typeof fetch
}
