import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ComponentChildren } from 'preact'
import {
  type AppNetwork,
  appEnvironment,
  appNetworks,
  callbackUrl,
  needsApp,
  type ResolvedApp,
} from '../../adapters/apps.js'
import { type Network, networkLabels, networks } from '../../core/networks.js'
import type { AppContext } from '../../modules/app-context.js'
import { appGuides, publicAddressProblem } from '../../modules/network-apps/catalog.js'
import { type AppCheck, checkable } from '../../modules/network-apps/check.js'
import { type SavedAppRecord, secretRequired } from '../../modules/network-apps/service.js'
import { listRegisteredInstances } from '../../platform/db/statements/mastodon-instances.js'
import { AppError, httpStatusFor, toAppError } from '../../platform/errors.js'
import { NextLink, page, problemPage, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import type { UiIcon } from './ui/icons.js'
import { CsrfField, Icon, Messages, NetworkName } from './ui/parts.js'

/**
 * `/settings/networks`, the instance administrator's page: every network Herald publishes to, whether it can
 * be connected, and for each that signs in through a developer app, how to make one (the portal, the steps,
 * the permissions, the exact callback URL), the app's client ID and secret (saved sealed; the secret is never
 * shown again, only "set") and a check with the network. Thin: src/network-apps decides and stores.
 */

interface Message {
  network: AppNetwork
  notice?: string
  problem?: string
  check?: AppCheck
}

const Chip = ({ tone, icon, children }: { tone: string; icon: UiIcon; children: ComponentChildren }) => (
  <span class={`chip ${tone}`}>
    <Icon name={icon} />
    {children}
  </span>
)

function StateBadge({ network, app }: { network: Network; app: ResolvedApp | undefined }) {
  if (!needsApp(network))
    return (
      <Chip tone="ok" icon="circle-check">
        Ready: no app needed
      </Chip>
    )
  if (!app)
    return (
      <Chip tone="bad" icon="circle-alert">
        Not set up: needs an app
      </Chip>
    )
  if (app.source === 'sandbox')
    return (
      <Chip tone="info" icon="circle-check">
        Sandbox: the simulator’s own app
      </Chip>
    )
  return (
    <Chip tone="ok" icon="circle-check">
      Ready: set {app.source === 'environment' ? 'by the environment' : 'on this page'}
    </Chip>
  )
}

function MessageFor({ m, network }: { m: Message | undefined; network: AppNetwork }) {
  if (!m || m.network !== network) return null
  const problem = m.problem ?? (m.check && m.check.outcome !== 'accepted' ? m.check.message : undefined)
  const notice = m.notice ?? (m.check?.outcome === 'accepted' ? m.check.message : undefined)
  return (
    <>
      <Messages problem={problem} />
      <Messages notice={notice} />
    </>
  )
}

const Scopes = ({ list }: { list: readonly string[] }) => (
  <>{list.flatMap((scope, i) => [...(i ? [' '] : []), <code>{scope}</code>])}</>
)

function Guide({ app, network, open }: { app: AppContext; network: AppNetwork; open: boolean }) {
  const g = appGuides[network]
  return (
    <details open={open}>
      <summary>How to make the {networkLabels[network]} app</summary>
      <p>
        Create it on{' '}
        <a href={g.portal} rel="noreferrer">
          {g.portalName}
        </a>
        :
      </p>
      <ol>
        {g.steps.map((step) => (
          <li>{step}</li>
        ))}
      </ol>
      <label class="field">
        Callback URL to paste <input type="text" readonly value={callbackUrl(app.config, network)} />
      </label>
      <p class="scopes">
        Permissions Herald asks for: <Scopes list={g.scopes} />
      </p>
      {g.pageScopes ? (
        <p class="scopes">
          With the Community Management API, also: <Scopes list={g.pageScopes} />
        </p>
      ) : null}
    </details>
  )
}

function AppForm(props: {
  network: AppNetwork
  csrf: string
  record: SavedAppRecord | undefined
  fromEnvironment: boolean
}) {
  const { network, record } = props
  const g = appGuides[network]
  const secretState = record?.unreadable
    ? 'The saved secret cannot be opened with this Herald’s keys: enter it again.'
    : record?.secretSet
      ? 'Set. Leave empty to keep it; enter a new one to replace it.'
      : network === 'twitter'
        ? 'Leave empty for a public app.'
        : ''
  return (
    <>
      {props.fromEnvironment ? (
        <p class="muted">
          {appEnvironment[network].id} is set in the environment, and the environment wins: what is saved here
          is used only once it is unset.
        </p>
      ) : null}
      <form method="post" action={`/settings/networks/${network}`}>
        <CsrfField token={props.csrf} />
        <label class="field">
          {g.idName}{' '}
          <input
            type="text"
            name="clientId"
            autocomplete="off"
            spellcheck={false}
            maxlength={200}
            required
            value={record?.clientId ?? ''}
          />
        </label>
        <label class="field">
          {g.secretName}
          {secretRequired(network) ? '' : ' (optional)'}{' '}
          <input
            type="password"
            name="clientSecret"
            autocomplete="new-password"
            maxlength={500}
            required={!(record?.secretSet || !secretRequired(network))}
          />
        </label>
        {secretState ? <p class="muted">{secretState}</p> : null}
        {network === 'linkedin' ? (
          <label>
            <input
              type="checkbox"
              name="communityManagement"
              value="on"
              checked={record?.communityManagement}
            />{' '}
            The app has the Community Management API (pages can be connected)
          </label>
        ) : null}
        {network === 'tiktok' ? (
          <label>
            <input type="checkbox" name="audited" value="on" checked={record?.audited} /> TikTok has audited
            this app for direct posting (posts may then be public)
          </label>
        ) : null}
        <button type="submit" class="primary">
          Save the {networkLabels[network]} app
        </button>
      </form>
    </>
  )
}

function Actions(props: {
  app: AppContext
  network: AppNetwork
  csrf: string
  record: SavedAppRecord | undefined
}) {
  const { network, record, csrf } = props
  const label = networkLabels[network]
  const resolved = props.app.networkApps.resolve(network)
  return (
    <>
      <div class="actions">
        {!checkable(network) ? (
          <p class="muted">
            {label} offers no way to check an app without a person signing in: connecting the first profile is
            the check.
          </p>
        ) : resolved ? (
          <form method="post" action={`/settings/networks/${network}/check`}>
            <CsrfField token={csrf} />
            <button type="submit">Check the app with {label}</button>
          </form>
        ) : null}
        {record ? (
          <form method="post" action={`/settings/networks/${network}/remove`}>
            <CsrfField token={csrf} />
            <button type="submit" class="danger">
              Remove the saved {label} app
            </button>
          </form>
        ) : null}
      </div>
      {record ? (
        <p class="muted">
          Profiles connected through an app keep working only with that app: after replacing or removing it,
          connect them again.
        </p>
      ) : null}
    </>
  )
}

/**
 * Mastodon is many servers: Herald makes its own app on each instance the first time a profile there
 * connects, so there is nothing to paste; the page says how it works and where Herald is registered.
 */
function MastodonGuide({ app, hosts }: { app: AppContext; hosts: readonly string[] }) {
  return (
    <>
      <p>
        There is no app to make: when someone connects a profile, they name their instance, and Herald
        registers itself there as an app called <strong>{app.config.networks.mastodon.appName}</strong> (the
        name statuses show as the app that posted them; set <code>HERALD_MASTODON_APP_NAME</code> to change
        it), once per instance. An instance that has forgotten the app (an admin removed it) gets a new one at
        the next connect.
      </p>
      <ol class="steps">
        <li>Nothing to do here: open Channels and choose Mastodon.</li>
        <li>Type the instance (mastodon.social, or your handle @you@mastodon.social).</li>
        <li>Sign in on the instance's own page and allow Herald to post.</li>
      </ol>
      <p class="muted">
        Herald connects only to instances on public internet addresses; to connect one on this machine or its
        network, set <code>HERALD_MASTODON_ALLOW_PRIVATE=1</code>.
      </p>
      {hosts.length ? (
        <>
          <p>Registered on {hosts.length === 1 ? 'one instance' : `${hosts.length} instances`}:</p>
          <ul class="instances">
            {hosts.map((host) => (
              <li>
                <code>{host}</code>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p class="muted">Not registered on any instance yet.</p>
      )}
    </>
  )
}

function NetworkSection(props: {
  app: AppContext
  who: SignedIn
  network: Network
  records: Partial<Record<AppNetwork, SavedAppRecord>>
  m: Message | undefined
  mastodonHosts: readonly string[]
}) {
  const { app, network } = props
  const resolved = app.networkApps.resolve(network)
  const heading = (
    <div class="network-head">
      <h2>
        <NetworkName network={network} />
      </h2>
      <StateBadge network={network} app={resolved} />
    </div>
  )
  if (network === 'mastodon')
    return (
      <section class="card network" id={network} aria-label={networkLabels[network]}>
        {heading}
        <MastodonGuide app={app} hosts={props.mastodonHosts} />
      </section>
    )
  if (!needsApp(network))
    return (
      <section class="card network" id={network} aria-label={networkLabels[network]}>
        {heading}
        <p class="muted">
          Bluesky accounts connect with their handle and an app password: there is no app to make.
        </p>
      </section>
    )
  const record = props.records[network]
  const csrf = props.who.session.csrfToken
  // What the network withholds until it approves the app is said outside the steps, open or not.
  const withheld = appGuides[network].notice
  // What the network's adapter says every post is told while its app is limited (TikTok before its audit).
  const limit = resolved ? app.adapters[network]?.appLimit : undefined
  return (
    <section class="card network" id={network} aria-label={networkLabels[network]}>
      {heading}
      {withheld ? (
        <p class="network-notice">
          <Icon name="triangle-alert" />
          {withheld}
        </p>
      ) : null}
      {limit ? (
        <div class="notice warn">
          <p>{limit}.</p>
        </div>
      ) : null}
      <MessageFor m={props.m} network={network} />
      <Guide app={app} network={network} open={!resolved} />
      <AppForm
        network={network}
        csrf={csrf}
        record={record}
        fromEnvironment={resolved?.source === 'environment'}
      />
      <Actions app={app} network={network} csrf={csrf} record={record} />
    </section>
  )
}

async function networksPage(app: AppContext, who: SignedIn, m?: Message) {
  const records = await app.networkApps.records()
  const mastodonHosts = (await listRegisteredInstances(app.store.db)).map((row) => row.id)
  const address = publicAddressProblem(app.config.publicBaseUrl)
  return page(
    'Network apps',
    <>
      <div class="page-head">
        <h1>Network apps</h1>
      </div>
      <p>
        Each network lets Herald publish only through a developer app that <strong>you</strong> register with
        it: Herald has no app of its own. Make one per network you need, paste its client ID and secret here,
        and your workspaces can connect their profiles. Bluesky needs none, and Mastodon registers itself on
        each instance.
      </p>
      <p class="muted">
        Values set in the environment (for example {appEnvironment.twitter.id}) win over this page. A saved
        secret is stored encrypted and never shown again.
      </p>
      <Messages problem={address} />
      {app.config.sandbox ? (
        <p class="muted">
          Sandbox mode: the networks are the simulators inside this Herald. A network without an app here uses
          its simulator’s own app; an app saved here is presented to the simulator as it would be to the
          network.
        </p>
      ) : null}
      {networks
        .slice()
        .sort((a, b) => order(a) - order(b))
        .map((network) => (
          <NetworkSection
            app={app}
            who={who}
            network={network}
            records={records}
            m={m}
            mastodonHosts={mastodonHosts}
          />
        ))}
    </>,
    { signedIn: account(who) },
  )
}

/** The page lists the app networks in their usual order, Bluesky (no app) last. */
const order = (network: Network) => (needsApp(network) ? appNetworks.indexOf(network) : appNetworks.length)

const administratorsOnly = (reply: FastifyReply, who: SignedIn) =>
  sendHtml(
    reply,
    403,
    problemPage('Administrators only', 'Only the person who runs this Herald sets up its network apps.', {
      signedIn: account(who),
      next: <NextLink href="/channels" label="Back to channels" />,
    }),
  )

const isAppNetwork = (value: string): value is AppNetwork =>
  (appNetworks as readonly string[]).includes(value)

export function registerNetworkAppRoutes(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  routes.get('/settings/networks', async (_request, reply, who) => {
    if (!who.administrator) return administratorsOnly(reply, who)
    await app.networkApps.refresh()
    return sendHtml(reply, 200, await networksPage(app, who))
  })

  /** Every change: signed in, the form's CSRF token, the administrator, a network with an app; then `act`. */
  const change =
    (act: (network: AppNetwork, who: SignedIn, request: FastifyRequest) => Promise<Message>) =>
    async (request: FastifyRequest<{ Params: { network: string } }>, reply: FastifyReply, who: SignedIn) => {
      if (!who.administrator) return administratorsOnly(reply, who)
      const { network } = request.params
      if (!isAppNetwork(network))
        return sendHtml(
          reply,
          404,
          problemPage('Unknown network', 'That network has no app to set up.', { signedIn: account(who) }),
        )
      let message: Message
      let status = 200
      try {
        message = await act(network, who, request)
      } catch (error) {
        const appError = toAppError(error)
        if (!(error instanceof AppError)) request.log.error({ err: error }, 'network app change failed')
        status = httpStatusFor(appError.code)
        message = {
          network,
          problem: status < 500 ? appError.message : 'Something went wrong; nothing was changed.',
        }
      }
      return sendHtml(reply, status, await networksPage(app, who, message))
    }

  routes.post<{ Params: { network: string } }>(
    '/settings/networks/:network',
    change(async (network, who, request) => {
      await app.networkApps.save(
        network,
        {
          clientId: field(request, 'clientId'),
          clientSecret: field(request, 'clientSecret'),
          communityManagement: field(request, 'communityManagement') === 'on',
          audited: field(request, 'audited') === 'on',
        },
        who.user.id,
      )
      return { network, notice: `The ${networkLabels[network]} app is saved.` }
    }),
  )
  routes.post<{ Params: { network: string } }>(
    '/settings/networks/:network/check',
    change(async (network) => ({ network, check: await app.networkApps.check(network) })),
  )
  routes.post<{ Params: { network: string } }>(
    '/settings/networks/:network/remove',
    change(async (network) => {
      const removed = await app.networkApps.remove(network)
      return {
        network,
        notice: removed
          ? `The saved ${networkLabels[network]} app is removed.`
          : `There was no saved ${networkLabels[network]} app.`,
      }
    }),
  )
}
