import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import { safeEqual } from '../../platform/crypto/safe-equal.js'
import { firstValue } from '../../platform/form.js'
import { field, redirectToLogin, refuseCsrf, returnPath, type SignedIn, signedIn } from './request.js'

/** Why the guard refused a change. */
export type Refusal = 'signedOut' | 'expired'

/** How the dashboard's form guard treats one change (a route's `config.form`). */
export interface FormGuard {
  /**
   * `required` (the default): a signed-in person and their session's CSRF token. `optional`: the token when
   * there is a session, nothing without (signing out). `none`: open to a visitor without a session, the
   * route checking its own double-submit token (signing in, setting up a fresh instance).
   */
  session?: 'required' | 'optional' | 'none'
  /** Where the token travels: the form's `csrf` field (the default), or the query string for an upload. */
  token?: 'field' | 'query'
  /** How a refusal is answered when a page script, not a person, reads it; a page otherwise. */
  refuse?: (reply: FastifyReply, why: Refusal) => FastifyReply
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The dashboard's form guard for this change; unset: a signed-in person's form (see registerFormGuard). */
    form?: FormGuard
  }
  interface FastifyRequest {
    /** Who is signed in, set by the form guard on every dashboard change it lets through with a session. */
    signedIn?: SignedIn
  }
}

/** Route options of a change open to visitors without a session: the route checks its own token. */
export const openToVisitors: { config: { form: FormGuard } } = { config: { form: { session: 'none' } } }

/** Route options of signing out: a session's token when there is one, nothing to check without. */
export const signingOut: { config: { form: FormGuard } } = { config: { form: { session: 'optional' } } }

/**
 * Route options of an upload from a page script: the body is the file, so the token travels in the query
 * string (where the body guard also checks it before reading a byte), and refusals are the JSON the script
 * shows.
 */
export const scriptUpload: { config: { form: FormGuard } } = {
  config: {
    form: {
      token: 'query',
      refuse: (reply, why) =>
        why === 'signedOut'
          ? reply.code(401).send({ message: 'Sign in again, then upload.' })
          : reply.code(403).send({ message: 'This page expired; reload it and upload again.' }),
    },
  },
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The one session and CSRF check of every dashboard change (any method but GET, HEAD and OPTIONS), as a
 * `preHandler` of the dashboard's scope, so a route added there is guarded without asking: the person must
 * be signed in (else the sign-in page, coming back to the page the form was on) and the form must carry the
 * session's CSRF token (else 403, "Form expired"). Routes that must stay open say so in their options
 * ({@link openToVisitors}, {@link signingOut}). The handler finds the person in `request.signedIn`
 * ({@link signedInOf}). Whether a body is read at all was decided before, by the body guard (upload-body.ts).
 */
export function registerFormGuard(scope: FastifyInstance, app: AppContext): void {
  scope.addHook('preHandler', async (request, reply) => {
    if (SAFE_METHODS.has(request.method)) return
    const guard = request.routeOptions.config.form ?? {}
    if (guard.session === 'none') return
    const refuse = (why: Refusal) => {
      if (guard.refuse) return guard.refuse(reply, why)
      return why === 'signedOut' ? redirectToLogin(reply, returnPath(app, request)) : refuseCsrf(reply)
    }
    const who = await signedIn(app, request)
    if (!who) return guard.session === 'optional' ? undefined : refuse('signedOut')
    const sent =
      guard.token === 'query'
        ? firstValue((request.query as { csrf?: unknown }).csrf)
        : field(request, 'csrf')
    if (!sent || !safeEqual(sent, who.session.csrfToken)) return refuse('expired')
    request.signedIn = who
  })
}

/** The signed-in person of a change the form guard let through. */
export function signedInOf(request: FastifyRequest): SignedIn {
  if (!request.signedIn)
    throw new Error(`${request.method} ${request.url} ran without the dashboard's form guard`)
  return request.signedIn
}
