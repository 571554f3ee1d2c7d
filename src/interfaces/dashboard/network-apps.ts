import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
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
import { signedInOf } from './form-guard.js'
import { csrfField, escapeHtml, page, problemPage, sendHtml } from './html.js'
import { account, field, redirectToLogin, type SignedIn, signedIn } from './request.js'
import { icon, networkName } from './ui/icons.js'

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

function stateBadge(network: Network, app: ResolvedApp | undefined) {
  if (!needsApp(network)) return `<span class="chip ok">${icon('circle-check')}Ready: no app needed</span>`
  if (!app) return `<span class="chip bad">${icon('circle-alert')}Not set up: needs an app</span>`
  if (app.source === 'sandbox')
    return `<span class="chip info">${icon('circle-check')}Sandbox: the simulator’s own app</span>`
  return `<span class="chip ok">${icon('circle-check')}Ready: set ${app.source === 'environment' ? 'by the environment' : 'on this page'}</span>`
}

function messageFor(m: Message | undefined, network: AppNetwork) {
  if (!m || m.network !== network) return ''
  const problem = m.problem ?? (m.check && m.check.outcome !== 'accepted' ? m.check.message : undefined)
  const notice = m.notice ?? (m.check?.outcome === 'accepted' ? m.check.message : undefined)
  return `${problem ? `<div class="problem" role="alert"><p>${escapeHtml(problem)}</p></div>` : ''}${notice ? `<div class="notice" role="status"><p>${escapeHtml(notice)}</p></div>` : ''}`
}

function guide(app: AppContext, network: AppNetwork, open: boolean) {
  const g = appGuides[network]
  const label = networkLabels[network]
  const scopes = (list: readonly string[]) => list.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')
  const pageScopes = g.pageScopes
    ? `<p class="scopes">With the Community Management API, also: ${scopes(g.pageScopes)}</p>`
    : ''
  return `<details${open ? ' open' : ''}><summary>How to make the ${escapeHtml(label)} app</summary>
<p>Create it on <a href="${escapeHtml(g.portal)}" rel="noreferrer">${escapeHtml(g.portalName)}</a>:</p>
<ol>${g.steps.map((step) => `<li>${escapeHtml(step)}</li>`).join('')}</ol>
<label class="field">Callback URL to paste <input type="text" readonly value="${escapeHtml(callbackUrl(app.config, network))}"></label>
<p class="scopes">Permissions Herald asks for: ${scopes(g.scopes)}</p>${pageScopes}
</details>`
}

function appForm(
  network: AppNetwork,
  csrf: string,
  record: SavedAppRecord | undefined,
  fromEnvironment: boolean,
) {
  const g = appGuides[network]
  const secretState = record?.unreadable
    ? 'The saved secret cannot be opened with this Herald’s keys: enter it again.'
    : record?.secretSet
      ? 'Set. Leave empty to keep it; enter a new one to replace it.'
      : network === 'twitter'
        ? 'Leave empty for a public app.'
        : ''
  const linkedin =
    network === 'linkedin'
      ? `<label><input type="checkbox" name="communityManagement" value="on"${record?.communityManagement ? ' checked' : ''}> The app has the Community Management API (pages can be connected)</label>`
      : ''
  const env = appEnvironment[network]
  const overridden = fromEnvironment
    ? `<p class="muted">${escapeHtml(env.id)} is set in the environment, and the environment wins: what is saved here is used only once it is unset.</p>`
    : ''
  return `${overridden}<form method="post" action="/settings/networks/${network}">${csrfField(csrf)}
<label class="field">${escapeHtml(g.idName)} <input type="text" name="clientId" autocomplete="off" spellcheck="false" maxlength="200" required value="${escapeHtml(record?.clientId ?? '')}"></label>
<label class="field">${escapeHtml(g.secretName)}${secretRequired(network) ? '' : ' (optional)'} <input type="password" name="clientSecret" autocomplete="new-password" maxlength="500"${record?.secretSet || !secretRequired(network) ? '' : ' required'}></label>
${secretState ? `<p class="muted">${escapeHtml(secretState)}</p>` : ''}${linkedin}
<button type="submit" class="primary">Save the ${escapeHtml(networkLabels[network])} app</button></form>`
}

function actions(app: AppContext, network: AppNetwork, csrf: string, record: SavedAppRecord | undefined) {
  const label = escapeHtml(networkLabels[network])
  const resolved = app.networkApps.resolve(network)
  const check = !checkable(network)
    ? `<p class="muted">${label} offers no way to check an app without a person signing in: connecting the first profile is the check.</p>`
    : resolved
      ? `<form method="post" action="/settings/networks/${network}/check">${csrfField(csrf)}<button type="submit">Check the app with ${label}</button></form>`
      : ''
  const remove = record
    ? `<form method="post" action="/settings/networks/${network}/remove">${csrfField(csrf)}<button type="submit" class="danger">Remove the saved ${label} app</button></form>`
    : ''
  const replacing = record
    ? `<p class="muted">Profiles connected through an app keep working only with that app: after replacing or removing it, connect them again.</p>`
    : ''
  return `<div class="actions">${check}${remove}</div>${replacing}`
}

