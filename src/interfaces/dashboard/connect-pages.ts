import type { Network } from '../../core/networks.js'
import { notSetUpMessage, type Refusal } from '../../modules/connections/flow.js'
import { csrfField, escapeHtml, networkLabels, type PageOptions, page, problemPage } from './html.js'
import { networkIcon } from './ui/icons.js'

/** The pages of the connect flow that are not redirects. */

/** Bluesky's connect form: a handle and an app password (never the account password), sent once. */
export function blueskyFormPage(
  csrf: string,
  options: PageOptions & {
    identifier?: string
    simulatorUrl?: string
    /** The workspace the profile is connected into (named on the form, sent with it). */
    workspace?: { id: string; name: string }
  } = {},
) {
  const workspace = options.workspace
    ? `<p>The profile is connected into the workspace <strong>${escapeHtml(options.workspace.name)}</strong>: its members can post as it.</p>
`
    : ''
  const workspaceField = options.workspace
    ? `<input type="hidden" name="workspaceId" value="${escapeHtml(options.workspace.id)}">`
    : ''
  // In sandbox mode the form signs in to the simulator, whose accounts and app passwords come from its
  // control route (or `sandbox connect`, which fills in this form).
  const simulator = options.simulatorUrl
    ? `<p class="muted">Sandbox mode: this signs in to the Bluesky simulator. Make an account U.bsky.social and an app
password with <code>curl -X POST -H 'content-type: application/json' -d '{"username":"U"}' ${escapeHtml(options.simulatorUrl)}/_sandbox/accounts</code>,
or run <code>npx herald sandbox connect --network bluesky --username U</code>, which also fills in this form.</p>
`
    : ''
  return page(
    'Connect Bluesky',
    `<div class="page-head"><h1 class="net net-bluesky">${networkIcon('bluesky')}Connect Bluesky</h1></div>
<div class="card connect-card"><p>Bluesky has no OAuth for apps like Herald: sign in with an <strong>app password</strong>, made in the Bluesky
app under Settings → Privacy and security → App passwords. Herald uses it once to open a session and does not keep it.</p>
${workspace}${simulator}<form method="post" action="/connect/bluesky">${csrfField(csrf)}${workspaceField}
<label>Handle (for example you.bsky.social) <input type="text" name="identifier" autocomplete="username" required value="${escapeHtml(options.identifier ?? '')}"></label>
<label>App password (xxxx-xxxx-xxxx-xxxx) <input type="password" name="appPassword" autocomplete="off" required></label>
<div class="actions"><button type="submit" class="primary">Connect</button> <a class="button" href="/channels">Back to channels</a></div>
</form></div>`,
    options,
  )
}

/**
 * Mastodon's connect form: the instance to sign in on (its name or the person's handle), named with the
 * workspace the profile lands in. Posting it (CSRF) reads the instance and sends the browser to its own
 * sign-in page.
 */
export function mastodonFormPage(
  csrf: string,
  options: PageOptions & {
    instance?: string
    /** Sandbox mode: every instance name is one of the simulator's. */
    simulated?: boolean
    workspace: { id: string; name: string }
  },
) {
  const name = escapeHtml(options.workspace.name)
  const simulator = options.simulated
    ? `<p class="muted">Sandbox mode: every instance is simulated, whatever its name (social.example, say), and its sign-in page takes any user name. <code>npx herald sandbox connect --network mastodon --username you@social.example</code> does the same from the command line.</p>
`
    : ''
  return page(
    'Connect Mastodon',
    `<div class="page-head"><h1 class="net net-mastodon">${networkIcon('mastodon')}Connect Mastodon</h1></div>
<div class="card connect-card"><p>Mastodon is many servers. Name yours: Herald registers itself there as an app (once per server) and sends you to your server's own sign-in page. The profile is connected into the workspace <strong>${name}</strong>: its members can post as it.</p>
${simulator}<form method="post" action="/connect/mastodon">${csrfField(csrf)}<input type="hidden" name="workspaceId" value="${escapeHtml(options.workspace.id)}">
<label>Your instance (for example mastodon.social, or your handle @you@mastodon.social) <input type="text" name="instance" inputmode="url" autocomplete="url" autocapitalize="none" spellcheck="false" required value="${escapeHtml(options.instance ?? '')}"></label>
<div class="actions"><button type="submit" class="primary">Continue to your instance</button> <a class="button" href="/channels">Back to channels</a></div>
</form></div>`,
    options,
  )
}

