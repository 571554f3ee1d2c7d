import { createHash } from 'node:crypto'
import { lookup as dnsLookup } from 'node:dns/promises'
import { createWriteStream } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { type Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { MediaError } from '../../core/media-port.js'
import { fileNameFromUrl, parseMediaUrl, urlExtension } from '../../core/media-url.js'
import type { Logger } from '../logger.js'
import { createTempDir, type TempDir } from '../temp-files.js'
import { type AddressCategory, type AddressPolicyOptions, checkAddress } from './address-policy.js'
import { type DialFn, pinnedRequest, type ResolvedAddress } from './pinned-request.js'

/**
 * Fetches user-supplied media URLs without letting them reach inside the network (SSRF): http(s) only,
 * every host resolved and every address checked before connecting, the connection pinned to the
 * checked address and re-checked once connected, the same again on each redirect (at most 5), connect,
 * idle and total timeouts, and a size cap. The body streams to a temporary file: a video is never whole
 * in memory.
 */

export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>

/** A URL this service hosts itself, read from storage instead of over the network. */
export interface LocalSource {
  size: number
  contentType: string
  open(): Promise<Readable>
}

export interface SafeFetcherOptions {
  /** HERALD_ALLOW_PRIVATE_MEDIA: loopback and private ranges allowed (tests, local demos). Default false. */
  allowPrivate?: boolean
  /** DNS resolution; default `dns.lookup` with every address. Tests inject a fixed map. */
  lookup?: LookupFn
  /** Test seam only: reroutes a checked address to a local server (see {@link DialFn}). */
  dial?: DialFn
  /** Default 10 s. */
  connectTimeoutMs?: number
  /** Whole fetch including redirects and body. Default 300 s. */
  totalTimeoutMs?: number
  /** Longest silence from the server. Default 30 s. */
  idleTimeoutMs?: number
  /** Default 5. */
  maxRedirects?: number
  /** Extra trusted CA certificates (PEM) for https media, e.g. a private PKI; default the system store. */
  ca?: string
  /** Parent of the per-fetch temporary folders; default the OS temp folder. */
  tempDir?: string
  /** The User-Agent sent; default "Herald media fetcher". */
  userAgent?: string
  /** Resolves this service's own hosted-media URLs to storage; undefined means "not ours". */
  localSource?: (url: URL) => Promise<LocalSource | undefined>
  logger?: Logger
}

export interface FetchOptions {
  /** Hard cap in bytes; a larger Content-Length is refused before the body is read. */
  maxBytes: number
  /** Tightens the cap once the first bytes show what the file is (an image cap is smaller than a video's). */
  capForHead?: (head: Buffer) => number
  signal?: AbortSignal
}

/** What a server said identifies this version of a URL's bytes (for conditional requests). */
export interface Validators {
  etag?: string
  lastModified?: string
}

/** The answer to a range request: the bytes asked for, or the whole file when the server ignored the range. */
export type RangeAnswer =
  | {
      kind: 'partial'
      bytes: Buffer
      /** The whole file's size, from Content-Range. */
      totalSize: number
      validators: Validators
      contentType: string | undefined
    }
  | { kind: 'full'; file: FetchedFile }

export interface FetchedFile {
  /** The temporary file holding the body. */
  path: string
  size: number
  sha256: string
  /** The first bytes of the file (up to 4 KB), for type detection. */
  head: Buffer
  /** The response's Content-Type header, when it had one (a hint only). */
  contentType: string | undefined
  /** The URL after redirects. */
  finalUrl: string
  /** A safe file name derived from the requested URL. */
  name: string
  /** Lower-cased extension of the requested URL, with its dot, or ''. */
  extension: string
  /** ETag and Last-Modified as the server sent them (empty for our own hosted files). */
  validators: Validators
  /** Cache-Control and Expires as the server sent them (how long a client ID metadata document may be kept). */
  caching?: { cacheControl?: string; expires?: string }
  /** Removes the temporary file and its folder. Safe to call twice. */
  dispose(): Promise<void>
}

/** A small document read whole into memory (see {@link SafeFetcher.fetchDocument}). */
export interface FetchedDocument {
  body: Buffer
  contentType: string | undefined
  /** Cache-Control and Expires as the server sent them. */
  caching: { cacheControl?: string; expires?: string }
  finalUrl: string
}

export interface SafeFetcher {
  /**
   * A small document (JSON metadata and the like) read into memory under the same guards, with its own
   * Accept header: never written to disk, refused past `maxBytes` the moment the count goes over, any
   * status but 200 a failure. @throws {MediaError}
   */
  fetchDocument(
    url: string,
    options: { maxBytes: number; accept: string; signal?: AbortSignal },
  ): Promise<FetchedDocument>
  /** Fetches `url` into a temporary file. @throws {MediaError} every refusal and failure. */
  fetchToFile(url: string, options: FetchOptions): Promise<FetchedFile>
  /**
   * A conditional GET (If-None-Match / If-Modified-Since): `not_modified` on 304, else the new bytes as
   * {@link fetchToFile} fetches them. @throws {MediaError}
   */
  fetchIfChanged(
    url: string,
    validators: Validators,
    options: FetchOptions,
  ): Promise<FetchedFile | 'not_modified'>
  /**
   * The inclusive byte range `start`-`end` of `url`. A server that ignores ranges (200) streams the whole
   * file to a temporary file under the same caps instead. @throws {MediaError}
   */
  fetchRange(url: string, range: { start: number; end: number }, options: FetchOptions): Promise<RangeAnswer>
}

/** How a refused address category reads in a sentence. */
export const categoryWords: Record<AddressCategory, string> = {
  loopback: 'loopback',
  private: 'private-network',
  link_local: 'link-local',
  cloud_metadata: 'cloud-metadata',
  multicast: 'multicast',
  unspecified: 'unspecified',
  reserved: 'reserved',
}

const HEAD_BYTES = 4096
const REDIRECTS = new Set([301, 302, 303, 307, 308])

export const defaultLookup: LookupFn = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true })
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }))
}

