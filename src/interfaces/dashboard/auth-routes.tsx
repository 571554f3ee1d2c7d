import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createLoginThrottle, type LoginAttempt } from '../../modules/accounts/login-throttle.js'
import { hashPassword, verifyPassword } from '../../modules/accounts/passwords.js'
import {
  createSession,
  deleteSession,
  findSession,
  LOGIN_CSRF_COOKIE,
  parseCookies,
  purgeExpiredSessions,
  randomToken,
  serializeCookie,
  sessionCookieName,
} from '../../modules/accounts/sessions.js'
import type { AppContext } from '../../modules/app-context.js'
import { safeEqual } from '../../platform/crypto/safe-equal.js'
import { findUserByEmail } from '../../platform/db/statements/accounts.js'
import { answerInvitation, invitationsFor } from '../../platform/db/statements/invitations.js'
import { NextLink, page, problemPage, sendHtml } from './html.js'
import { csrfMatches, field, localPath, refuseCsrf, sessionCookie } from './request.js'
import { openToVisitors, visitorOrSignedIn } from './sign-in-guard.js'

const LOGIN_CSRF_MAX_AGE_S = 3600
/** The cookie a browser gets on signing in, so its own attempts are counted apart (src/modules/accounts/login-throttle.ts). */
export const DEVICE_COOKIE = 'herald_device'
const DEVICE_MAX_AGE_S = 365 * 86_400

const INVITATION_TOKEN_TTL_MS = 15 * 60_000

/** Proof, handed out after the password matched, that this person may answer this invitation. */
function invitationToken(app: AppContext, invitationId: string, userId: string, issued: string): string {
  const id = `inv-${createHash('sha256').update(`${invitationId}|${userId}|${issued}`).digest('base64url').slice(0, 40)}`
  return app.signer.sign(id)
}

/** The signed device token for one account (an HMAC under a key derived from the vault key). */
function deviceToken(app: AppContext, userId: string): string {
  const id = `device-${createHash('sha256').update(userId).digest('base64url').slice(0, 40)}`
  return app.signer.sign(id)
}

function loginPage(input: { csrf: string; next: string; email?: string; problem?: string }) {
  return page(
    'Sign in',
    <div class="card auth-card">
      <h1>Sign in</h1>
      {input.problem ? (
        <div class="problem">
          <p>{input.problem}</p>
        </div>
      ) : null}
      <form method="post" action="/login">
        <input type="hidden" name="csrf" value={input.csrf} />
        <input type="hidden" name="next" value={input.next} />
        <label>
          Email <input type="email" name="email" autocomplete="username" required value={input.email ?? ''} />
        </label>
        <label>
          Password <input type="password" name="password" autocomplete="current-password" required />
        </label>
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </div>,
  )
}

/**
 * Starts a signed-in session for a person whose password (or setup) just proved who they are, in the
 * given workspace: the session cookie, the device cookie, and the pre-sign-in CSRF cookie cleared.
 * Signing in always starts a new session and ends the one the browser came with, if any: a session token
 * planted in the browser before sign-in (session fixation) never becomes a signed-in one.
 */
export async function signInAs(
  app: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  who: { userId: string; workspaceId: string },
  extraCookies: string[] = [],
) {
  const db = app.store.db
  const secure = app.config.dashboard.secureCookies
  const now = app.clock.now()
  const previous = await findSession(db, parseCookies(request.headers.cookie)[sessionCookieName(secure)], now)
  if (previous) await deleteSession(db, previous.id)
  await purgeExpiredSessions(db, now)
  const ttl = app.config.dashboard.sessionTtlMs
  const { token } = await createSession(db, { ...who, ttlMs: ttl }, now)
  reply.header('set-cookie', [
    sessionCookie(app, token, ttl),
    serializeCookie(LOGIN_CSRF_COOKIE, '', { maxAge: 0, secure }),
    serializeCookie(DEVICE_COOKIE, deviceToken(app, who.userId), { maxAge: DEVICE_MAX_AGE_S, secure }),
    ...extraCookies,
  ])
}

/**
 * `GET|POST /login` (e-mail and password, argon2id) and `POST /logout`. While the instance has no person,
 * `/` and `/login` lead to the setup page instead (src/interfaces/dashboard/first-run/setup.ts).
 */
