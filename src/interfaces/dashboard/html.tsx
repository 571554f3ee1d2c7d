import type { FastifyReply } from 'fastify'
import type { VNode } from 'preact'
import type { SecurityHeaders } from '../http/security-headers.js'
import { escapeHtml } from './ui/escape.js'
import { type PageBody, renderShell, type ShellAccount } from './ui/shell.js'

/**
 * The dashboard's HTML: self-contained (no external assets, no inline scripts or styles). Pages are JSX,
 * rendered to a string on the server by Preact's renderer, which escapes every value; Compose and the post
 * page still hand in HTML strings they escaped by hand.
 */

export { networkLabels } from '../../core/networks.js'
export { escapeHtml }

export interface PageOptions {
  /**
   * The signed-in person: their e-mail and the session's CSRF token (the sign-out button), the workspace the
   * session acts in (named on every page, so no one acts in one they did not see), invitations waiting for
   * them, whether they administer the instance, and for an owner how many posts wait for approval.
   */
  signedIn?: ShellAccount
}

/** A whole page in the dashboard's frame: its body as JSX, or as HTML a string-built page escaped itself. */
export function page(title: string, body: PageBody, options: PageOptions = {}): string {
  return renderShell(title, body, options.signedIn)
}

/** A link to go on from a page, in a paragraph of its own. */
export const NextLink = ({ href, label }: { href: string; label: string }) => (
  <p>
    <a href={href}>{label}</a>
  </p>
)

/** A page that says what went wrong and what to do next (by default, back to the channels). */
export function problemPage(title: string, message: string, options: PageOptions & { next?: VNode } = {}) {
  return page(
    title,
    <>
      <h1>{title}</h1>
      <div class="problem">
        <p>{message}</p>
      </div>
      {options.next ?? <NextLink href="/channels" label="Back to channels" />}
    </>,
    options,
  )
}

/** The session's CSRF token in a form built as a string (Compose and the post page). */
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
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        // A post's video plays from Herald's own media store.
        mediaSrc: ["'self'"],
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
