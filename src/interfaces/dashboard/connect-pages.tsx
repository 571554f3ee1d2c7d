import type { Network } from '../../core/networks.js'
import { notSetUpMessage, type Refusal } from '../../modules/connections/flow.js'
import { NextLink, networkLabels, type PageOptions, page, problemPage } from './html.js'
import { CsrfField, NetworkIcon } from './ui/parts.js'

/** The pages of the connect flow that are not redirects. */

const BackToChannels = ({ label = 'Back to channels' }: { label?: string }) => (
  <a class="button" href="/channels">
    {label}
  </a>
)

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
  const { workspace, simulatorUrl } = options
  return page(
    'Connect Bluesky',
    <>
      <div class="page-head">
        <h1 class="net net-bluesky">
          <NetworkIcon network="bluesky" />
          Connect Bluesky
        </h1>
      </div>
      <div class="card connect-card">
        <p>
          Bluesky has no OAuth for apps like Herald: sign in with an <strong>app password</strong>, made in
          the Bluesky app under Settings → Privacy and security → App passwords. Herald uses it once to open a
          session and does not keep it.
        </p>
        {workspace ? (
          <p>
            The profile is connected into the workspace <strong>{workspace.name}</strong>: its members can
            post as it.
          </p>
        ) : null}
        {/* In sandbox mode the form signs in to the simulator, whose accounts and app passwords come from its
            control route (or `sandbox connect`, which fills in this form). */}
        {simulatorUrl ? (
          <p class="muted">
            Sandbox mode: this signs in to the Bluesky simulator. Make an account U.bsky.social and an app
            password with{' '}
            <code>
              curl -X POST -H 'content-type: application/json' -d '{'{"username":"U"}'}' {simulatorUrl}
              /_sandbox/accounts
            </code>
            , or run <code>npx herald sandbox connect --network bluesky --username U</code>, which also fills
            in this form.
          </p>
        ) : null}
        <form method="post" action="/connect/bluesky">
          <CsrfField token={csrf} />
          {workspace ? <input type="hidden" name="workspaceId" value={workspace.id} /> : null}
          <label>
            Handle (for example you.bsky.social){' '}
            <input
              type="text"
              name="identifier"
              autocomplete="username"
              required
              value={options.identifier ?? ''}
            />
          </label>
          <label>
            App password (xxxx-xxxx-xxxx-xxxx){' '}
            <input type="password" name="appPassword" autocomplete="off" required />
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Connect
            </button>{' '}
            <BackToChannels />
          </div>
        </form>
      </div>
    </>,
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
  return page(
    'Connect Mastodon',
    <>
      <div class="page-head">
        <h1 class="net net-mastodon">
          <NetworkIcon network="mastodon" />
          Connect Mastodon
        </h1>
      </div>
      <div class="card connect-card">
        <p>
          Mastodon is many servers. Name yours: Herald registers itself there as an app (once per server) and
          sends you to your server's own sign-in page. The profile is connected into the workspace{' '}
          <strong>{options.workspace.name}</strong>: its members can post as it.
        </p>
        {options.simulated ? (
          <p class="muted">
            Sandbox mode: every instance is simulated, whatever its name (social.example, say), and its
            sign-in page takes any user name.{' '}
            <code>npx herald sandbox connect --network mastodon --username you@social.example</code> does the
            same from the command line.
          </p>
        ) : null}
        <form method="post" action="/connect/mastodon">
          <CsrfField token={csrf} />
          <input type="hidden" name="workspaceId" value={options.workspace.id} />
          <label>
            Your instance (for example mastodon.social, or your handle @you@mastodon.social){' '}
            <input
              type="text"
              name="instance"
              inputmode="url"
              autocomplete="url"
              autocapitalize="none"
              spellcheck={false}
              required
              value={options.instance ?? ''}
            />
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Continue to your instance
            </button>{' '}
            <BackToChannels />
          </div>
        </form>
      </div>
    </>,
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
  const name = input.workspace.name
  return page(
    `Connect ${label}`,
    <>
      <div class="page-head">
        <h1>
          Connect {label} to {name}
        </h1>
      </div>
      <div class="card connect-card">
        <p class="connect-mark">
          <NetworkIcon network={input.network} />
        </p>
        <p>
          You are about to connect a {label} profile into the workspace <strong>{name}</strong>. Every member
          of {name} will be able to publish as that profile. Continue only if you meant to.
        </p>
        <form method="post" action={`/connect/${input.network}`}>
          <CsrfField token={input.csrf} />
          <input type="hidden" name="workspaceId" value={input.workspace.id} />
          <div class="actions">
            <button type="submit" class="primary">
              Continue to {label}
            </button>{' '}
            <BackToChannels />
          </div>
        </form>
      </div>
    </>,
    options,
  )
}

/**
 * `GET /connect/<network>` for a network without an app: no button to continue, only what is missing and
 * who can add it (the administrator gets the link to the network apps page).
 */
export function notSetUpPage(network: Network, administrator: boolean, options: PageOptions = {}) {
  const label = networkLabels[network]
  const next = (
    <>
      {administrator ? (
        <NextLink href={`/settings/networks#${network}`} label={`Set up ${label} on the network apps page`} />
      ) : (
        <p>
          Ask the person who runs this Herald to set it up; the channels page offers it as soon as they have.
        </p>
      )}
      <NextLink href="/channels" label="Back to channels" />
    </>
  )
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
  return page(
    `Choose ${label} profiles`,
    <>
      <div class="page-head">
        <h1>Choose what to connect</h1>
      </div>
      <div class="card connect-card">
        <p>
          Your {label} sign-in reaches these profiles. Tick each one Herald should publish to; each becomes
          its own channel.
        </p>
        {input.message ? <p role="alert">{input.message}</p> : null}
        <form method="post" action={`/connect/${input.network}/choose/${input.grantId}`}>
          <CsrfField token={input.csrf} />
          <fieldset class="choices">
            <legend>Profiles</legend>
            {input.labels.map((text, index) => (
              <label>
                <input type="checkbox" name="profile" value={index} /> {text}
              </label>
            ))}
          </fieldset>
          <div class="actions">
            <button type="submit" class="primary">
              Connect the ticked profiles
            </button>{' '}
            <BackToChannels label="Cancel and go back to channels" />
          </div>
        </form>
      </div>
    </>,
    options,
  )
}
