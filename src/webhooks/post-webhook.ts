import type { IncomingMessage } from 'node:http'
import type { AddressPolicyOptions } from '../media/address-policy.js'
import { type DialFn, pinnedRequest } from '../media/pinned-request.js'
import { MediaError } from '../media/port.js'
import { type LookupFn, resolveCheckedAddress } from '../media/safe-fetch.js'
import type { AttemptResult } from '../store/webhooks.js'

/** How much of a receiver's answer is kept in the delivery log. */
const EXCERPT_BYTES = 1_024

export interface WebhookClientOptions {
  policy: AddressPolicyOptions
  timeoutMs: number
  lookup?: LookupFn
  /** Test seam only (see {@link DialFn}). */
  dial?: DialFn
  ca?: string
}

/**
 * One POST of a signed event through the guarded client: the receiver's host is resolved and checked
 * like a media URL, the socket pinned to the checked address, redirects are not followed (a 3xx is a
 * failed attempt), and the whole call, body included, ends within the timeout. Never throws.
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
  let response: IncomingMessage | undefined
  try {
    const parsed = new URL(url)
    const target = await resolveCheckedAddress(parsed, options.policy, options.lookup)
    response = await pinnedRequest({
      url: parsed,
      target,
      policy: options.policy,
      dial: options.dial,
      ca: options.ca,
      connectTimeoutMs: options.timeoutMs,
      idleTimeoutMs: options.timeoutMs,
      signal: controller.signal,
      method: 'POST',
      body,
      keepAlive: true,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Herald webhooks',
        ...headers,
      },
    })
    const excerpt = await readExcerpt(response, controller.signal)
    return { statusCode: response.statusCode ?? null, latencyMs: elapsed(), excerpt }
  } catch (error) {
    const reason = controller.signal.aborted ? controller.signal.reason : error
    return { statusCode: null, latencyMs: elapsed(), excerpt: describe(reason) }
  } finally {
    clearTimeout(timer)
    // An answer read to its end leaves its connection for the next delivery; any other is closed.
    if (!response?.complete) response?.destroy()
  }
}

/** The first bytes of the answer; the rest is never read (a huge body costs nothing). */
function readExcerpt(response: IncomingMessage, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = () => {
      cleanup()
      resolve(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'))
    }
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      if (size >= EXCERPT_BYTES) finish()
    }
    const onError = (error: Error) => {
      cleanup()
      // The status already arrived: a body cut short still counts as the receiver's answer.
      if (chunks.length > 0 || response.statusCode) resolve(Buffer.concat(chunks).toString('utf8'))
      else reject(error)
    }
    const onAbort = () => onError(signal.reason as Error)
    const cleanup = () => {
      response.off('data', onData)
      response.off('end', finish)
      response.off('error', onError)
      signal.removeEventListener('abort', onAbort)
    }
    response.on('data', onData)
    response.once('end', finish)
    response.once('error', onError)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

function describe(error: unknown): string {
  if (error instanceof MediaError)
    return error.message.replace(/^Refusing to fetch from/, 'Refusing to deliver to')
  const code = (error as NodeJS.ErrnoException)?.code
  if (code) return `Connection failed (${code})`
  return error instanceof Error ? error.message.slice(0, 200) : 'Delivery failed'
}
