import type { FastifyRequest } from 'fastify'
import { servedRows } from '../fault-hooks.js'

/**
 * The parameters of a Graph call and the pages of a list, as Graph (graph.facebook.com, graph.instagram.com)
 * and Threads (graph.threads.net) read and page them: shared by the Meta and Threads simulators.
 */

export type Params = Record<string, string>

/**
 * The short pages the fault injector asked for ({@link servedRows}), by the parameters of their request:
 * the list routes read a page from the parameters alone, so {@link graphPage} finds it there.
 */
const shortPages = new WeakMap<Params, number>()

export function paramsOf(request: FastifyRequest): Params {
  const params: Params = {}
  const served = servedRows(request)
  if (served !== undefined) shortPages.set(params, served)
  for (const [key, value] of new URL(request.url, 'http://sandbox.invalid').searchParams) params[key] = value
  if (request.body instanceof URLSearchParams) for (const [key, value] of request.body) params[key] = value
  else if (request.body && typeof request.body === 'object')
    for (const [key, value] of Object.entries(request.body as Record<string, unknown>))
      params[key] = typeof value === 'string' ? value : JSON.stringify(value)
  return params
}

/**
 * One page of a newest-first edge, as Graph (and Threads) page lists: `limit` rows (25 by default) after
 * the `after` cursor, and a `paging` object whose `cursors.after` and `next` lead on while more rows
 * follow. A cursor names the last row of its page, so posts added at the head meanwhile do not shift the
 * next page. A short page the fault injector asked for holds fewer rows, or none, and still leads on
 * (Graph's own pages come back short when it filters them); the cursor of no row starts at the top.
 * Undefined when the `after` cursor names no row of the list.
 */
export function graphPage<Row extends { id: string }>(all: Row[], params: Params, path: string) {
  const limit = Number(params.limit ?? 25)
  let from = 0
  if (params.after !== undefined && params.after !== graphCursor('')) {
    const last = all.findIndex((row) => graphCursor(row.id) === params.after)
    if (last < 0) return undefined
    from = last + 1
  }
  const size = Math.min(limit, shortPages.get(params) ?? limit)
  const rows = all.slice(from, from + size)
  const after = from + size < all.length ? graphCursor(rows.at(-1)?.id ?? all[from - 1]?.id ?? '') : undefined
  const before = rows.length > 0 ? graphCursor(rows[0]!.id) : undefined
  return {
    rows,
    paging: {
      cursors: { ...(before ? { before } : {}), ...(after ? { after } : {}) },
      ...(after ? { next: `https://graph.facebook.invalid${path}?limit=${limit}&after=${after}` } : {}),
    },
  }
}

const graphCursor = (id: string): string => Buffer.from(`cursor:${id}`).toString('base64url')

/** A Graph `datetime` parameter: unix seconds or an ISO 8601 time, as epoch ms. */
export const graphTime = (text: string): number =>
  /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text)
