import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Network } from '../../core/networks.js'
import { avatarPng } from './avatar-png.js'
import type { KeptFile } from './kept-media.js'
import {
  renderMissingPage,
  renderPostPage,
  renderProfilePage,
  type WebPage,
  type WebProfilePage,
} from './post-page.js'
import { PAGE_STYLESHEET } from './stylesheet.js'

/**
 * A simulator's web pages: the network's own post addresses under the simulator's web base (X's
 * `/:username/status/:id` under `${prefix}/web`), where the URL a sandbox post's adapter built or the
 * simulator's permalink leads. Mounted in a scope of their own beside the simulator's API, so a person
 * opening a page is never put to the fault injector nor answered with the API's error bodies; mounted
 * only with the simulators themselves (sandbox mode and tests), so they do not exist otherwise.
 *
 * Every page is served under a CSP that allows nothing but the simulator's own stylesheet and media: no
 * script at all, no inline style, no other host.
 */

const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; media-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

export interface WebPagesOptions {
  /** The web base's path on the server, e.g. `/sandbox/twitter/web`. */
  path: string
  network: Network
  /** A file of the simulator's kept media by its key (`_media/:key`). */
  media(key: string): KeptFile | undefined
  /** Registers the network's page routes, each answering through `pages.send`. */
  routes(app: FastifyInstance, pages: WebPages): void
}

export interface WebPages {
  /** Sends the page of a post, or the 404 page when there is none. */
  send(request: FastifyRequest, reply: FastifyReply, page: WebPage | undefined): FastifyReply
  /** Sends an account's page, or the 404 page when there is no such account. */
  sendProfile(request: FastifyRequest, reply: FastifyReply, page: WebProfilePage | undefined): FastifyReply
}

export function registerWebPages(server: FastifyInstance, options: WebPagesOptions): void {
  const base = options.path.replace(/\/+$/, '')
  const assetsPath = (request: FastifyRequest) => assetsFrom(request.url, base)
  const sendHtml = (reply: FastifyReply, status: number, html: string) =>
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .send(html)
  const missing = (request: FastifyRequest, reply: FastifyReply) =>
    sendHtml(reply, 404, renderMissingPage(options.network, assetsPath(request)))
  const pages: WebPages = {
    send: (request, reply, page) =>
      page ? sendHtml(reply, 200, renderPostPage(page, assetsPath(request))) : missing(request, reply),
    sendProfile: (request, reply, page) =>
      page ? sendHtml(reply, 200, renderProfilePage(page, assetsPath(request))) : missing(request, reply),
  }
  server.register(
    async (app) => {
      app.get('/_assets/page.css', async (_request, reply) =>
        reply
          .header('content-type', 'text/css; charset=utf-8')
          .header('cache-control', 'no-cache')
          .header('x-content-type-options', 'nosniff')
          .send(PAGE_STYLESHEET),
      )
      app.get<{ Params: { seed: string } }>('/_avatars/:seed', async (request, reply) => {
        const seed = request.params.seed.replace(/\.png$/, '')
        return reply
          .header('content-type', 'image/png')
          .header('cache-control', 'no-cache')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .send(avatarPng(seed))
      })
      app.get<{ Params: { key: string } }>('/_media/:key', async (request, reply) => {
        const file = options.media(request.params.key)
        if (!file) return pages.send(request, reply, undefined)
        return reply
          .header('content-type', file.contentType)
          .header('content-length', String(file.bytes.length))
          .header('cache-control', 'no-cache')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .send(file.bytes)
      })
      options.routes(app, pages)
      app.setNotFoundHandler((request, reply) => pages.send(request, reply, undefined))
    },
    { prefix: base },
  )
}

/**
 * The relative way from a page's address to its web base: `../../` from `/base/user/status/1`, `` from
 * `/base/watch`. Relative, so the page's stylesheet and media load from the origin and path the browser
 * used, whatever PUBLIC_BASE_URL says.
 */
export function assetsFrom(url: string, base: string): string {
  const path = url.split('?')[0] ?? ''
  const under = path.startsWith(base) ? path.slice(base.length) : path
  // The base itself, without its slash: its last segment is the page's own name.
  if (under === '') return `${base.split('/').at(-1)}/`
  const depth = Math.max(0, (under.startsWith('/') ? under : `/${under}`).split('/').length - 2)
  return '../'.repeat(depth)
}
