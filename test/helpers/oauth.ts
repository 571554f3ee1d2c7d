import { createHash, randomBytes } from 'node:crypto'
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { testCertificate, testCertificateKey } from '../media/tls-fixture.js'
import type { Browser } from './browser.js'
import type { Harness } from './harness.js'

/** Test doubles for an MCP client's side of OAuth: its metadata document host and its redirect URI. */

/** The host name the metadata documents are served under (the test certificate's name), mapped to 127.0.0.1. */
export const DOCUMENT_HOST = 'public.test'

/** What Herald's metadata fetcher needs to reach the loopback https server as `public.test`. */
export const documentFetcher = {
  lookup: async (hostname: string) => {
    if (hostname !== DOCUMENT_HOST) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
    return [{ address: '127.0.0.1', family: 4 as const }]
  },
  ca: testCertificate,
}

export interface DocumentServer {
  port: number
  /** `https://public.test:<port><path>` */
  url(path: string): string
  /**
   * Serves `body` at `path` (an object is sent as JSON), with extra headers, after `delayMs`; `status`
   * other than 200; `endless` streams 1 KB chunks without a length until the client hangs up.
   */
  set(
    path: string,
    body: unknown,
    options?: { headers?: Record<string, string>; delayMs?: number; status?: number; endless?: boolean },
  ): void
  /** How many times each path was fetched. */
  hits: Map<string, number>
  /** The request headers of the last fetch of each path. */
  requestHeaders: Map<string, IncomingHttpHeaders>
  /** Connections currently open to the server. */
  openConnections(): number
  close(): Promise<void>
}

