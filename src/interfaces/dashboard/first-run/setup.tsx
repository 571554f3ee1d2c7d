import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  createLoginThrottle,
  type LoginAttempt,
  type LoginThrottle,
} from '../../../modules/accounts/login-throttle.js'
import {
  LOGIN_CSRF_COOKIE,
  parseCookies,
  randomToken,
  serializeCookie,
} from '../../../modules/accounts/sessions.js'
import { setupCodeMatches } from '../../../modules/accounts/setup-codes.js'
import type { AppContext } from '../../../modules/app-context.js'
import type { Db } from '../../../platform/db/db.js'
import { anyPerson } from '../../../platform/db/statements/accounts.js'
import { type AppError, httpStatusFor, toAppError } from '../../../platform/errors.js'
import { firstValue } from '../../../platform/form.js'
import { signInAs } from '../auth-routes.js'
import { NextLink, page, problemPage, sendHtml } from '../html.js'
import { csrfMatches, field, refuseCsrf } from '../request.js'
import { openToVisitors } from '../sign-in-guard.js'
import { CsrfField, Messages } from '../ui/parts.js'
import { isLocalRequest } from './local-request.js'

/**
 * The setup page of a fresh instance (docs/security.md, "The setup page"): while no person exists, `/`
 * and `/login` lead here, and the form creates the first person (the instance's administrator), their
 * first workspace, and signs them in. From this machine it needs nothing more; from anywhere else it
 * needs the one-time setup code the start line printed (src/modules/accounts/setup-codes.ts). Whether anyone exists
 * yet is decided again in the transaction that writes (`accounts.setUpOwner`), so two setups at once make
 * one owner and the page can never make a second.
 */

/** The code from the start line's URL, kept for the form in an HttpOnly cookie instead of the page. */
const CODE_COOKIE = 'herald_setup_code'
const CODE_COOKIE_MAX_AGE_S = 3600
const CSRF_MAX_AGE_S = 3600

/** Answers true once the instance has a person; remembered then, since nobody is ever removed. */
export function createClaimCheck(db: Db): () => Promise<boolean> {
  let claimed = false
  return async () => {
    if (!claimed) claimed = await anyPerson(db)
    return claimed
  }
}

interface SetupForm {
  name: string
  email: string
  workspace: string
}

function setupPage(input: { csrf: string; needsCode: boolean; form?: SetupForm; problem?: string }) {
  const form = input.form ?? { name: '', email: '', workspace: '' }
  return page(
    'Set up Herald',
    <div class="card auth-card wide">
      <h1>Set up Herald</h1>
      <p>
        This Herald has no account yet. Create the first one: you become the administrator of this Herald and
        the owner of its first workspace, and go straight to the dashboard.
      </p>
      <Messages problem={input.problem} />
      <form method="post" action="/setup" class="setup">
        <CsrfField token={input.csrf} />
        <label>
          Your name{' '}
          <input type="text" name="name" autocomplete="name" maxlength={200} required value={form.name} />
        </label>
        <label>
          Email{' '}
          <input
            type="email"
            name="email"
            autocomplete="username"
            maxlength={320}
            required
            value={form.email}
          />
        </label>
        <label>
          Password{' '}
          <input
            type="password"
            name="password"
            autocomplete="new-password"
            minlength={8}
            required
            aria-describedby="password-hint"
          />
        </label>
        <p class="muted" id="password-hint">
          At least 8 characters. You sign in with this email and password from now on.
        </p>
        <label>
          Password again{' '}
          <input type="password" name="passwordAgain" autocomplete="new-password" minlength={8} required />
        </label>
        <label>
          Workspace name{' '}
          <input
            type="text"
            name="workspace"
            maxlength={200}
            required
            aria-describedby="workspace-hint"
            value={form.workspace}
          />
        </label>
        <p class="muted" id="workspace-hint">
          Your team, brand or client: its channels, posts and people live in this workspace.
        </p>
        {input.needsCode ? (
          <>
            <label>
              Setup code{' '}
              <input
                type="text"
                name="code"
                autocomplete="off"
                spellcheck={false}
                required
                aria-describedby="code-hint"
              />
            </label>
            <p class="muted" id="code-hint">
              Herald wrote it to its log when it started, in the line “Open …/setup?code=… to create the
              owner”. Opening that address fills it in for you.
            </p>
          </>
        ) : (
          <p class="muted">You are on the computer Herald runs on, so no setup code is needed.</p>
        )}
        <button type="submit" class="primary">
          Create the account
        </button>
      </form>
    </div>,
    {},
  )
}

const alreadySetUp = (reply: FastifyReply) =>
  sendHtml(
    reply,
    409,
    problemPage(
      'Already set up',
      'This Herald already has its owner, so nothing was created. Sign in instead.',
      {
        next: <NextLink href="/login" label="Sign in" />,
      },
    ),
  )

interface SetupContext {
  app: AppContext
  claimed: () => Promise<boolean>
  /** Wrong codes, counted per client address like wrong passwords (src/modules/accounts/login-throttle.ts). */
  throttle: LoginThrottle
  attemptOf(request: FastifyRequest): LoginAttempt
  /** The code the start line's URL left in this browser's cookie ('' when none). */
  heldCode(request: FastifyRequest): string
  show(
    reply: FastifyReply,
    status: number,
    input: { needsCode: boolean; form?: SetupForm; problem?: string },
  ): unknown
  throttled(reply: FastifyReply, wait: number, input: { needsCode: boolean; form?: SetupForm }): unknown
}

