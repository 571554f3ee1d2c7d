import { readFile } from 'node:fs/promises'
import { createSafeFetcher, type SafeFetcherOptions } from '../media/safe-fetch.js'
import type { GuardedFetch } from './provider.js'

/** A client ID metadata document is a few hundred bytes; the draft suggests a 5 KB ceiling. */
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024
const METADATA_TIMEOUT_MS = 5_000

/**
 * The `fetch` the OAuth library calls for client ID metadata documents, made of Herald's guarded fetcher
 * (the one media URLs go through): https only, the host resolved and every address checked (no loopback,
 * private, link-local or metadata address unless HERALD_ALLOW_PRIVATE_MEDIA says so), the socket pinned to
 * the checked address, no redirect followed, at most 5 KB and 5 seconds. A refusal is a failed fetch, which
 * the library answers with `invalid_client`; the reason goes to the log, never to the requester.
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
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.dial ? { dial: options.dial } : {}),
  })
  return async (url) => {
    if (!url.startsWith('https://'))
      throw new Error('a client ID metadata document is fetched over https only')
    let file: Awaited<ReturnType<typeof fetcher.fetchToFile>>
    let timer: NodeJS.Timeout | undefined
    try {
      // The fetcher's own timeout covers connecting and reading; this bound also covers a refused body
      // whose connection lingers (over TLS, a response read past the cap closes only when the peer does).
      file = await Promise.race([
        fetcher.fetchToFile(url, { maxBytes: METADATA_DOCUMENT_MAX_BYTES }),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no usable answer within ${METADATA_TIMEOUT_MS} ms`)),
            METADATA_TIMEOUT_MS + 500,
          )
        }),
      ])
    } catch (error) {
      options.onRefused?.(url, (error as Error).message)
      throw error
    } finally {
      clearTimeout(timer)
    }
    try {
      const body = await readFile(file.path)
      const headers = new Headers({ 'content-type': file.contentType ?? 'application/octet-stream' })
      if (file.caching?.cacheControl) headers.set('cache-control', file.caching.cacheControl)
      if (file.caching?.expires) headers.set('expires', file.caching.expires)
      return new Response(body, { status: 200, headers })
    } finally {
      await file.dispose()
    }
  }
}