/**
 * The one address a socket to `url` will be pinned to, after every address of the host passed the policy.
 * Shared by every guarded request (media fetches, webhook deliveries). @throws {MediaError}
 */
export async function resolveCheckedAddress(
  url: URL,
  policy: AddressPolicyOptions,
  lookup: LookupFn = defaultLookup,
): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const literal = isIP(host)
  let addresses: ResolvedAddress[]
  if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
  else {
    try {
      addresses = await lookup(host)
    } catch (error) {
      throw new MediaError(
        'fetch_failed',
        `Could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}`,
      )
    }
    if (addresses.length === 0) throw new MediaError('fetch_failed', `${host} has no address`)
  }
  // Every address must pass: a host that also resolves inside the network is refused outright.
  for (const entry of addresses) {
    const verdict = checkAddress(entry.address, policy)
    if (!verdict.allowed) {
      // A name's answer is not echoed: it would map the inside of the network for whoever asked.
      const why = literal
        ? verdict.reason
        : `${host} resolves to a ${categoryWords[verdict.category]} address`
      throw new MediaError('blocked_address', `Refusing to fetch from ${url.host}: ${why}`)
    }
  }
  return addresses[0]!
}

export function createSafeFetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const settings = settingsOf(options)
  return {
    fetchDocument: (raw, documentOptions) => fetchDocument(settings, raw, documentOptions),
    async fetchToFile(raw, fetchOptions) {
      return (await fetchWith(settings, raw, fetchOptions, {})) as FetchedFile
    },
    async fetchIfChanged(raw, validators, fetchOptions) {
      const extra: Record<string, string> = {}
      if (validators.etag) extra['if-none-match'] = validators.etag
      if (validators.lastModified) extra['if-modified-since'] = validators.lastModified
      return (await fetchWith(settings, raw, fetchOptions, extra)) as FetchedFile | 'not_modified'
    },
    async fetchRange(raw, range, fetchOptions) {
      const answer = await fetchWith(
        settings,
        raw,
        fetchOptions,
        { range: `bytes=${range.start}-${range.end}` },
        range,
      )
      if (answer === 'not_modified') throw new MediaError('fetch_failed', 'Unexpected 304 to a range request')
      return 'kind' in answer ? answer : { kind: 'full', file: answer }
    },
  }
}

/** The fetcher's options with their defaults applied. */
interface FetcherSettings {
  options: SafeFetcherOptions
  policy: AddressPolicyOptions
  lookup: LookupFn
  connectTimeoutMs: number
  totalTimeoutMs: number
  idleTimeoutMs: number
  maxRedirects: number
}

function settingsOf(options: SafeFetcherOptions): FetcherSettings {
  return {
    options,
    policy: { allowPrivate: options.allowPrivate ?? false },
    lookup: options.lookup ?? defaultLookup,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    totalTimeoutMs: options.totalTimeoutMs ?? 300_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
    maxRedirects: options.maxRedirects ?? 5,
  }
}

