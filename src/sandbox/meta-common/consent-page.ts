import type { FastifyReply, FastifyRequest } from 'fastify'
import { paramsOf } from './graph-params.js'

/**
 * A Meta consent page (Facebook Login, Instagram Login, Threads): `GET` shows a form asking for a user
 * name with one checkbox per requested scope; the form posts `username`, `granted_scope` (repeated) and
 * `decision=authorize` back to the same path, which redirects with `code` (or `error=access_denied`).
 * What differs between the networks is a {@link ConsentPage}.
 */
export interface ConsentPage {
  /** The page's title, before "(sandbox)". */
  title: string
  /** A scope the request must ask for (Threads' `threads_basic`). */
  requiredScope?: string
  /** Appended to the redirect with the code (Instagram and Threads append `#_`). */
  fragment: string
  /** Makes the account named `username` and returns a code for it. */
  issueCode(username: string, granted: string[], params: Record<string, string>): string
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function allValues(request: FastifyRequest, name: string): string[] {
  const out = new URL(request.url, 'http://sandbox.invalid').searchParams.getAll(name)
  if (request.body instanceof URLSearchParams) out.push(...request.body.getAll(name))
  return out
}

export const consentHandler = (page: ConsentPage) => async (request: FastifyRequest, reply: FastifyReply) => {
  const params = paramsOf(request)
  let redirect: URL
  try {
    redirect = new URL(params.redirect_uri ?? '')
  } catch {
    return reply.code(400).type('text/html').send('<p>Invalid redirect_uri</p>')
  }
  if (!params.client_id) return reply.code(400).type('text/html').send('<p>Missing client_id</p>')
  if (params.response_type !== 'code')
    return reply.code(400).type('text/html').send('<p>response_type must be code</p>')
  const scopes = (params.scope ?? '').split(/[\s,]+/).filter(Boolean)
  if (page.requiredScope && !scopes.includes(page.requiredScope))
    return reply.code(400).type('text/html').send(`<p>${page.requiredScope} is required</p>`)
  if (request.method === 'GET') {
    const hidden = Object.entries(params)
      .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
      .join('')
    const boxes = scopes
      .map(
        (s) =>
          `<label><input type="checkbox" name="granted_scope" value="${escapeHtml(s)}" checked> ${escapeHtml(s)}</label><br>`,
      )
      .join('')
    return reply
      .type('text/html')
      .send(
        `<!doctype html><title>${page.title} (sandbox)</title><form method="post">${hidden}<label>User name <input name="username" required></label><br>${boxes}<button name="decision" value="authorize">Continue</button><button name="decision" value="cancel">Cancel</button></form>`,
      )
  }
  const back = new URL(redirect)
  if (params.state) back.searchParams.set('state', params.state)
  if (params.decision !== 'authorize') {
    back.searchParams.set('error', 'access_denied')
    back.searchParams.set('error_reason', 'user_denied')
    return reply.redirect(back.toString(), 302)
  }
  const username = (params.username ?? '').trim()
  if (!/^[A-Za-z0-9._ -]{1,60}$/.test(username))
    return reply.code(400).type('text/html').send('<p>Give a user name (letters, digits, . _ -)</p>')
  const granted = allValues(request, 'granted_scope').filter((s) => scopes.includes(s))
  back.searchParams.set('code', page.issueCode(username, granted, params))
  return reply.redirect(`${back.toString()}${page.fragment}`, 302)
}
