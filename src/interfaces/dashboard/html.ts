import type { FastifyReply } from 'fastify'
import type { SecurityHeaders } from '../http/security-headers.js'

/** Plain, self-contained HTML for the dashboard: no external assets, no inline scripts, every value escaped. */

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

export { networkLabels } from '../../core/networks.js'

const STYLE = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1d2430;line-height:1.45}
header{display:flex;flex-wrap:wrap;gap:.2rem 1.2rem;justify-content:space-between;align-items:center;border-bottom:1px solid #dde3ea;margin-bottom:1.5rem}
header nav{flex-basis:100%;order:3;margin:0 0 .6rem}header nav a{margin-right:.2rem}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f5f7fa;padding:.6rem}
.url,td code,.problem p{overflow-wrap:anywhere}h1.url{font-size:1.25rem}
input[readonly]{width:100%;max-width:30rem;padding:.4rem;font-family:monospace}.scroll{overflow-x:auto}
header form{margin:0}a{color:#1a56c4}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #eef1f5}
label{display:block;margin:.6rem 0}input[type=text],input[type=email],input[type=password]{width:100%;max-width:22rem;padding:.4rem}
button{padding:.35rem .9rem;cursor:pointer}.problem{border-left:4px solid #b3261e;padding:.2rem 1rem;background:#fdf2f2}
.notice{border-left:4px solid #1e7b34;padding:.2rem 1rem;background:#f0f8f2}.muted{color:#5b6675}.inline{display:inline}
.count{display:inline-block;min-width:1.2em;padding:0 .35em;border-radius:1em;background:#b3261e;color:#fff;font-size:.85em;text-align:center}`

/** The navigation; an owner with posts waiting for approval sees how many, linked to them. */
const nav = (pending: number, administrator: boolean) =>
  `<nav aria-label="Dashboard"><a href="/compose">Compose</a> · <a href="/posts">Posts</a>${pending > 0 ? ` · <a href="/posts?approval=pending" class="pending">Pending approval <span class="count">${pending}</span></a>` : ''} · <a href="/calendar">Calendar</a> · <a href="/queue">Queue</a> · <a href="/import">Import</a> · <a href="/analytics">Analytics</a> · <a href="/channels">Channels</a> · <a href="/workspace">Workspace</a> · <a href="/integration">AI Integration</a> · <a href="/workspaces">Switch workspace</a>${administrator ? ' · <a href="/settings/networks">Network apps</a>' : ''}</nav>`

export interface PageOptions {
  /**
   * The signed-in person's e-mail and the session's CSRF token: shows the sign-out button; and, for an
   * owner, how many posts wait for approval (shown in the navigation).
   */
  signedIn?: {
    email: string
    csrfToken: string
    pendingApprovals?: number
    /** The workspace the session acts in, named on every page, so no one acts in one they did not see. */
    workspace?: string
    /** Invitations waiting for this person: a notice linking to /invitations. */
    invitations?: number
    /** The instance's administrator: the navigation links to the network apps page. */
    administrator?: boolean
  }
  /** CSS of this page only, after the shared rules. */
  style?: string
}

/** A whole page. `body` must already be escaped HTML. */
export function page(title: string, body: string, options: PageOptions = {}): string {
  const who = options.signedIn
  const workspace = who?.workspace
    ? `<p class="workspace">Workspace: <strong>${escapeHtml(who.workspace)}</strong> <a href="/workspaces">Switch</a></p>`
    : ''
  const invitations =
    who?.invitations && who.invitations > 0
      ? `<div class="notice" role="status"><p>You have ${who.invitations} invitation${who.invitations === 1 ? '' : 's'} to join a workspace. <a href="/invitations">Review ${who.invitations === 1 ? 'it' : 'them'}</a>: you join only if you accept.</p></div>`
      : ''
  const account = options.signedIn
    ? `${workspace}<form method="post" action="/logout"><span class="muted">${escapeHtml(options.signedIn.email)}</span>
<input type="hidden" name="csrf" value="${escapeHtml(options.signedIn.csrfToken)}"> <button type="submit">Sign out</button></form>`
    : ''
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Herald</title><style>${STYLE}${options.style ?? ''}</style></head>
<body><header><p><strong>Herald</strong></p>${options.signedIn ? nav(options.signedIn.pendingApprovals ?? 0, options.signedIn.administrator === true) : ''}${account}</header>
${invitations}${body}
<footer><p class="muted">For developers: <a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI document</a> · MCP endpoint <code>/mcp</code></p></footer>
</body></html>`
}

/** A page that says what went wrong and what to do next. */
export function problemPage(title: string, message: string, options: PageOptions & { next?: string } = {}) {
  const next = options.next ?? '<p><a href="/channels">Back to channels</a></p>'
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><div class="problem"><p>${escapeHtml(message)}</p></div>${next}`,
    options,
  )
}

export const csrfField = (token: string) => `<input type="hidden" name="csrf" value="${escapeHtml(token)}">`

/**
 * The dashboard's headers (every route of its scope, see registerDashboard): on top of the server's baseline
 * (never framed, no Referer leaving a page: the connect callback's URL carries an authorization code), a CSP
 * that lets scripts, styles, images and fetches come from Herald alone and forms post to Herald and
 * `formActions`.
 */
export function dashboardHeaders(formActions: string[] = []): SecurityHeaders {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        connectSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'"],
        formAction: ["'self'", ...formActions],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
  }
}

/** Sends a dashboard page, never cached, under the dashboard's headers. */
export function sendHtml(
  reply: FastifyReply,
  status: number,
  html: string,
  /** Where this page's forms may lead besides Herald (the OAuth consent form ends at the app's redirect URI). */
  options: { formActions?: string[] } = {},
) {
  if (options.formActions?.length) reply.helmet(dashboardHeaders(options.formActions))
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(html)
}
