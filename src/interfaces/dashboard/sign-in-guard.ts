import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import { safeEqual } from '../../platform/crypto/safe-equal.js'
import { firstValue } from '../../platform/form.js'
import { field, redirectToLogin, refuseCsrf, returnPath, type SignedIn, signedIn } from './request.js'

/** Why the guard refused a request. */
export type Refusal = 'signedOut' | 'expired'

/**
 * Who may use a dashboard route (a route's `config.guard.access`):
 * - `signed-in` (the default, also for a route that says nothing): a signed-in person, and for a change their
 *   session's CSRF token;
 * - `either`: a visitor or a signed-in person, whom the route finds in `request.signedIn` (signing out, the
 *   sign-in page, the network's answer to a connect flow); a change made with a session still needs its token;
 * - `visitor`: open, no session looked at, the route checking its own double-submit token where it takes a
 *   change (signing in, setting up a fresh instance) or serving what any visitor may read (the stylesheet).
 */
export type Access = 'signed-in' | 'either' | 'visitor'

/** How the dashboard's guard treats one route. */
export interface RouteGuard {
  access?: Access
  /** Where a change's CSRF token travels: the form's `csrf` field (the default), or the query string for an upload. */
  token?: 'field' | 'query'
  /** How a refusal is answered when a page script, not a person, reads it; a page otherwise. */
  refuse?: (reply: FastifyReply, why: Refusal) => FastifyReply
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The dashboard's guard for this route; unset: for a signed-in person (see registerSignInGuard). */
    guard?: RouteGuard
  }
  interface FastifyRequest {
    /** Who is signed in, set by the guard on every dashboard route it let through with a session. */
    signedIn?: SignedIn
  }
}

/** Route options of a route open to visitors without a session: the route checks its own token. */
export const openToVisitors: { config: { guard: RouteGuard } } = { config: { guard: { access: 'visitor' } } }

/** Route options of a route for a visitor or a signed-in person, found in `request.signedIn` when there is one. */
export const visitorOrSignedIn: { config: { guard: RouteGuard } } = {
  config: { guard: { access: 'either' } },
}

/**
 * The guard of an upload from a page script: the body is the file, so the token travels in the query
 * string (where the body guard also checks it before reading a byte), and refusals are the JSON the script
 * shows.
 */
export const scriptUpload: RouteGuard = {
  token: 'query',
  refuse: (reply, why) =>
    why === 'signedOut'
      ? reply.code(401).send({ message: 'Sign in again, then upload.' })
      : reply.code(403).send({ message: 'This page expired; reload it and upload again.' }),
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The one sign-in check of the dashboard, as a `preHandler` of its scope, so a route added there is for
 * signed-in people without asking. A page asked for without a session goes to the sign-in page, coming
 * back to the address asked for; a change (any method but GET, HEAD and OPTIONS) goes there coming back to
 * the page the form was on, and must carry the session's CSRF token (else 403, "Form expired"). Routes open
 * to visitors say so in their options ({@link openToVisitors}, {@link visitorOrSignedIn}). The handler
 * receives the person ({@link signedInRoutes}). Whether a body is read at all was decided before, by the
 * body guard (upload-body.ts).
 */
export function registerSignInGuard(scope: FastifyInstance, app: AppContext): void {
  scope.addHook('preHandler', async (request, reply) => {
    const guard = request.routeOptions.config.guard ?? {}
    const access = guard.access ?? 'signed-in'
    if (access === 'visitor') return
    const change = !SAFE_METHODS.has(request.method)
    const refuse = (why: Refusal) => {
      if (guard.refuse) return guard.refuse(reply, why)
      if (why === 'expired') return refuseCsrf(reply)
      return redirectToLogin(reply, change ? returnPath(app, request) : request.url)
    }
    const who = await signedIn(app, request)
    if (!who) return access === 'either' ? undefined : refuse('signedOut')
    if (change) {
      const sent =
        guard.token === 'query'
          ? firstValue((request.query as { csrf?: unknown }).csrf)
          : field(request, 'csrf')
      if (!sent || !safeEqual(sent, who.session.csrfToken)) return refuse('expired')
    }
    request.signedIn = who
  })
}

/** A handler of a signed-in person's route: the guard let the request through, and here is who sent it. */
export type SignedInHandler<RG extends RouteGenericInterface> = (
  request: FastifyRequest<RG>,
  reply: FastifyReply,
  who: SignedIn,
) => unknown

type MethodRest<RG extends RouteGenericInterface> =
  | [handler: SignedInHandler<RG>]
  | [guard: Omit<RouteGuard, 'access'>, handler: SignedInHandler<RG>]

type Method = <RG extends RouteGenericInterface = RouteGenericInterface>(
  path: string,
  ...rest: MethodRest<RG>
) => void

/** The routes of signed-in people, each handler given the person the guard found. */
export interface SignedInRoutes {
  get: Method
  post: Method
}

/** Registers routes for signed-in people on the dashboard's scope (guarded by {@link registerSignInGuard}). */
export function signedInRoutes(scope: FastifyInstance): SignedInRoutes {
  const add =
    (method: 'GET' | 'POST'): Method =>
    <RG extends RouteGenericInterface>(path: string, ...rest: MethodRest<RG>) => {
      const [guard, handler] = rest.length === 1 ? [{}, rest[0]] : rest
      scope.route<RG>({
        method,
        url: path,
        config: { guard: { ...guard, access: 'signed-in' } },
        // What the handler returns goes back to Fastify as it is (a reply, or nothing once one was sent).
        handler: (request, reply) => handler(request, reply, signedInOf(request)) as never,
      })
    }
  return { get: add('GET'), post: add('POST') }
}

/** The person the guard let through; only a route registered without the guard has none. */
function signedInOf(request: FastifyRequest): SignedIn {
  if (!request.signedIn)
    throw new Error(`${request.method} ${request.url} ran without the dashboard's sign-in guard`)
  return request.signedIn
}