/** A loopback https server that plays the public web site holding client ID metadata documents. */
export async function startDocumentServer(): Promise<DocumentServer> {
  type Route = {
    body: unknown
    headers: Record<string, string>
    delayMs: number
    status: number
    endless: boolean
  }
  const routes = new Map<string, Route>()
  const hits = new Map<string, number>()
  const requestHeaders = new Map<string, IncomingHttpHeaders>()
  let open = 0
  const server = createHttpsServer(
    { cert: testCertificate, key: testCertificateKey },
    (request, response) => {
      const path = (request.url ?? '/').split('?')[0] as string
      hits.set(path, (hits.get(path) ?? 0) + 1)
      requestHeaders.set(path, request.headers)
      const route = routes.get(path)
      if (!route) {
        response.writeHead(404).end()
        return
      }
      const send = () => {
        if (response.destroyed) return
        if (route.endless) {
          response.writeHead(route.status, { 'content-type': 'application/json', ...route.headers })
          const timer = setInterval(() => response.write(' '.repeat(1024)), 5)
          response.on('close', () => clearInterval(timer))
          return
        }
        const text = typeof route.body === 'string' ? route.body : JSON.stringify(route.body)
        response.writeHead(route.status, { 'content-type': 'application/json', ...route.headers })
        response.end(text)
      }
      if (route.delayMs) setTimeout(send, route.delayMs)
      else send()
    },
  )
  server.on('secureConnection', (socket) => {
    open++
    socket.on('close', () => {
      open--
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    url: (path) => `https://${DOCUMENT_HOST}:${port}${path}`,
    set(path, body, options = {}) {
      routes.set(path, {
        body,
        headers: options.headers ?? {},
        delayMs: options.delayMs ?? 0,
        status: options.status ?? 200,
        endless: options.endless ?? false,
      })
    },
    hits,
    requestHeaders,
    openConnections: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export interface CallbackServer {
  /** `http://127.0.0.1:<port>/callback` */
  redirectUri: string
  /** Resolves with the query of the next request to the callback. */
  next(): Promise<URLSearchParams>
  close(): Promise<void>
}

/** A desktop client's loopback redirect URI (RFC 8252): records what the authorization server sends back. */
export async function startCallbackServer(): Promise<CallbackServer> {
  let waiting: ((params: URLSearchParams) => void) | undefined
  const queue: URLSearchParams[] = []
  const server: Server = createHttpServer((request, response) => {
    const params = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams
    response.writeHead(200, { 'content-type': 'text/html' }).end('<p>Done: you can close this tab.</p>')
    if (waiting) {
      waiting(params)
      waiting = undefined
    } else queue.push(params)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const queued = queue.shift()
      if (queued) return Promise.resolve(queued)
      return new Promise((resolve) => {
        waiting = resolve
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** A client ID metadata document for `clientId`, redirecting to `redirectUri`. */
export function metadataDocument(clientId: string, redirectUri: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: clientId,
    client_name: 'Test Assistant',
    client_uri: `https://${DOCUMENT_HOST}/`,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  }
}

export interface AuthorizeParams {
  clientId: string
  redirectUri: string
  challenge?: string | undefined
  method?: string | undefined
  resource?: string | undefined
  scope?: string | undefined
  state?: string
}

export const authorizeUrl = (h: Harness, params: AuthorizeParams) => {
  const url = new URL('/oauth/authorize', h.baseUrl)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('client_id', params.clientId)
  url.searchParams.set('redirect_uri', params.redirectUri)
  url.searchParams.set('state', params.state ?? 'state-1')
  if (params.scope !== undefined) url.searchParams.set('scope', params.scope)
  if (params.resource !== undefined) url.searchParams.set('resource', params.resource)
  if (params.challenge !== undefined) url.searchParams.set('code_challenge', params.challenge)
  if (params.method !== undefined) url.searchParams.set('code_challenge_method', params.method)
  return url.toString()
}

/**
 * Runs an authorization request with the dashboard's fetch-based browser (already signed in): follows the
 * redirects to the consent page, answers it, and returns where the browser was finally sent (the client's
 * redirect URI with `code` or `error`, or a Herald error page).
 */
export async function authorize(
  browser: Browser,
  h: Harness,
  params: AuthorizeParams,
  answer: { decision: 'allow' | 'deny'; workspaceId?: string } = { decision: 'allow' },
): Promise<{ location: URL | undefined; status: number; text: string }> {
  let page = await browser.get(authorizeUrl(h, params))
  for (let hop = 0; hop < 10; hop++) {
    if (page.location && !page.location.startsWith(h.baseUrl))
      return { status: page.status, text: page.text, location: new URL(page.location) }
    if (page.location) {
      page = await browser.get(page.location)
      continue
    }
    if (page.status === 200 && page.url.includes('/oauth/consent/')) {
      page = await browser.post(page.url, {
        csrf: [browser.csrf(page)],
        decision: [answer.decision],
        workspaceId: [answer.workspaceId ?? h.workspaceId],
      })
      continue
    }
    return { location: undefined, status: page.status, text: page.text }
  }
  throw new Error('too many redirects')
}

export async function tokenRequest(h: Harness, form: Record<string, string>) {
  const response = await fetch(`${h.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  })
  return { status: response.status, body: (await response.json()) as any }
}

/** Everything through to tokens: authorize (consenting in `browser`), then exchange the code. */
export async function obtainTokens(
  browser: Browser,
  h: Harness,
  client: { clientId: string; redirectUri: string },
  options: { scope?: string; resource?: string; workspaceId?: string } = {},
) {
  const { verifier, challenge } = pkcePair()
  const resource = options.resource ?? `${h.baseUrl}/mcp`
  const done = await authorize(
    browser,
    h,
    { ...client, challenge, method: 'S256', resource, scope: options.scope ?? 'posts:read posts:write' },
    { decision: 'allow', ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}) },
  )
  const code = done.location?.searchParams.get('code')
  if (!code) throw new Error(`no code: ${done.location ?? done.text.slice(0, 300)}`)
  const tokens = await tokenRequest(h, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    resource,
  })
  if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.body)}`)
  return { ...tokens.body, code, verifier } as {
    access_token: string
    refresh_token: string
    scope: string
    code: string
    verifier: string
  }
}

/** A dynamic registration (RFC 7591) of a public client redirecting to `redirectUri`. */
export async function register(h: Harness, redirectUri: string, extra: Record<string, unknown> = {}) {
  const response = await fetch(`${h.baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Registered Assistant',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      ...extra,
    }),
  })
  return { status: response.status, body: (await response.json()) as any }
}

/** A raw MCP `tools/call` with a bearer token. */
export async function mcpCall(h: Harness, token: string, name: string, args: Record<string, unknown> = {}) {
  const response = await fetch(`${h.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  })
  const text = await response.text()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: response.status, body, wwwAuthenticate: response.headers.get('www-authenticate') }
}
