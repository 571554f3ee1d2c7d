import type { FastifyInstance } from 'fastify'
import { sandboxPrefixes } from '../../adapters/registry.js'
import { isNetwork } from '../../core/networks.js'
import { setSessionWorkspace } from '../../modules/accounts/sessions.js'
import type { AppContext } from '../../modules/app-context.js'
import { describeProfile, readGrant, spendGrant } from '../../modules/connections/choose-profiles.js'
import {
  type ConnectOutcome,
  connectWithAppPassword,
  finishConnect,
  startConnect,
  storeConnection,
} from '../../modules/connections/flow.js'
import { finishMastodonConnect, startMastodonConnect } from '../../modules/connections/mastodon-connect.js'
import { findMembership } from '../../platform/db/statements/accounts.js'
import { firstValue } from '../../platform/form.js'
import {
  blueskyFormPage,
  chooseProfilesPage,
  confirmConnectPage,
  mastodonFormPage,
  notSetUpPage,
  refusalPage,
} from './connect-pages.js'
import { problemPage, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes, visitorOrSignedIn } from './sign-in-guard.js'

const pageOptions = (who: SignedIn | undefined) => (who ? { signedIn: account(who) } : {})

/**
 * `GET /connect/<network>` (signed in; `?workspaceId=` picks the workspace) shows a page naming the
 * workspace, whose form (`POST /connect/<network>`, CSRF) redirects to the network's consent page; `GET /connect/<network>/callback` finishes the connection and returns to `/channels`.
 * Bluesky: `GET /connect/bluesky` is a form, `POST /connect/bluesky` connects with an app password.
 */
export function registerConnectRoutes(scope: FastifyInstance, app: AppContext) {
  registerStartRoutes(scope, app)
  registerCallbackRoute(scope, app)
  registerChooseRoutes(scope, app)
  registerBlueskyRoute(scope, app)
}

type Reply = Parameters<typeof sendHtml>[0]

const answer = (reply: Reply, who: SignedIn | undefined, outcome: ConnectOutcome) =>
  outcome.kind === 'connected'
    ? reply.redirect(`/channels?connected=${encodeURIComponent(outcome.connectionId)}`, 303)
    : outcome.kind === 'choose'
      ? reply.redirect(`/connect/${outcome.network}/choose/${encodeURIComponent(outcome.grantId)}`, 303)
      : sendHtml(reply, outcome.status, refusalPage(outcome, pageOptions(who)))

/**
 * The workspace a connect acts in: the one asked for (`workspaceId`, query or form) when the person is a
 * member of it, else the session's. Undefined when they asked for one they are not a member of.
 */
const targetWorkspace = async (app: AppContext, who: SignedIn, wanted: string | undefined) => {
  if (!wanted || wanted === who.workspace.id) return { id: who.workspace.id, name: who.workspace.name }
  const membership = await findMembership(app.store.db, wanted, who.user.id)
  return membership ? { id: membership.id, name: membership.name } : undefined
}

const notMember = (reply: Reply, who: SignedIn) =>
  sendHtml(
    reply,
    404,
    problemPage('Workspace not found', 'You are not a member of that workspace.', pageOptions(who)),
  )

const expiredGrant = (reply: Reply, who: SignedIn) =>
  sendHtml(
    reply,
    404,
    problemPage(
      'Nothing to choose',
      'This choice has expired, was already made, or belongs to someone else. Nothing was connected. Start again from the channels page.',
      pageOptions(who),
    ),
  )