function networkSection(
  app: AppContext,
  who: SignedIn,
  network: Network,
  records: Partial<Record<AppNetwork, SavedAppRecord>>,
  m: Message | undefined,
  mastodonHosts: readonly string[],
) {
  const label = escapeHtml(networkLabels[network])
  const resolved = app.networkApps.resolve(network)
  const heading = `<div class="network-head"><h2>${networkName(network)}</h2>${stateBadge(network, resolved)}</div>`
  if (network === 'mastodon')
    return `<section class="card network" id="${network}" aria-label="${label}">${heading}
${mastodonGuide(app, mastodonHosts)}</section>`
  if (!needsApp(network))
    return `<section class="card network" id="${network}" aria-label="${label}">${heading}
<p class="muted">Bluesky accounts connect with their handle and an app password: there is no app to make.</p></section>`
  const record = records[network]
  const csrf = who.session.csrfToken
  return `<section class="card network" id="${network}" aria-label="${label}">${heading}
${messageFor(m, network)}${guide(app, network, !resolved)}
${appForm(network, csrf, record, resolved?.source === 'environment')}
${actions(app, network, csrf, record)}</section>`
}

/**
 * Mastodon is many servers: Herald makes its own app on each instance the first time a profile there
 * connects, so there is nothing to paste; the page says how it works and where Herald is registered.
 */
function mastodonGuide(app: AppContext, hosts: readonly string[]): string {
  const name = escapeHtml(app.config.networks.mastodon.appName)
  const registered = hosts.length
    ? `<p>Registered on ${hosts.length === 1 ? 'one instance' : `${hosts.length} instances`}:</p><ul class="instances">${hosts.map((host) => `<li><code>${escapeHtml(host)}</code></li>`).join('')}</ul>`
    : '<p class="muted">Not registered on any instance yet.</p>'
  return `<p>There is no app to make: when someone connects a profile, they name their instance, and Herald registers itself there as an app called <strong>${name}</strong> (the name statuses show as the app that posted them; set <code>HERALD_MASTODON_APP_NAME</code> to change it), once per instance. An instance that has forgotten the app (an admin removed it) gets a new one at the next connect.</p>
<ol class="steps"><li>Nothing to do here: open Channels and choose Mastodon.</li><li>Type the instance (mastodon.social, or your handle @you@mastodon.social).</li><li>Sign in on the instance's own page and allow Herald to post.</li></ol>
<p class="muted">Herald connects only to instances on public internet addresses; to connect one on this machine or its network, set <code>HERALD_MASTODON_ALLOW_PRIVATE=1</code>.</p>
${registered}`
}

async function networksPage(app: AppContext, who: SignedIn, m?: Message) {
  const records = await app.networkApps.records()
  const mastodonHosts = (await listRegisteredInstances(app.store.db)).map((row) => row.id)
  const address = publicAddressProblem(app.config.publicBaseUrl)
  const sandbox = app.config.sandbox
    ? '<p class="muted">Sandbox mode: the networks are the simulators inside this Herald. A network without an app here uses its simulator’s own app; an app saved here is presented to the simulator as it would be to the network.</p>'
    : ''
  return page(
    'Network apps',
    `<div class="page-head"><h1>Network apps</h1></div>
<p>Each network lets Herald publish only through a developer app that <strong>you</strong> register with it: Herald has no app of its own. Make one per network you need, paste its client ID and secret here, and your workspaces can connect their profiles. Bluesky needs none, and Mastodon registers itself on each instance.</p>
<p class="muted">Values set in the environment (for example ${escapeHtml(appEnvironment.twitter.id)}) win over this page. A saved secret is stored encrypted and never shown again.</p>
${address ? `<div class="problem" role="alert"><p>${escapeHtml(address)}</p></div>` : ''}${sandbox}
${networks
  .slice()
  .sort((a, b) => order(a) - order(b))
  .map((network) => networkSection(app, who, network, records, m, mastodonHosts))
  .join('\n')}`,
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
      next: '<p><a href="/channels">Back to channels</a></p>',
    }),
  )

const isAppNetwork = (value: string): value is AppNetwork =>
  (appNetworks as readonly string[]).includes(value)

export function registerNetworkAppRoutes(scope: FastifyInstance, app: AppContext) {
  scope.get('/settings/networks', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/settings/networks')
    if (!who.administrator) return administratorsOnly(reply, who)
    await app.networkApps.refresh()
    return sendHtml(reply, 200, await networksPage(app, who))
  })

  /** Every change: signed in, the form's CSRF token, the administrator, a network with an app; then `act`. */
  const change =
    (act: (network: AppNetwork, who: SignedIn, request: FastifyRequest) => Promise<Message>) =>
    async (request: FastifyRequest<{ Params: { network: string } }>, reply: FastifyReply) => {
      const who = signedInOf(request)
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

  scope.post<{ Params: { network: string } }>(
    '/settings/networks/:network',
    change(async (network, who, request) => {
      await app.networkApps.save(
        network,
        {
          clientId: field(request, 'clientId'),
          clientSecret: field(request, 'clientSecret'),
          communityManagement: field(request, 'communityManagement') === 'on',
        },
        who.user.id,
      )
      return { network, notice: `The ${networkLabels[network]} app is saved.` }
    }),
  )
  scope.post<{ Params: { network: string } }>(
    '/settings/networks/:network/check',
    change(async (network) => ({ network, check: await app.networkApps.check(network) })),
  )
  scope.post<{ Params: { network: string } }>(
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