export function registerAuthRoutes(scope: FastifyInstance, app: AppContext, claimed: () => Promise<boolean>) {
  const db = app.store.db
  const secure = app.config.dashboard.secureCookies
  const login: LoginChecks = { throttle: createLoginThrottle(), checkPassword: createPasswordCheck() }

  // `/` is the dashboard: signed in, the posts page; otherwise sign-in, which comes back there; and on a
  // fresh instance, the setup page.
  scope.get('/', visitorOrSignedIn, async (request, reply) => {
    if (!(await claimed())) return reply.redirect('/setup', 303)
    return reply.redirect(request.signedIn ? '/posts' : '/login?next=%2Fposts', 303)
  })

  scope.get('/login', visitorOrSignedIn, async (request, reply) => {
    if (!(await claimed())) return reply.redirect('/setup', 303)
    const next = localPath((request.query as Record<string, unknown>).next)
    if (request.signedIn) return reply.redirect(next, 303)
    return showLogin(app, reply, 200, { next })
  })

  scope.post('/login', openToVisitors, (request, reply) => signInWithPassword(app, login, request, reply))

  // Accepting an invitation from the sign-in page (a person with no workspace yet): the token was handed
  // out only after the password matched, is bound to the invitation and the person, and lasts 15 minutes.
  scope.post('/login/invitation', openToVisitors, (request, reply) =>
    acceptInvitationAtSignIn(app, request, reply),
  )

  scope.post('/logout', visitorOrSignedIn, async (request, reply) => {
    if (request.signedIn) await deleteSession(db, request.signedIn.session.id)
    reply.header('set-cookie', serializeCookie(sessionCookieName(secure), '', { maxAge: 0, secure }))
    return reply.redirect('/login', 303)
  })
}

function showLogin(
  app: AppContext,
  reply: FastifyReply,
  status: number,
  input: { next: string; email?: string; problem?: string },
) {
  const secure = app.config.dashboard.secureCookies
  // Double-submit CSRF: the same random token in a cookie and in the form, compared on POST.
  const csrf = randomToken(24)
  reply.header(
    'set-cookie',
    serializeCookie(LOGIN_CSRF_COOKIE, csrf, { maxAge: LOGIN_CSRF_MAX_AGE_S, secure }),
  )
  return sendHtml(reply, status, loginPage({ ...input, csrf }))
}

interface LoginChecks {
  throttle: ReturnType<typeof createLoginThrottle>
  checkPassword(hash: string | undefined, password: string): Promise<boolean>
}

/** Unknown e-mails are checked against a real hash too, so timing does not tell which e-mails exist. */
function createPasswordCheck() {
  let dummyHash: Promise<string> | undefined
  return async (hash: string | undefined, password: string) => {
    dummyHash ??= hashPassword(randomToken())
    return verifyPassword(hash ?? (await dummyHash), password)
  }
}

/** The sign-in form's POST: throttled, checked, then into the person's first workspace (an owner's first). */
async function signInWithPassword(
  app: AppContext,
  { throttle, checkPassword }: LoginChecks,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const db = app.store.db
  if (!csrfMatches(request, parseCookies(request.headers.cookie)[LOGIN_CSRF_COOKIE])) return refuseCsrf(reply)
  const next = localPath(field(request, 'next'))
  const email = field(request, 'email').trim().toLowerCase()
  const password = field(request, 'password')
  const user = email ? await findUserByEmail(db, email) : undefined
  const device = parseCookies(request.headers.cookie)[DEVICE_COOKIE]
  const attempt: LoginAttempt = {
    address: request.ip,
    account: email,
    knownDevice: Boolean(user && device && safeEqual(device, deviceToken(app, user.id))),
  }
  const wait = throttle.admit(attempt, app.clock.now())
  if (wait > 0) {
    reply.header('retry-after', String(wait))
    return showLogin(app, reply, 429, {
      next,
      email,
      problem: `Too many attempts. Try again in ${wait} seconds.`,
    })
  }
  const matches = await checkPassword(user?.password_hash, password)
  const ok = matches && password !== ''
  if (!user || !ok) {
    throttle.failed(attempt, app.clock.now())
    request.log.info({ event: 'login_failed' }, 'dashboard sign-in refused')
    return showLogin(app, reply, 401, {
      next,
      email,
      problem: 'That e-mail and password do not match an account.',
    })
  }
  const memberships = await db
    .selectFrom('memberships')
    .select(['workspace_id', 'role'])
    .where('user_id', '=', user.id)
    .orderBy('workspace_id')
    .execute()
  const first = memberships.find((m) => m.role === 'owner') ?? memberships[0]
  if (!first) return answerWithoutWorkspace(app, request, reply, user, () => throttle.succeeded(attempt))
  throttle.succeeded(attempt)
  await signInAs(app, request, reply, { userId: user.id, workspaceId: first.workspace_id })
  return reply.redirect(next, 303)
}

