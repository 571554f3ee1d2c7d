import type { IncomingMessage } from 'node:http'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import tls from 'node:tls'
import { MediaError } from '../../core/media-port.js'
import { type AddressPolicyOptions, checkAddress, parseIpv6 } from './address-policy.js'

/**
 * One HTTP request (a GET, or a call with a small body) to an address that was already resolved and checked. The socket is opened to that exact
 * address (no second DNS lookup, so a rebinding resolver cannot swap it), and when it connects its
 * remote address is checked again before a single request byte is written.
 */

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/**
 * A test seam standing in for the network's routing: it maps a checked address to where the socket
 * really goes. Production never sets it. With a dial in place the socket must reach the dialled endpoint;
 * the address policy has already been applied to the checked address before dialling.
 */
export type DialFn = (target: { hostname: string; address: string; port: number }) => {
  host: string
  port: number
}

export interface PinnedRequestOptions {
  url: URL
  target: ResolvedAddress
  policy: AddressPolicyOptions
  dial: DialFn | undefined
  connectTimeoutMs: number
  idleTimeoutMs: number
  /** Extra trusted CA certificates (PEM); default the system store. */
  ca: string | undefined
  headers: Record<string, string>
  signal: AbortSignal
  /** Default GET. */
  method?: string
  /** A request body, sent whole (XRPC calls, webhook deliveries; media fetches send none). */
  body?: Uint8Array | string
}

const canonical = (address: string | undefined): string => {
  if (!address) return ''
  const groups = parseIpv6(address)
  if (!groups) return address
  // An IPv4-mapped remote address (dual-stack socket) is the IPv4 address it carries.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  return groups.map((g) => g.toString(16)).join(':')
}

/** Where a request to `url`, resolved and checked to `target`, really connects (through `dial` in tests). */
export function pinnedRoute(url: URL, target: ResolvedAddress, dial: DialFn | undefined) {
  const secure = url.protocol === 'https:'
  const port = Number(url.port) || (secure ? 443 : 80)
  const hostname = url.hostname.replace(/^\[|\]$/g, '')
  const route = dial ? dial({ hostname, address: target.address, port }) : { host: target.address, port }
  return { secure, hostname, route }
}

/**
 * A socket (TLS for https) opened to the pinned route, never by hostname. When it connects its remote
 * address is checked again (the policy, unless a test dial routes it) before any request byte is written;
 * a socket that reached anything else is destroyed with a `blocked_address` error.
 */
export function connectPinned(options: {
  url: URL
  route: { host: string; port: number }
  hostname: string
  secure: boolean
  policy: AddressPolicyOptions
  dialled: boolean
  ca: string | undefined
  connectTimeoutMs: number
}): net.Socket {
  const { url, route, hostname } = options
  const socket = options.secure
    ? tls.connect({
        host: route.host,
        port: route.port,
        servername: net.isIP(hostname) ? undefined : hostname,
        ALPNProtocols: ['http/1.1'],
        ...(options.ca ? { ca: options.ca } : {}),
      })
    : net.connect({ host: route.host, port: route.port })
  const timer = setTimeout(
    () =>
      socket.destroy(
        new MediaError(
          'timeout',
          `Connecting to ${url.host} took longer than ${options.connectTimeoutMs} ms`,
        ),
      ),
    options.connectTimeoutMs,
  )
  // Registered before the HTTP client queues its write, so this runs first when the socket connects.
  // Over TLS the limit runs until the handshake is done: a peer that accepts and never finishes it is cut off.
  socket.once(options.secure ? 'secureConnect' : 'connect', () => clearTimeout(timer))
  socket.once('connect', () => {
    const remote = socket.remoteAddress
    if (canonical(remote) !== canonical(route.host)) {
      socket.destroy(
        new MediaError('blocked_address', `The connection to ${url.host} reached an unexpected address`),
      )
      return
    }
    if (!options.dialled) {
      const verdict = checkAddress(remote ?? '', options.policy)
      if (!verdict.allowed)
        socket.destroy(
          new MediaError('blocked_address', `Refusing to fetch from ${url.host}: ${verdict.reason}`),
        )
    }
  })
  socket.once('close', () => clearTimeout(timer))
  return socket
}

export function pinnedRequest(options: PinnedRequestOptions): Promise<IncomingMessage> {
  const { url, target, dial, signal } = options
  const { secure, hostname, route } = pinnedRoute(url, target, dial)
  const createConnection = () =>
    connectPinned({
      url,
      route,
      hostname,
      secure,
      policy: options.policy,
      dialled: dial !== undefined,
      ca: options.ca,
      connectTimeoutMs: options.connectTimeoutMs,
    })

  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      createConnection,
      signal,
    })
    let response: IncomingMessage | undefined
    request.setTimeout(options.idleTimeoutMs, () => {
      const error = new MediaError('timeout', `${url.host} sent nothing for ${options.idleTimeoutMs} ms`)
      // The body reader sees the response's error, so it must carry the reason too.
      response?.destroy(error)
      request.destroy(error)
    })
    request.once('response', (answer) => {
      response = answer
      resolve(answer)
    })
    request.once('error', reject)
    request.end(options.body)
  })
}
