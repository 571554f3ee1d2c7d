import { createSafeFetcher, type SafeFetcherOptions } from '../../platform/egress/safe-fetch.js'
import type { GuardedFetch } from './provider.js'

/** A client ID metadata document is a few hundred bytes; the draft suggests a 5 KB ceiling. */
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024
/** Connecting, and the whole fetch, each bounded by this (the library also passes its own 2.5 s signal). */
export const METADATA_TIMEOUT_MS = 5_000

/**
 * The `fetch` the OAuth library calls for client ID metadata documents: a guarded fetcher of its own, not the
 * media one's limits. The same guards (https only, the host resolved and every address checked: no loopback,
 * private, link-local or metadata address unless HERALD_ALLOW_PRIVATE_MEDIA says so; the socket pinned to the
 * checked address; no redirect followed), with a document's limits: at most 5 KB read into memory (refused
 * the moment the count goes over, the connection closed), 5 seconds in all or the library's own deadline if
 * sooner, `Accept: application/json`. A refusal is a failed fetch, which the library answers with
 * `invalid_client`; the reason goes to the log, never to the requester.
 */
export function createMetadataFetch(
  options: { allowPrivate: boolean; onRefused?: (url: string, reason: string) => void } & Pick<
    SafeFetcherOptions,
    'lookup' | 'ca' | 'dial'
  >,
): GuardedFetch {
  const fetcher = createSafeFetcher({
    allowPrivate: options.allowPrivate,
    connectTimeoutMs: METADATA_TIMEOUT_MS,
    idleTimeoutMs: METADATA_TIMEOUT_MS,
    totalTimeoutMs: METADATA_TIMEOUT_MS,
    maxRedirects: 0,
    userAgent: 'Herald OAuth client metadata fetcher',
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.dial ? { dial: options.dial } : {}),
  })
  return async (url, init) => {
    try {
      if (!url.startsWith('https://'))
        throw new Error('a client ID metadata document is fetched over https only')
      const document = await fetcher.fetchDocument(url, {
        maxBytes: METADATA_DOCUMENT_MAX_BYTES,
        accept: 'application/json',
        ...(init.signal ? { signal: init.signal } : {}),
      })
      const headers = new Headers({ 'content-type': document.contentType ?? 'application/octet-stream' })
      if (document.caching.cacheControl) headers.set('cache-control', document.caching.cacheControl)
      if (document.caching.expires) headers.set('expires', document.caching.expires)
      return new Response(new Uint8Array(document.body), { status: 200, headers })
    } catch (error) {
      options.onRefused?.(url, (error as Error).message)
      throw error
    }
  }
}