/**
 * `GET /connect/<network>`: what starting the connection will do, and where, as a form. Only its POST
 * (with the session's CSRF token) starts the flow, so a link from elsewhere can neither start a connect
 * nor change the workspace it lands in: connecting is the person's own act, in the workspace they see.
 */
export function confirmConnectPage(
  input: { network: Network; csrf: string; workspace: { id: string; name: string } },
  options: PageOptions = {},
) {
  const label = networkLabels[input.network]
  const name = escapeHtml(input.workspace.name)
  return page(
    `Connect ${label}`,
    `<div class="page-head"><h1>Connect ${escapeHtml(label)} to ${name}</h1></div>
<div class="card connect-card"><p class="connect-mark">${networkIcon(input.network)}</p><p>You are about to connect a ${escapeHtml(label)} profile into the workspace <strong>${name}</strong>. Every member of ${name} will be able to publish as that profile. Continue only if you meant to.</p>
<form method="post" action="/connect/${escapeHtml(input.network)}">${csrfField(input.csrf)}<input type="hidden" name="workspaceId" value="${escapeHtml(input.workspace.id)}">
<div class="actions"><button type="submit" class="primary">Continue to ${escapeHtml(label)}</button> <a class="button" href="/channels">Back to channels</a></div>
</form></div>`,
    options,
  )
}

/**
 * `GET /connect/<network>` for a network without an app: no button to continue, only what is missing and
 * who can add it (the administrator gets the link to the network apps page).
 */
export function notSetUpPage(network: Network, administrator: boolean, options: PageOptions = {}) {
  const label = networkLabels[network]
  const next = administrator
    ? `<p><a href="/settings/networks#${escapeHtml(network)}">Set up ${escapeHtml(label)} on the network apps page</a></p>
<p><a href="/channels">Back to channels</a></p>`
    : '<p>Ask the person who runs this Herald to set it up; the channels page offers it as soon as they have.</p><p><a href="/channels">Back to channels</a></p>'
  return problemPage(`${label} is not set up`, notSetUpMessage(network), { ...options, next })
}

/** Why a connection was not made: a clear title and message, no token, code or password in it. */
export function refusalPage(refusal: Refusal, options: PageOptions = {}) {
  return problemPage(refusal.title, refusal.message, options)
}

/** The choose-profiles page: every profile a grant reaches, each a checkbox; the ticked ones connect. */
export function chooseProfilesPage(
  input: { network: Network; grantId: string; labels: string[]; csrf: string; message?: string },
  options: PageOptions = {},
) {
  const label = networkLabels[input.network]
  const boxes = input.labels
    .map(
      (text, index) =>
        `<label><input type="checkbox" name="profile" value="${index}"> ${escapeHtml(text)}</label>`,
    )
    .join('\n')
  return page(
    `Choose ${label} profiles`,
    `<div class="page-head"><h1>Choose what to connect</h1></div>
<div class="card connect-card"><p>Your ${escapeHtml(label)} sign-in reaches these profiles. Tick each one Herald should publish to; each becomes its own channel.</p>
${input.message ? `<p role="alert">${escapeHtml(input.message)}</p>` : ''}
<form method="post" action="/connect/${input.network}/choose/${escapeHtml(input.grantId)}">${csrfField(input.csrf)}
<fieldset class="choices"><legend>Profiles</legend>
${boxes}
</fieldset>
<div class="actions"><button type="submit" class="primary">Connect the ticked profiles</button> <a class="button" href="/channels">Cancel and go back to channels</a></div>
</form></div>`,
    options,
  )
}