/** A GET pinned to a checked address, following redirects (each hop checked again) up to the limit. */
async function requestFollowingRedirects(
  settings: FetcherSettings,
  start: URL,
  signal: AbortSignal,
  extra: Record<string, string>,
): Promise<{ response: IncomingMessage; url: URL }> {
  const { options, policy, maxRedirects } = settings
  let url = start
  for (let hop = 0; ; hop++) {
    const target = await resolveCheckedAddress(url, policy, settings.lookup)
    const response = await pinnedRequest({
      url,
      target,
      policy,
      dial: options.dial,
      ca: options.ca,
      connectTimeoutMs: settings.connectTimeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
      signal,
      headers: {
        'user-agent': options.userAgent ?? 'Herald media fetcher',
        accept: 'image/*, video/*;q=0.9, */*;q=0.5',
        ...extra,
      },
    })
    const status = response.statusCode ?? 0
    if (!REDIRECTS.has(status)) return { response, url }
    response.destroy()
    const location = response.headers.location
    if (!location) throw new MediaError('fetch_failed', `${url.host} answered ${status} without a Location`)
    if (hop >= maxRedirects)
      throw new MediaError('fetch_failed', `More than ${maxRedirects} redirects from ${start.host}`)
    let next: URL
    try {
      next = new URL(location, url)
    } catch {
      throw new MediaError('fetch_failed', `${url.host} redirected to an invalid URL`)
    }
    url = parseMediaUrl(next.href)
    options.logger?.debug({ from: start.host, to: url.host, hop: hop + 1 }, 'media redirect')
  }
}

type PartialAnswer = Extract<RangeAnswer, { kind: 'partial' }>

/** One guarded GET with extra request headers; the whole body goes to a temporary file unless told otherwise. */
async function fetchWith(
  settings: FetcherSettings,
  raw: string,
  fetchOptions: FetchOptions,
  extra: Record<string, string>,
  range?: { start: number; end: number },
): Promise<FetchedFile | 'not_modified' | PartialAnswer> {
  const { totalTimeoutMs } = settings
  const url = parseMediaUrl(raw)
  const timeout = new AbortController()
  const timer = setTimeout(
    () =>
      timeout.abort(new MediaError('timeout', `Fetching ${url.host} took longer than ${totalTimeoutMs} ms`)),
    totalTimeoutMs,
  )
  const signal = fetchOptions.signal ? AbortSignal.any([fetchOptions.signal, timeout.signal]) : timeout.signal
  let temp: TempDir | undefined
  try {
    const source = await openBody(settings, url, { fetchOptions, extra, signal, range })
    if (source === 'not_modified' || 'kind' in source) return source
    temp = await createTempDir(settings.options.tempDir)
    const file = temp.file('body')
    const meter = await saveBody(source, file, fetchOptions, signal)
    return {
      path: file,
      size: meter.size(),
      sha256: meter.sha256(),
      head: meter.head(),
      contentType: source.contentType,
      finalUrl: source.finalUrl.href,
      name: fileNameFromUrl(raw),
      extension: urlExtension(raw),
      validators: source.validators,
      caching: source.caching,
      dispose: temp.dispose,
    }
  } catch (error) {
    await temp?.dispose()
    throw asMediaError(error, signal, url)
  } finally {
    clearTimeout(timer)
  }
}

/** A body about to be read: this service's own stored file, or a server's 2xx answer. */
interface OpenedBody {
  body: Readable
  local: boolean
  contentType: string | undefined
  finalUrl: URL
  validators: Validators
  caching: { cacheControl?: string; expires?: string }
}

/**
 * Opens what a fetch reads: the stored file behind one of this service's own URLs, or the server's answer.
 * A 304 to a conditional request and a 206 to a range request end the fetch here; any other non-2xx, or a
 * declared size over the cap, is refused before the body is read.
 */
