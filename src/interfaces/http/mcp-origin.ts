import { validateHostHeader } from '@modelcontextprotocol/server'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../../platform/config.js'
import { AppError } from '../../platform/errors.js'

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]']

const isLoopbackBind = (host: string) =>
  host === 'localhost' || host === '::1' || host.startsWith('127.') || host === '[::1]'

/**
 * The origins of pages this Herald serves on loopback, when it listens on loopback: `localhost`,
 * `127.0.0.1` and `[::1]` all reach this server, so each of them on its own port (the one this request came
 * in on, over http) and on PUBLIC_BASE_URL's port when that URL names a loopback host (a local proxy in
 * front). A loopback page on any other port is another program's.
 */
function ownLoopbackOrigins(config: Config, request: FastifyRequest): string[] {
  if (!isLoopbackBind(config.host)) return []
  const publicUrl = new URL(config.publicBaseUrl)
  const listening = request.raw.socket?.localPort ?? config.port
  const entrances = [{ protocol: 'http:', port: String(listening) }]
  if (LOOPBACK_NAMES.includes(publicUrl.hostname)) entrances.push(publicUrl)
  return entrances.flatMap(({ protocol, port }) =>
    LOOPBACK_NAMES.map((name) => new URL(`${protocol}//${name}${port ? `:${port}` : ''}`).origin),
  )
}

/**
 * DNS-rebinding protection for `/mcp` (MCP transports, "Security warning"): a browser request whose `Origin`
 * is not this Herald's public origin, one of its own loopback origins ({@link ownLoopbackOrigins}) or one
 * listed in HERALD_MCP_ALLOWED_ORIGINS is refused with 403, and when Herald listens on loopback only, so is
 * a request whose `Host` names anything but a loopback name or the public URL's host (a rebinding page
 * reaches 127.0.0.1 under its own name). A request with no `Origin` comes from a program, not a page, and
 * passes.
 */
export function checkMcpRequestOrigin(config: Config, request: FastifyRequest) {
  const origin = request.headers.origin
  if (origin !== undefined) {
    const allowed = new Set([
      new URL(config.publicBaseUrl).origin,
      ...ownLoopbackOrigins(config, request),
      ...config.mcpAllowedOrigins,
    ])
    let parsed: string | undefined
    try {
      parsed = new URL(origin).origin
    } catch {}
    if (!parsed || parsed === 'null' || !allowed.has(parsed))
      throw new AppError('forbidden', `Requests from the origin ${origin.slice(0, 200)} are not accepted`)
  }
  if (isLoopbackBind(config.host)) {
    const names = [...LOOPBACK_NAMES, new URL(config.publicBaseUrl).hostname]
    const verdict = validateHostHeader(request.headers.host, names)
    if (!verdict.ok) throw new AppError('forbidden', verdict.message)
  }
}
