import type { IncomingMessage } from 'node:http'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import tls from 'node:tls'
import { type AddressPolicyOptions, checkAddress, parseIpv6 } from './address-policy.js'
import { MediaError } from './port.js'

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
  /**
   * Keep the connection for the next request to the same checked address (webhook deliveries, many to
   * one receiver). A kept socket was checked when it connected and stays pinned to that address; the
   * caller must read the answer to its end, or destroy it, for the socket to be reused or let go.
   */
  keepAlive?: boolean
}

/** Idle kept connections close after this long. */
const KEEP_ALIVE_IDLE_MS = 4_000
/** Agents of kept connections, one per pinned route, connection settings and address policy. */
const keptAgents = new Map<string, http.Agent>()
const KEPT_AGENTS_MAX = 256

const canonical = (address: string | undefined): string => {
  if (!address) return ''
  const groups = parseIpv6(address)
  if (!groups) return address
  // An IPv4-mapped remote address (dual-stack socket) is the IPv4 address it carries.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  return groups.map((g) => g.toString(16)).join(':')
}

export function pinnedRequest(options: PinnedRequestOptions): Promise<IncomingMessage> {
  const { url, target, dial, signal } = options
  const secure = url.protocol === 'https:'
  const port = Number(url.port) || (secure ? 443 : 80)
  const hostname = url.hostname.replace(/^\[|\]$/g, '')
  const route = dial ? dial({ hostname, address: target.address, port }) : { host: target.address, port }

  const createConnection = () => {
    const socket = secure
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
    socket.once('connect', () => {
      clearTimeout(timer)
      const remote = socket.remoteAddress
      if (canonical(remote) !== canonical(route.host)) {
        socket.destroy(
          new MediaError('blocked_address', `The connection to ${url.host} reached an unexpected address`),
        )
        return
      }
      if (!dial) {
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

  const connection = options.keepAlive
    ? {
        agent: keptAgent(
          [
            secure,
            route.host,
            route.port,
            hostname,
            options.ca ?? '',
            options.policy.allowPrivate === true,
            dial !== undefined,
          ].join('|'),
          secure,
          createConnection,
        ),
      }
    : { createConnection }

  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      ...connection,
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

function keptAgent(key: string, secure: boolean, connect: () => net.Socket): http.Agent {
  let agent = keptAgents.get(key)
  if (agent) return agent
  const Agent = secure ? https.Agent : http.Agent
  agent = new Agent({ keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS, scheduling: 'lifo' })
  // Every socket of this agent is opened to the pinned address and checked there, never by hostname.
  agent.createConnection = () => connect()
  if (keptAgents.size >= KEPT_AGENTS_MAX) {
    const [oldest, old] = keptAgents.entries().next().value as [string, http.Agent]
    keptAgents.delete(oldest)
    old.destroy()
  }
  keptAgents.set(key, agent)
  return agent
}