async function openBody(
  settings: FetcherSettings,
  url: URL,
  request: {
    fetchOptions: FetchOptions
    extra: Record<string, string>
    signal: AbortSignal
    range: { start: number; end: number } | undefined
  },
): Promise<OpenedBody | 'not_modified' | PartialAnswer> {
  const { fetchOptions, extra, signal, range } = request
  const local = await settings.options.localSource?.(url)
  if (local) {
    if (local.size > fetchOptions.maxBytes) throw tooLarge(local.size, fetchOptions.maxBytes)
    const body = await local.open()
    return { body, local: true, contentType: local.contentType, finalUrl: url, validators: {}, caching: {} }
  }
  const opened = await requestFollowingRedirects(settings, url, signal, extra)
  const { response } = opened
  const finalUrl = opened.url
  const status = response.statusCode ?? 0
  if (status === 304 && (extra['if-none-match'] || extra['if-modified-since'])) {
    response.destroy()
    return 'not_modified'
  }
  if (status < 200 || status > 299) {
    response.destroy()
    throw new MediaError('fetch_failed', `Fetching ${redactQuery(finalUrl)} answered HTTP ${status}`)
  }
  const validators = validatorsOf(response)
  const caching: OpenedBody['caching'] = {}
  if (response.headers['cache-control']) caching.cacheControl = response.headers['cache-control']
  if (response.headers.expires) caching.expires = response.headers.expires
  const contentType = response.headers['content-type']?.split(';')[0]?.trim()
  if (range && status === 206)
    return {
      kind: 'partial',
      ...(await readPartial(response, range, fetchOptions, signal)),
      validators,
      contentType,
    }
  const declared = Number(response.headers['content-length'])
  if (Number.isFinite(declared) && declared > fetchOptions.maxBytes) {
    response.destroy()
    throw tooLarge(declared, fetchOptions.maxBytes)
  }
  return { body: response, local: false, contentType, finalUrl, validators, caching }
}

/** Streams the body through the meter (size cap, hash, head) into `file`. */
async function saveBody(source: OpenedBody, file: string, fetchOptions: FetchOptions, signal: AbortSignal) {
  const { body } = source
  const meter = createMeter(fetchOptions)
  // A refusal ends the response and its connection itself. The pipeline's own clean-up aborts the
  // request instead, which leaves a response whose last byte already arrived (a small body over TLS)
  // undestroyed, and the pipeline waiting on it until the server hangs up.
  const hangUp = (error?: unknown) => {
    if (source.local) body.destroy()
    else {
      ;(body as IncomingMessage).socket?.destroy()
      body.destroy(error instanceof Error ? error : undefined)
    }
  }
  const onAbort = () => hangUp(signal.reason)
  meter.stream.once('error', hangUp)
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    await pipeline(body, meter.stream, createWriteStream(file), { signal })
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
  return meter
}

/** A total-time signal for one fetch, joined with the caller's; `done` clears its timer. */
function deadline(totalTimeoutMs: number, url: URL, outer: AbortSignal | undefined) {
  const controller = new AbortController()
  const timer = setTimeout(
    () =>
      controller.abort(
        new MediaError('timeout', `Fetching ${url.host} took longer than ${totalTimeoutMs} ms`),
      ),
    totalTimeoutMs,
  )
  // A listener rather than AbortSignal.any: it keeps the caller's signal (often an AbortSignal.timeout
  // nobody else holds) alive until this fetch is done.
  const onOuter = () =>
    controller.abort(new MediaError('timeout', `Fetching ${url.host} was cut short by its caller's deadline`))
  if (outer?.aborted) onOuter()
  else outer?.addEventListener('abort', onOuter, { once: true })
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onOuter)
    },
  }
}

async function fetchDocument(
  settings: FetcherSettings,
  raw: string,
  documentOptions: { maxBytes: number; accept: string; signal?: AbortSignal },
): Promise<FetchedDocument> {
  const url = parseMediaUrl(raw)
  const { signal, done } = deadline(settings.totalTimeoutMs, url, documentOptions.signal)
  let response: IncomingMessage | undefined
  try {
    const opened = await requestFollowingRedirects(settings, url, signal, { accept: documentOptions.accept })
    response = opened.response
    const status = response.statusCode ?? 0
    if (status !== 200)
      throw new MediaError('fetch_failed', `Fetching ${redactQuery(opened.url)} answered HTTP ${status}`)
    const declared = Number(response.headers['content-length'])
    if (Number.isFinite(declared) && declared > documentOptions.maxBytes)
      throw tooLarge(declared, documentOptions.maxBytes)
    const parts: Buffer[] = []
    let size = 0
    for await (const chunk of response.iterator({ destroyOnReturn: true })) {
      if (signal.aborted) throw signal.reason
      size += (chunk as Buffer).length
      if (size > documentOptions.maxBytes) throw tooLarge(size, documentOptions.maxBytes, true)
      parts.push(chunk as Buffer)
    }
    if (signal.aborted) throw signal.reason
    const caching: FetchedDocument['caching'] = {}
    if (response.headers['cache-control']) caching.cacheControl = response.headers['cache-control']
    if (response.headers.expires) caching.expires = response.headers.expires
    return {
      body: Buffer.concat(parts),
      contentType: response.headers['content-type']?.split(';')[0]?.trim(),
      caching,
      finalUrl: opened.url.href,
    }
  } catch (error) {
    throw asMediaError(error, signal, url)
  } finally {
    // Whatever happened, this connection is not reused: its socket goes with the response.
    response?.socket?.destroy()
    response?.destroy()
    done()
  }
}

