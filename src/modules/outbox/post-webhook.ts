import { type Dispatcher, Pool } from 'undici'
import { MediaError } from '../../core/media-port.js'
import type { AttemptResult } from '../../platform/db/statements/webhooks.js'
import type { AddressPolicyOptions } from '../../platform/egress/address-policy.js'
import {
  connectPinned,
  type DialFn,
  pinnedRoute,
  type ResolvedAddress,
} from '../../platform/egress/pinned-request.js'
import { type LookupFn, resolveCheckedAddress } from '../../platform/egress/safe-fetch.js'

/** How much of a receiver's answer is kept in the delivery log. */
const EXCERPT_BYTES = 1_024
/** Idle kept connections close after this long. */
const KEEP_ALIVE_IDLE_MS = 4_000
/** Connection pools kept, one per pinned route, connection settings and address policy. */
const POOLS_KEPT = 256

export interface WebhookClientOptions {
  policy: AddressPolicyOptions
  timeoutMs: number
  lookup?: LookupFn
  /** Test seam only (see {@link DialFn}). */
  dial?: DialFn
  ca?: string
}

const pools = new Map<string, Pool>()

/**
 * The kept connections to one receiver at one checked address. Every socket of the pool is opened by
 * {@link connectPinned}: to that address, never by hostname, and checked again when it connects.
 */
function poolFor(url: URL, target: ResolvedAddress, options: WebhookClientOptions) {
  const { secure, hostname, route } = pinnedRoute(url, target, options.dial)
  const key = [
    url.origin,
    target.address,
    route.host,
    route.port,
    options.ca ?? '',
    options.policy.allowPrivate === true,
    options.dial !== undefined,
  ].join('|')
  const kept = pools.get(key)
  if (kept) {
    pools.delete(key)
    pools.set(key, kept)
    return kept
  }
  const pool = new Pool(url.origin, {
    keepAliveTimeout: KEEP_ALIVE_IDLE_MS,
    connect: (_, callback) => {
      const socket = connectPinned({
        url,
        route,
        hostname,
        secure,
        policy: options.policy,
        dialled: options.dial !== undefined,
        ca: options.ca,
        connectTimeoutMs: options.timeoutMs,
      })
      let answered = false
      const answer = (error: Error | null) => {
        if (answered) return
        answered = true
        socket.off('error', answer)
        if (error) callback(error, null)
        else callback(null, socket)
      }
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        // The pinned check runs on `connect` first and destroys a socket that reached the wrong address.
        if (!socket.destroyed) answer(null)
      })
      socket.once('error', answer)
    },
  })
  if (pools.size >= POOLS_KEPT) {
    // The least recently used goes, closing once its calls under way are over.
    const [oldest, old] = pools.entries().next().value as [string, Pool]
    pools.delete(oldest)
    void old.close().catch(() => undefined)
  }
  pools.set(key, pool)
  return pool
}

/**
 * One POST of a signed event through the guarded client: the receiver's host is resolved and checked
 * like a media URL, the socket pinned to the checked address, redirects are not followed (a 3xx is a
 * failed attempt), and the whole call, body included, ends within the timeout. Connections are kept per
 * pinned address for the next delivery (undici: half the CPU per call of node:http). Never throws.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: WebhookClientOptions,
): Promise<AttemptResult> {
  const started = performance.now()
  const controller = new AbortController()
  const timer = setTimeout(
    () => controller.abort(new MediaError('timeout', `No answer within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  )
  const elapsed = () => performance.now() - started
  const call = async (): Promise<AttemptResult> => {
    const parsed = new URL(url)
    const target = await resolveCheckedAddress(parsed, options.policy, options.lookup)
    const response = await poolFor(parsed, target, options).request({
      path: `${parsed.pathname}${parsed.search}`,
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'Herald webhooks', ...headers },
      signal: controller.signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    })
    if (controller.signal.aborted) {
      response.body.destroy()
      throw controller.signal.reason
    }
    const excerpt = await readExcerpt(response, controller.signal)
    return { statusCode: response.statusCode, latencyMs: elapsed(), excerpt }
  }
  // The timeout ends the call whatever it waits on: a lookup, a connection or a TLS handshake (which the
  // pool's own connect limit cuts off too, closing the socket), the answer or its body.
  const aborted = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
  )
  const work = call()
  work.catch(() => undefined)
  try {
    return await Promise.race([work, aborted])
  } catch (error) {
    const reason = controller.signal.aborted ? controller.signal.reason : error
    return { statusCode: null, latencyMs: elapsed(), excerpt: describe(reason) }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The first bytes of the answer; the rest is never read (a huge body costs nothing). An answer read to its
 * end leaves its connection for the next delivery; one cut short closes it. The status already arrived, so
 * a body that fails or times out midway still counts as the receiver's answer, with what came of it.
 */
async function readExcerpt(response: Dispatcher.ResponseData, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  const text = () => Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8')
  const onAbort = () => response.body.destroy(signal.reason as Error)
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    for await (const chunk of response.body) {
      chunks.push(chunk as Buffer)
      size += (chunk as Buffer).length
      if (size >= EXCERPT_BYTES) {
        response.body.destroy()
        break
      }
    }
  } catch {
    // Cut short: what came is the excerpt.
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
  return text()
}

function describe(error: unknown): string {
  if (error instanceof MediaError)
    return error.message.replace(/^Refusing to fetch from/, 'Refusing to deliver to')
  const code = (error as NodeJS.ErrnoException)?.code
  if (code) return `Connection failed (${code})`
  return error instanceof Error ? error.message.slice(0, 200) : 'Delivery failed'
}
