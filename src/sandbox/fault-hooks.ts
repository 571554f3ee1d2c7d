import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Network } from '../core/networks.js'
import type { Fault, FaultAnswer, FaultInjector, SimulatedCall } from './fault-injector.js'

/**
 * Wires a {@link FaultInjector} into one simulator: every request the simulator serves (its control
 * surface under `/_sandbox` excepted) is described as a {@link SimulatedCall} and the injector asked
 * about it before anything is handled.
 *
 * - `before`: the request is refused or cut before its handler runs, so nothing happens on the network;
 * - `after`: the handler runs (the post, comment, container or video exists), then its answer is replaced
 *   on the way out: a status with the network's own body and headers, a reset connection, or silence
 *   until the client gives up.
 * - a short page: for a GET (or a call marked `pages`) the injector's `shortPage` names a row count for, the simulator's list route
 *   serves at most that many rows ({@link servedRows}) and a cursor to the rest, as a network that filtered
 *   the page would.
 *
 * Handlers that hijack their reply (the simulators' own drop faults) are never touched afterwards.
 */

/** What a simulator says about one of its requests. */
export interface CallKind {
  /** Defaults to the simulator's network (the Meta simulator serves Facebook and Instagram). */
  network?: Network
  operation: string
  effectful: boolean
  /**
   * A read that serves one page of a list although it is not a GET (TikTok's `POST /v2/video/list/`): the
   * injector is asked for a short page as for a GET.
   */
  pages?: boolean
}

/** The network's own body and headers for an injected status, when the fault names none. */
export type FaultBody = (
  status: number,
  call: SimulatedCall,
) => { body: unknown; headers?: Record<string, string> }

export interface FaultHookOptions {
  network: Network
  injector: FaultInjector
  /** The simulator's mount prefix: `SimulatedCall.path` is the URL path under it. */
  prefix: string
  /**
   * The request's operation, given the path under the prefix and the route pattern (also under the prefix)
   * that matched it. Undefined leaves the request alone; a route the simulator does not describe falls back
   * to `<METHOD> <route>`, effectful unless it is a GET.
   */
  classify(request: FastifyRequest, path: string, route: string): CallKind | undefined
  answer: FaultBody
}

/** Routes a simulator's table names, as `METHOD /route/pattern` under the prefix. */
export type CallTable = Record<string, CallKind>

/** A classifier reading a {@link CallTable}. */
export const fromTable =
  (table: CallTable) =>
  (request: FastifyRequest, _path: string, route: string): CallKind | undefined =>
    table[`${request.method} ${route}`]

const CONTROL_SURFACE = /^\/_sandbox(\/|$)/

/** The rows the injector let each listing request's page hold (see {@link FaultInjector.shortPage}). */
const shortPages = new WeakMap<FastifyRequest, number>()

/**
 * The most rows this request's page may hold, when the fault injector asked for a short (or empty) page;
 * undefined for a page as asked. A simulator's list routes read it and keep their cursor to the rest.
 */
export const servedRows = (request: FastifyRequest): number | undefined => shortPages.get(request)