/** The page that names the workspace, and its form's POST that sends the person to the network. */
function registerStartRoutes(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  // A page, never an action: it names the workspace and offers a form; only the form's POST starts.
  routes.get<{ Params: { network: string }; Querystring: { workspaceId?: string } }>(
    '/connect/:network',
    async (request, reply, who) => {
      const { network } = request.params
      if (!isNetwork(network)) {
        return sendHtml(
          reply,
          404,
          problemPage('Unknown network', `Herald does not know a network called "${network.slice(0, 40)}".`),
        )
      }
      const workspace = await targetWorkspace(app, who, firstValue(request.query.workspaceId))
      if (!workspace) return notMember(reply, who)
      if (network === 'bluesky') {
        const simulated = app.config.sandbox && !app.config.networks.bluesky.configured
        return sendHtml(
          reply,
          200,
          blueskyFormPage(who.session.csrfToken, {
            ...pageOptions(who),
            workspace,
            ...(simulated ? { simulatorUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.bluesky}` } : {}),
          }),
        )
      }
      if (network === 'mastodon')
        return sendHtml(
          reply,
          200,
          mastodonFormPage(who.session.csrfToken, {
            ...pageOptions(who),
            workspace,
            ...(app.config.sandbox ? { simulated: true } : {}),
          }),
        )
      // Read again: another process may have set the app up (or removed it) since this one last looked.
      await app.networkApps.refresh()
      if (!app.networkApps.canConnect(network))
        return sendHtml(reply, 404, notSetUpPage(network, who.administrator, pageOptions(who)))
      return sendHtml(
        reply,
        200,
        confirmConnectPage({ network, csrf: who.session.csrfToken, workspace }, pageOptions(who)),
      )
    },
  )

  routes.post<{ Params: { network: string } }>('/connect/:network', async (request, reply, who) => {
    const { network } = request.params
    if (!isNetwork(network) || network === 'bluesky')
      return sendHtml(reply, 404, problemPage('Unknown network', 'This is not a Herald connect address.'))
    const workspace = await targetWorkspace(app, who, field(request, 'workspaceId') || undefined)
    if (!workspace) return notMember(reply, who)
    if (workspace.id !== who.workspace.id)
      await setSessionWorkspace(app.store.db, who.session.id, workspace.id)
    const connector = { userId: who.user.id, workspaceId: workspace.id }
    const started =
      network === 'mastodon'
        ? await startMastodonConnect(app, connector, field(request, 'instance'))
        : await startConnect(app, connector, network)
    if (started.kind === 'redirect') return reply.redirect(started.url, 303)
    return sendHtml(reply, started.status, refusalPage(started, pageOptions(who)))
  })
}

/** The network's answer: the connection is finished (or refused) and the person sent on. */
function registerCallbackRoute(scope: FastifyInstance, app: AppContext) {
  scope.get<{ Params: { network: string }; Querystring: Record<string, string | undefined> }>(
    '/connect/:network/callback',
    visitorOrSignedIn,
    async (request, reply) => {
      const { network } = request.params
      if (!isNetwork(network))
        return sendHtml(reply, 404, problemPage('Unknown network', 'This is not a Herald connect address.'))
      const who = request.signedIn
      const query = Object.fromEntries(
        Object.entries(request.query).map(([key, value]) => [
          key,
          Array.isArray(value) ? String(value[0]) : value,
        ]),
      )
      const connector = who ? { userId: who.user.id, workspaceId: who.workspace.id } : undefined
      const outcome =
        network === 'mastodon'
          ? await finishMastodonConnect(app, connector, query)
          : await finishConnect(app, connector, network, query)
      return answer(reply, who, outcome)
    },
  )
}

/** A grant that reaches several profiles: the choice page, and its POST that connects the ticked ones. */
function registerChooseRoutes(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  routes.get<{ Params: { network: string; id: string } }>(
    '/connect/:network/choose/:id',
    async (request, reply, who) => {
      const grant = await readGrant(app, request.params.id, who.user.id)
      if (!grant || grant.network !== request.params.network) return expiredGrant(reply, who)
      if (!(await findMembership(app.store.db, grant.workspaceId, who.user.id))) return notMember(reply, who)
      return sendHtml(
        reply,
        200,
        chooseProfilesPage(
          {
            network: grant.network,
            grantId: grant.id,
            labels: grant.profiles.map(describeProfile),
            csrf: who.session.csrfToken,
          },
          pageOptions(who),
        ),
      )
    },
  )

  routes.post<{ Params: { network: string; id: string } }>(
    '/connect/:network/choose/:id',
    async (request, reply, who) => {
      const grant = await readGrant(app, request.params.id, who.user.id)
      if (!grant || grant.network !== request.params.network) return expiredGrant(reply, who)
      const raw = (request.body as Record<string, unknown> | undefined)?.profile
      const picked = [...new Set((Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(Number))]
        .filter((i) => Number.isInteger(i) && i >= 0 && i < grant.profiles.length)
        .map((i) => grant.profiles[i]!)
      if (picked.length === 0)
        return sendHtml(
          reply,
          400,
          chooseProfilesPage(
            {
              network: grant.network,
              grantId: grant.id,
              labels: grant.profiles.map(describeProfile),
              csrf: who.session.csrfToken,
              message: 'Tick at least one profile to connect.',
            },
            pageOptions(who),
          ),
        )
      // Membership is checked again as the profiles are chosen: it may have ended since the flow began.
      if (!(await findMembership(app.store.db, grant.workspaceId, who.user.id))) return notMember(reply, who)
      if (!(await spendGrant(app, grant.id, who.user.id))) return expiredGrant(reply, who)
      const connector = { userId: who.user.id, workspaceId: grant.workspaceId }
      let first: ConnectOutcome | undefined
      for (const chosen of picked) {
        const outcome = await storeConnection(
          app,
          connector,
          chosen.network,
          chosen.credentials,
          chosen.profile,
          grant.scopes,
        )
        first ??= outcome
      }
      return answer(reply, who, first!)
    },
  )
}

/** Bluesky connects with a handle and an app password, posted from its form. */
function registerBlueskyRoute(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  routes.post('/connect/bluesky', async (request, reply, who) => {
    const workspace = await targetWorkspace(app, who, field(request, 'workspaceId') || undefined)
    if (!workspace) return notMember(reply, who)
    const outcome = await connectWithAppPassword(
      app,
      { userId: who.user.id, workspaceId: workspace.id },
      { identifier: field(request, 'identifier'), appPassword: field(request, 'appPassword') },
    )
    return answer(reply, who, outcome)
  })
}
