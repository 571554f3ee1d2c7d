import type { FastifyReply, FastifyRequest } from 'fastify'
import { isInstanceAdministrator } from '../../modules/accounts/administrator.js'
import {
  type DashboardSession,
  findSession,
  parseCookies,
  serializeCookie,
  sessionCookieName,
  setSessionWorkspace,
} from '../../modules/accounts/sessions.js'
import type { AppContext } from '../../modules/app-context.js'
import { countByApproval } from '../../modules/publishing/approval-store.js'
import { safeEqual } from '../../platform/crypto/safe-equal.js'
import { findMembership, findUserById, type MemberRole } from '../../platform/db/statements/accounts.js'
import { countInvitationsFor } from '../../platform/db/statements/invitations.js'
import type { FormBody } from '../../platform/form.js'
import { problemPage, sendHtml } from './html.js'

/** Who is signed in to the dashboard, and the workspace their session acts in. */
export interface SignedIn {
  session: DashboardSession
  user: { id: string; email: string; name: string }
  workspace: { id: string; name: string; role: MemberRole }
  /** Owners: posts waiting for their approval (the navigation shows it); 0 for editors. */
  pendingApprovals: number
  /** Invitations to other workspaces waiting for this person's answer. */
  invitations: number
  /** Administers the instance itself (its network apps): see {@link isInstanceAdministrator}. */
  administrator: boolean
  /** The page asked for (path and query), so the navigation marks where the person is. */
  path: string
}

/** What every page's header shows of the signed-in person. */
export const account = (who: SignedIn) => ({
  email: who.user.email,
  csrfToken: who.session.csrfToken,
  pendingApprovals: who.pendingApprovals,
  workspace: who.workspace.name,
  invitations: who.invitations,
  administrator: who.administrator,
  path: who.path,
})

/** One field of the request's form body ('' when absent). */
export function field(request: FastifyRequest, name: string): string {
  const body = request.body as FormBody | undefined
  const value = body && typeof body === 'object' ? body[name] : undefined
  return (Array.isArray(value) ? value[0] : value) ?? ''
}

/**
 * The signed-in person, or undefined. A session whose workspace the person has since left falls back to
 * another of their workspaces; with none left, the session is of no use and counts as signed out. The
 * sign-in guard (sign-in-guard.ts) asks this once per request and hands the answer to the route; a route reads
 * it again only after a change that alters what the navigation counts (an approval, an invitation declined).
 */
export async function signedIn(app: AppContext, request: FastifyRequest): Promise<SignedIn | undefined> {
  const db = app.store.db
  const token = parseCookies(request.headers.cookie)[sessionCookieName(app.config.dashboard.secureCookies)]
  const session = await findSession(db, token, app.clock.now())
  if (!session) return undefined
  const user = await findUserById(db, session.userId)
  if (!user) return undefined
  let membership = await findMembership(db, session.workspaceId, user.id)
  if (!membership) {
    const other = await db
      .selectFrom('memberships')
      .select('workspace_id')
      .where('user_id', '=', user.id)
      .orderBy('workspace_id')
      .executeTakeFirst()
    if (!other) return undefined
    await setSessionWorkspace(db, session.id, other.workspace_id)
    session.workspaceId = other.workspace_id
    membership = await findMembership(db, other.workspace_id, user.id)
    if (!membership) return undefined
  }
  const [pendingApprovals, invitations, administrator] = await Promise.all([
    membership.role === 'owner'
      ? countByApproval(db, membership.id).then((counts) => counts.pending ?? 0)
      : Promise.resolve(0),
    countInvitationsFor(db, user.email),
    isInstanceAdministrator(db, user.id),
  ])
  return {
    session,
    user: { id: user.id, email: user.email, name: user.name },
    workspace: { id: membership.id, name: membership.name, role: membership.role },
    pendingApprovals,
    invitations,
    administrator,
    path: request.url,
  }
}

/** True when the form's `csrf` field matches the expected token (constant-time). */
export function csrfMatches(request: FastifyRequest, expected: string | undefined): boolean {
  const sent = field(request, 'csrf')
  return Boolean(expected) && sent !== '' && safeEqual(sent, expected as string)
}

export function refuseCsrf(reply: FastifyReply) {
  return sendHtml(
    reply,
    403,
    problemPage(
      'Form expired',
      'This form is missing its security token or the token does not match your session, so nothing was changed. Reload the page and try again.',
    ),
  )
}

/** A path to return to after signing in: only a local path, never another site. */
export function localPath(value: unknown, fallback = '/channels'): string {
  return typeof value === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) ? value : fallback
}

/** The dashboard page a form was posted from (its Referer, when that is Herald's own), or the posts page. */
export function returnPath(app: AppContext, request: FastifyRequest): string {
  try {
    const from = request.headers.referer ? new URL(request.headers.referer) : undefined
    if (from && from.origin === app.config.publicBaseUrl) return localPath(from.pathname)
  } catch {}
  return '/posts'
}

/** Sends the browser to the sign-in page, coming back to `next` afterwards. */
export function redirectToLogin(reply: FastifyReply, next: string) {
  return reply.redirect(`/login?next=${encodeURIComponent(localPath(next))}`, 303)
}

export function sessionCookie(app: AppContext, token: string, maxAgeMs: number) {
  return serializeCookie(sessionCookieName(app.config.dashboard.secureCookies), token, {
    maxAge: maxAgeMs / 1000,
    secure: app.config.dashboard.secureCookies,
  })
}