export function installFaultHooks(app: FastifyInstance, options: FaultHookOptions): void {
  const prefix = options.prefix.replace(/\/+$/, '')
  const pending = new WeakMap<FastifyRequest, { fault: Fault; call: SimulatedCall }>()
  /** Connections kept open by a `hang`, closed when the server closes so it can stop. */
  const hanging = new Set<Socket>()

  const describe = (request: FastifyRequest): (SimulatedCall & { pages: boolean }) | undefined => {
    const path = underPrefix(request.url.split('?')[0] ?? '', prefix)
    if (CONTROL_SURFACE.test(path)) return undefined
    const route = underPrefix(request.routeOptions.url ?? path, prefix)
    const kind =
      options.classify(request, path, route) ??
      (request.routeOptions.url === undefined
        ? undefined
        : { operation: `${request.method} ${route}`, effectful: request.method !== 'GET' })
    if (!kind) return undefined
    return {
      network: kind.network ?? options.network,
      operation: kind.operation,
      effectful: kind.effectful,
      method: request.method,
      path,
      query: request.query,
      body: request.body,
      ...idempotencyKeyOf(request),
      pages: kind.pages === true,
    }
  }

  const statusAnswer = (answer: Extract<FaultAnswer, { kind: 'status' }>, call: SimulatedCall) => {
    const own = options.answer(answer.status, call)
    return {
      body: answer.body ?? own.body,
      headers: { ...(answer.body === undefined ? own.headers : {}), ...answer.headers },
    }
  }

  /** Waits until the client gives up on the connection (or the server closes), then makes sure it is gone. */
  const hangUntilClosed = (socket: Socket) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed) return resolve()
      hanging.add(socket)
      socket.once('close', () => {
        hanging.delete(socket)
        resolve()
      })
    })

  app.addHook('preClose', async () => {
    for (const socket of hanging) socket.destroy()
  })

  app.addHook('preHandler', async (request, reply) => {
    const described = describe(request)
    if (!described) return
    const { pages, ...call } = described
    const fault = options.injector.decide(call)
    if (fault?.timing !== 'before' && (request.method === 'GET' || pages)) {
      const rows = options.injector.shortPage?.(call)
      if (rows !== undefined) shortPages.set(request, Math.max(0, Math.floor(rows)))
    }
    if (!fault) return
    if (fault.timing === 'after') {
      pending.set(request, { fault, call })
      return
    }
    // Refused before any effect: a body the handler would have streamed is read and dropped first.
    if (!request.raw.readableEnded) request.raw.resume()
    const { answer } = fault
    if (answer.kind === 'reset') return cut(request, reply)
    if (answer.kind === 'hang') {
      reply.hijack()
      await hangUntilClosed(request.raw.socket)
      return
    }
    const { body, headers } = statusAnswer(answer, call)
    return sendStatus(reply, answer.status, body, headers)
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const entry = pending.get(request)
    if (!entry) return payload
    pending.delete(request)
    const { answer } = entry.fault
    if (answer.kind === 'reset') {
      request.raw.socket.destroy()
      return payload
    }
    if (answer.kind === 'hang') {
      await hangUntilClosed(request.raw.socket)
      request.raw.socket.destroy()
      return payload
    }
    const { body, headers } = statusAnswer(answer, entry.call)
    reply.code(answer.status)
    for (const name of ['location', 'range', 'x-restli-id', 'x-linkedin-id']) reply.removeHeader(name)
    reply.headers(headers)
    return serialize(reply, body)
  })
}

function underPrefix(path: string, prefix: string): string {
  const rest = path.startsWith(prefix) ? path.slice(prefix.length) : path
  return rest.startsWith('/') ? rest : `/${rest}`
}

function cut(request: FastifyRequest, reply: FastifyReply) {
  reply.hijack()
  request.raw.socket.destroy()
}

function sendStatus(reply: FastifyReply, status: number, body: unknown, headers: Record<string, string>) {
  reply.code(status).headers(headers)
  return reply.send(serialize(reply, body))
}

/** The body as the wire carries it: JSON unless the fault gave a string. */
function serialize(reply: FastifyReply, body: unknown): string {
  if (typeof body === 'string') return body
  if (!reply.hasHeader('content-type') || !/json/.test(String(reply.getHeader('content-type'))))
    reply.header('content-type', 'application/json; charset=utf-8')
  return body === undefined ? '' : JSON.stringify(body)
}

/** The request's `Idempotency-Key`, as the field a {@link SimulatedCall} carries it in. */
function idempotencyKeyOf(request: FastifyRequest): { idempotencyKey?: string } {
  const key = request.headers['idempotency-key']
  return typeof key === 'string' && key !== '' ? { idempotencyKey: key } : {}
}