/**
 * Someone with no workspace yet may have been invited: they answer here, proven by the password (which
 * counts as a successful sign-in). Without an invitation there is nothing to sign in to.
 */
async function answerWithoutWorkspace(
  app: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: { id: string; email: string },
  succeeded: () => void,
) {
  const invitations = await invitationsFor(app.store.db, user.email)
  if (invitations.length > 0) {
    succeeded()
    const csrf = parseCookies(request.headers.cookie)[LOGIN_CSRF_COOKIE] ?? ''
    const issued = app.clock.now().toString(36)
    return sendHtml(
      reply,
      200,
      page(
        'Invitations',
        <div class="auth-card wide">
          <div class="page-head">
            <h1>Invitations</h1>
          </div>
          <p>You are not a member of any workspace yet. You join one only if you accept its invitation.</p>
          <ul class="cards invitations">
            {invitations.map((i) => (
              <li class="card invitation">
                <p>
                  <strong>{i.workspaceName}</strong> invites you as {i.role}
                  {i.invitedByEmail ? ` (from ${i.invitedByEmail})` : ''}.
                </p>
                <form method="post" action="/login/invitation" class="inline">
                  <input type="hidden" name="csrf" value={csrf} />
                  <input type="hidden" name="token" value={invitationToken(app, i.id, user.id, issued)} />
                  <input type="hidden" name="invitation" value={i.id} />
                  <input type="hidden" name="issued" value={issued} />
                  <button type="submit" class="primary">
                    Accept and join {i.workspaceName}
                  </button>
                </form>
              </li>
            ))}
          </ul>
          <NextLink href="/login" label="Back" />
        </div>,
      ),
    )
  }
  return sendHtml(
    reply,
    403,
    problemPage(
      'No workspace',
      'Your account is not a member of any workspace yet. Ask an owner to invite you, or an admin to add you with the herald CLI.',
      {
        next: <NextLink href="/login" label="Back" />,
      },
    ),
  )
}

async function acceptInvitationAtSignIn(app: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const db = app.store.db
  const secure = app.config.dashboard.secureCookies
  if (!csrfMatches(request, parseCookies(request.headers.cookie)[LOGIN_CSRF_COOKIE])) return refuseCsrf(reply)
  const invitation = field(request, 'invitation')
  const issued = field(request, 'issued')
  const token = field(request, 'token')
  const issuedAt = Number.parseInt(issued, 36)
  const now = app.clock.now()
  const row = /^[0-9a-f]{32}$/.test(invitation)
    ? await db
        .selectFrom('invitations')
        .innerJoin('users', 'users.email', 'invitations.email')
        .select(['users.id as userId', 'users.email as email'])
        .where('invitations.id', '=', invitation)
        .executeTakeFirst()
    : undefined
  const valid =
    row &&
    Number.isFinite(issuedAt) &&
    now - issuedAt < INVITATION_TOKEN_TTL_MS &&
    safeEqual(token, invitationToken(app, invitation, row.userId, issued))
  if (!row || !valid)
    return sendHtml(
      reply,
      400,
      problemPage('Invitation expired', 'Sign in again to see your invitations.', {
        next: <NextLink href="/login" label="Sign in" />,
      }),
    )
  const workspaceId = await answerInvitation(
    db,
    { id: invitation, user: { id: row.userId, email: row.email }, accept: true },
    now,
  )
  if (!workspaceId) return reply.redirect('/login', 303)
  const ttl = app.config.dashboard.sessionTtlMs
  const { token: session } = await createSession(db, { userId: row.userId, workspaceId, ttlMs: ttl }, now)
  reply.header('set-cookie', [
    sessionCookie(app, session, ttl),
    serializeCookie(LOGIN_CSRF_COOKIE, '', { maxAge: 0, secure }),
    serializeCookie(DEVICE_COOKIE, deviceToken(app, row.userId), { maxAge: DEVICE_MAX_AGE_S, secure }),
  ])
  return reply.redirect('/workspace', 303)
}
