import { isIPv4, isIPv6 } from 'node:net'
import type { FastifyRequest } from 'fastify'

/**
 * Whether a request comes from a browser on this machine, which may set up a fresh instance without the
 * setup code (docs/security.md, "The setup page"). Every one of these must hold:
 *
 * - the socket's peer is a loopback address (a direct client from elsewhere never is, whatever it sends);
 * - the client address Fastify settled on is loopback too: behind a proxy that HERALD_TRUST_PROXY trusts,
 *   that is the address the proxy saw, so a remote visitor through a local proxy is remote;
 * - every address any forwarding header names is loopback: a local proxy that Herald was not told to
 *   trust still says who it forwards for, and a client can only add entries, never remove the proxy's;
 * - the Host is a loopback name: a page that reaches 127.0.0.1 under its own name (DNS rebinding) is not
 *   a visitor on this machine, and a proxy that passes the public host name on is not one either.
 */
export function isLocalRequest(request: FastifyRequest): boolean {
  if (!isLoopback(request.socket.remoteAddress) || !isLoopback(request.ip)) return false
  if (!forwardedAddresses(request).every(isLoopback)) return false
  return isLoopbackHost(request.headers.host)
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false
  const plain = address.replace(/^::ffff:/i, '')
  if (isIPv4(plain)) return plain.startsWith('127.')
  return isIPv6(plain) && (plain === '::1' || plain === '0:0:0:0:0:0:0:1')
}

const headerValues = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((v) => v.split(','))

/** Every address named by X-Forwarded-For, X-Real-IP and Forwarded's `for=` (obfuscated ones included). */
function forwardedAddresses(request: FastifyRequest): string[] {
  const headers = request.headers
  const forwardedFor = headerValues(headers.forwarded).flatMap((element) =>
    element
      .split(';')
      .map((pair) => pair.trim())
      .filter((pair) => pair.toLowerCase().startsWith('for='))
      .map((pair) => pair.slice(4)),
  )
  return [...headerValues(headers['x-forwarded-for']), ...headerValues(headers['x-real-ip']), ...forwardedFor]
    .map(bareAddress)
    .filter((address) => address !== '')
}

/** `"[::1]:8080"` → `::1`, `127.0.0.1:80` → `127.0.0.1`; anything else is kept (and is not loopback). */
function bareAddress(value: string): string {
  const text = value.trim().replace(/^"|"$/g, '')
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed) return bracketed[1] as string
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)
  return withPort ? (withPort[1] as string) : text
}

function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false
  let name: string
  try {
    name = new URL(`http://${host}`).hostname
  } catch {
    return false
  }
  if (name === 'localhost' || name === '[::1]') return true
  return isIPv4(name) && name.startsWith('127.')
}