export function registerSetupRoutes(
  scope: FastifyInstance,
  app: AppContext,
  claimed: () => Promise<boolean>,
) {
  const secure = app.config.dashboard.secureCookies
  const context: SetupContext = {
    app,
    claimed,
    throttle: createLoginThrottle(),
    attemptOf: (request) => ({ address: request.ip, account: `setup|${request.ip}`, knownDevice: false }),
    heldCode: (request) => parseCookies(request.headers.cookie)[CODE_COOKIE] ?? '',
    show(reply, status, input) {
      // Double-submit CSRF, as on the sign-in page: the same random token in a cookie and in the form.
      const csrf = randomToken(24)
      reply.header('set-cookie', serializeCookie(LOGIN_CSRF_COOKIE, csrf, { maxAge: CSRF_MAX_AGE_S, secure }))
      return sendHtml(reply, status, setupPage({ ...input, csrf }))
    },
    throttled(reply, wait, input) {
      reply.header('retry-after', String(wait))
      return context.show(reply, 429, {
        ...input,
        problem: `Too many wrong setup codes. Try again in ${wait} seconds.`,
      })
    },
  }
  scope.get('/setup', openToVisitors, (request, reply) => openSetup(context, request, reply))
  scope.post('/setup', openToVisitors, (request, reply) => submitSetup(context, request, reply))
}

/** `GET /setup`, or `GET /setup?code=…` from the start line (the code then moves into a cookie). */
async function openSetup(context: SetupContext, request: FastifyRequest, reply: FastifyReply) {
  const { app, throttle } = context
  if (await context.claimed()) return reply.redirect('/login', 303)
  const sent = firstValue((request.query as Record<string, unknown>).code)
  if (sent) {
    const attempt = context.attemptOf(request)
    const wait = throttle.admit(attempt, app.clock.now())
    if (wait > 0) return context.throttled(reply, wait, { needsCode: true })
    if (!(await setupCodeMatches(app.store.db, sent))) {
      throttle.failed(attempt, app.clock.now())
      return context.show(reply, 403, {
        needsCode: true,
        problem: 'That setup code does not match the one Herald printed at start.',
      })
    }
    // The code leaves the address bar: the form finds it in a cookie scoped to this page.
    const secure = app.config.dashboard.secureCookies
    reply.header(
      'set-cookie',
      serializeCookie(CODE_COOKIE, sent, { maxAge: CODE_COOKIE_MAX_AGE_S, secure, path: '/setup' }),
    )
    return reply.redirect('/setup', 303)
  }
  const needsCode =
    !isLocalRequest(request) && !(await setupCodeMatches(app.store.db, context.heldCode(request)))
  return context.show(reply, 200, { needsCode })
}

/** `POST /setup`: the owner, decided in the transaction that writes (`accounts.setUpOwner`), then signed in. */
async function submitSetup(context: SetupContext, request: FastifyRequest, reply: FastifyReply) {
  const { app, throttle } = context
  if (await context.claimed()) return alreadySetUp(reply)
  if (!csrfMatches(request, parseCookies(request.headers.cookie)[LOGIN_CSRF_COOKIE])) return refuseCsrf(reply)
  const form: SetupForm = {
    name: field(request, 'name').trim(),
    email: field(request, 'email').trim().toLowerCase(),
    workspace: field(request, 'workspace').trim(),
  }
  const local = isLocalRequest(request)
  const code = field(request, 'code').trim() || context.heldCode(request)
  // Shown again after a refusal: the code field unless this machine, or a code the cookie holds, suffices.
  const again = async () => ({
    form,
    needsCode: !local && !(await setupCodeMatches(app.store.db, context.heldCode(request))),
  })
  const attempt = context.attemptOf(request)
  if (!local) {
    const wait = throttle.admit(attempt, app.clock.now())
    if (wait > 0) return context.throttled(reply, wait, await again())
  }
  const password = field(request, 'password')
  if (password !== field(request, 'passwordAgain'))
    return context.show(reply, 400, {
      ...(await again()),
      problem: 'The two passwords differ. Type the same password twice.',
    })
  try {
    const owner = await app.accounts.setUpOwner({
      ...form,
      password,
      access: local ? { local: true } : { code },
    })
    const secure = app.config.dashboard.secureCookies
    await signInAs(app, request, reply, owner, [
      serializeCookie(CODE_COOKIE, '', { maxAge: 0, secure, path: '/setup' }),
    ])
    request.log.info(
      { event: 'instance_set_up', userId: owner.userId },
      'the owner was created on the setup page',
    )
    return reply.redirect('/posts', 303)
  } catch (error) {
    const appError = toAppError(error)
    if (appError.code === 'internal') throw error
    if (appError.code === 'conflict' && (await context.claimed())) return alreadySetUp(reply)
    if (appError.code === 'forbidden') throttle.failed(attempt, app.clock.now())
    return context.show(reply, httpStatusFor(appError.code), {
      ...(await again()),
      problem: sentence(appError),
    })
  }
}

/** The refusal as a sentence for the page (the accounts' messages lack the final stop). */
const sentence = (error: AppError) => (/[.!?]$/.test(error.message) ? error.message : `${error.message}.`)
