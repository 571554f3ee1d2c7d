import { csrfField, escapeHtml, type PageOptions, page, problemPage } from '../dashboard/html.js'
import type { Refusal } from './flow.js'

/** The pages of the connect flow that are not redirects. */

/** Bluesky's connect form: a handle and an app password (never the account password), sent once. */
export function blueskyFormPage(csrf: string, options: PageOptions & { identifier?: string } = {}) {
  return page(
    'Connect Bluesky',
    `<h1>Connect Bluesky</h1>
<p>Bluesky has no OAuth for apps like Herald: sign in with an <strong>app password</strong>, made in the Bluesky
app under Settings → Privacy and security → App passwords. Herald uses it once to open a session and does not keep it.</p>
<form method="post" action="/connect/bluesky">${csrfField(csrf)}
<label>Handle (for example you.bsky.social) <input type="text" name="identifier" autocomplete="username" required value="${escapeHtml(options.identifier ?? '')}"></label>
<label>App password (xxxx-xxxx-xxxx-xxxx) <input type="password" name="appPassword" autocomplete="off" required></label>
<button type="submit">Connect</button>
</form>
<p><a href="/channels">Back to channels</a></p>`,
    options,
  )
}

/** Why a connection was not made: a clear title and message, no token, code or password in it. */
export function refusalPage(refusal: Refusal, options: PageOptions = {}) {
  return problemPage(refusal.title, refusal.message, options)
}