function validatorsOf(response: IncomingMessage): Validators {
  const validators: Validators = {}
  const etag = response.headers.etag
  const lastModified = response.headers['last-modified']
  // A weak ETag still names this version for If-None-Match (RFC 9110 §13.1.2 uses weak comparison).
  if (etag) validators.etag = etag
  if (lastModified) validators.lastModified = lastModified
  return validators
}

/** A 206 body: exactly the range asked for (never more), and the file's total size from Content-Range. */
async function readPartial(
  response: IncomingMessage,
  range: { start: number; end: number },
  fetchOptions: FetchOptions,
  signal: AbortSignal,
): Promise<{ bytes: Buffer; totalSize: number }> {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers['content-range']?.trim() ?? '')
  const [first, last, total] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : []
  if (first !== range.start || last === undefined || total === undefined || last < first) {
    response.destroy()
    throw new MediaError('fetch_failed', 'The server answered a range request with an unexpected range')
  }
  if (total > fetchOptions.maxBytes) {
    response.destroy()
    throw tooLarge(total, fetchOptions.maxBytes)
  }
  const wanted = Math.min(last, range.end) - first + 1
  const parts: Buffer[] = []
  let length = 0
  for await (const chunk of response.iterator({ destroyOnReturn: true })) {
    if (signal.aborted) throw signal.reason
    parts.push(chunk as Buffer)
    length += (chunk as Buffer).length
    if (length > wanted) break
  }
  if (length < wanted) throw new MediaError('fetch_failed', 'The server ended a range response early')
  return { bytes: Buffer.concat(parts).subarray(0, wanted), totalSize: total }
}

/** Counts, hashes and keeps the head of the bytes going by; fails the stream past the cap. */
function createMeter(options: FetchOptions) {
  const hash = createHash('sha256')
  const headParts: Buffer[] = []
  let headLength = 0
  let size = 0
  let cap = options.maxBytes
  let capped = false
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (headLength < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - headLength)
        headParts.push(part)
        headLength += part.length
      }
      try {
        if (!capped && options.capForHead && headLength >= 64) {
          cap = Math.min(cap, options.capForHead(Buffer.concat(headParts)))
          capped = true
        }
      } catch (error) {
        return done(error as Error)
      }
      if (size > cap) return done(tooLarge(size, cap, true))
      hash.update(chunk)
      done(null, chunk)
    },
    flush(done) {
      try {
        const last = !capped && options.capForHead ? options.capForHead(Buffer.concat(headParts)) : cap
        done(size > last ? tooLarge(size, last) : null)
      } catch (error) {
        done(error as Error)
      }
    },
  })
  return {
    stream,
    size: () => size,
    sha256: () => hash.digest('hex'),
    head: () => Buffer.concat(headParts),
  }
}

/** A size in words: KB under a megabyte (a 5 KB cap is not "0 MB"), else MB to one decimal. */
const mb = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`

export function tooLarge(size: number, cap: number, partial = false): MediaError {
  const actual = partial ? `larger than ${mb(cap)}` : mb(size)
  return new MediaError('too_large', `The file is ${actual}; the limit for this use is ${mb(cap)}`)
}

const redactQuery = (url: URL) => `${url.protocol}//${url.host}${url.pathname}`

function asMediaError(error: unknown, signal: AbortSignal, url: URL): MediaError {
  if (error instanceof MediaError) return error
  if (signal.aborted) {
    const reason: unknown = signal.reason
    return reason instanceof MediaError
      ? reason
      : new MediaError('fetch_failed', `Fetching ${url.host} was cancelled`)
  }
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof MediaError) return cause
  const code = (error as NodeJS.ErrnoException).code
  return new MediaError('fetch_failed', `Could not fetch ${url.host}: ${code ?? (error as Error).message}`)
}
