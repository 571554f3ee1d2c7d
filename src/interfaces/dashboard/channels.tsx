import type { FastifyInstance } from 'fastify'
import type { VNode } from 'preact'
import { isNetwork } from '../../core/networks.js'
import { setSessionWorkspace } from '../../modules/accounts/sessions.js'
import type { AppContext } from '../../modules/app-context.js'
import { avatarPaths } from '../../modules/connections/avatars.js'
import { connectionCredentials } from '../../platform/crypto/vault.js'
import { findMembership, listWorkspacesForUser } from '../../platform/db/statements/accounts.js'
import { listConnections } from '../../platform/db/statements/connections.js'
import { firstValue } from '../../platform/form.js'
import type { ToolRunner } from '../tools/runner.js'
import { toolsAs } from './caller.js'
import { ChannelCard, NetworkTiles } from './channel-cards.js'
import { SimulatedProfilesForm, simulatedNotice } from './first-run/onboarding.js'
import { networkLabels, page, problemPage, sendHtml } from './html.js'
import { account, field, localPath, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { Avatar } from './ui/avatar.js'
import { CsrfField, EmptyState, Icon, Messages } from './ui/parts.js'

type WorkspaceRow = Awaited<ReturnType<typeof listWorkspacesForUser>>[number]

function WorkspaceSelector({ workspaces, who }: { workspaces: WorkspaceRow[]; who: SignedIn }) {
  if (workspaces.length <= 1) return null
  return (
    <form method="post" action="/channels/workspace" class="switch-workspace">
      <CsrfField token={who.session.csrfToken} />
      <label>
        Workspace{' '}
        <select name="workspaceId">
          {workspaces.map((w) => (
            <option value={w.id} selected={w.id === who.workspace.id}>
              {w.name} ({w.role})
            </option>
          ))}
        </select>
      </label>{' '}
      <button type="submit">Switch</button>
    </form>
  )
}

async function channelsPage(app: AppContext, runner: ToolRunner, who: SignedIn, notice: VNode | null) {
  const db = app.store.db
  const [rows, workspaces, pictures] = await Promise.all([
    listConnections(db, who.workspace.id),
    listWorkspacesForUser(db, who.user.id),
    avatarPaths(db, who.workspace.id),
  ])
  const csrf = who.session.csrfToken
  const owner = who.workspace.role === 'owner'
  const report = await toolsAs(runner)(who, 'get_account_health', {})
  const health = new Map(report.connections.map((e) => [`${e.platform}:${e.profileId}`, e]))
  // Read again: another process may have set an app up since this one last looked.
  await app.networkApps.refresh()
  return page(
    'Channels',
    <>
      <div class="page-head">
        <h1>Channels of {who.workspace.name}</h1>
        {rows.length > 0 ? (
          <a class="button primary" href="#connect">
            Add channel
          </a>
        ) : null}
      </div>
      {notice}
      <WorkspaceSelector workspaces={workspaces} who={who} />
      {/* An empty sandbox workspace already says it in the empty state, beside its button. */}
      {app.config.sandbox && rows.length > 0 ? (
        <p class="muted">
          Sandbox mode: profiles connect to the network simulators in this Herald, not the real networks.
        </p>
      ) : null}
      {rows.length === 0 ? (
        <EmptyState
          text="No channels yet. Every social profile you connect appears here, with whether Herald can still post to it."
          action={
            app.config.sandbox
              ? { form: <SimulatedProfilesForm csrf={csrf} back="/channels" /> }
              : { href: '#connect', label: 'Connect a profile' }
          }
        />
      ) : (
        <ul class="cards channels" aria-label="Connected profiles">
          {rows.map((row) => {
            const key = `${row.platform}:${row.profile_id}`
            return (
              <ChannelCard row={row} health={health.get(key)} owner={owner} picture={pictures.get(key)} />
            )
          })}
        </ul>
      )}
      <h2 id="connect">Add channel</h2>
      <p class="muted">
        Pick a network: Herald asks it for permission to post, then the profile appears above.
      </p>
      <NetworkTiles
        canConnect={(network) => app.networkApps.canConnect(network)}
        administrator={who.administrator}
      />
    </>,
    { signedIn: account(who) },
  )
}

/** `GET /channels` (the workspace's connections, connect links, workspace selector), disconnect and switch. */
export function registerChannelRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const routes = signedInRoutes(scope)
  routes.get('/channels', async (request, reply, who) => {
    const notice = await channelsNotice(app, who, request.query as Record<string, unknown>)
    return sendHtml(reply, 200, await channelsPage(app, runner, who, notice))
  })

  registerWorkspaceSwitch(scope, app)
  registerDisconnect(scope, app)
}

/** What the page says first: the profile just connected, the one disconnected, or the simulated ones. */
async function channelsNotice(app: AppContext, who: SignedIn, query: Record<string, unknown>) {
  const connected = firstValue(query.connected)
  if (connected) {
    const row = await app.store.db
      .selectFrom('connections')
      .select(['platform', 'username'])
      .where('id', '=', connected)
      .where('workspace_id', '=', who.workspace.id)
      .executeTakeFirst()
    if (!row) return null
    const label = isNetwork(row.platform) ? networkLabels[row.platform] : row.platform
    return (
      <div class="notice">
        <p>
          Connected @{row.username} on {label}.
        </p>
      </div>
    )
  }
  if (query.disconnected)
    return (
      <div class="notice">
        <p>The profile was disconnected and its tokens deleted.</p>
      </div>
    )
  const simulated = simulatedNotice(query)
  return simulated ? <Messages notice={simulated} /> : null
}

/** Switching the session's workspace, and the switcher page every page links to. */
function registerWorkspaceSwitch(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  routes.post('/channels/workspace', async (request, reply, who) => {
    const workspaceId = field(request, 'workspaceId')
    // A workspace the person is not a member of is ignored, as if it did not exist.
    if (await findMembership(app.store.db, workspaceId, who.user.id))
      await setSessionWorkspace(app.store.db, who.session.id, workspaceId)
    return reply.redirect(localPath(field(request, 'next'), '/channels'), 303)
  })

  // The workspace switcher every page links to: the person's workspaces, the current one marked.
  routes.get('/workspaces', async (_request, reply, who) => {
    const workspaces = await listWorkspacesForUser(app.store.db, who.user.id)
    return sendHtml(
      reply,
      200,
      page(
        'Workspaces',
        <>
          <div class="page-head">
            <h1>Your workspaces</h1>
          </div>
          <ul class="cards workspaces">
            {workspaces.map((w) => (
              <li class="card workspace-choice">
                <div>
                  <h2>{w.name}</h2>
                  <span class="muted">{w.role === 'owner' ? 'Owner' : 'Editor'}</span>
                </div>
                {w.id === who.workspace.id ? (
                  <span class="chip ok" aria-current="true">
                    <Icon name="circle-check" />
                    Current
                  </span>
                ) : (
                  <form method="post" action="/channels/workspace" class="inline">
                    <CsrfField token={who.session.csrfToken} />
                    <input type="hidden" name="workspaceId" value={w.id} />
                    <input type="hidden" name="next" value="/posts" />
                    <button type="submit">Switch to {w.name}</button>
                  </form>
                )}
              </li>
            ))}
          </ul>
        </>,
        { signedIn: account(who) },
      ),
    )
  })
}

const ownersOnly = (reply: Parameters<typeof sendHtml>[0], who: SignedIn) =>
  sendHtml(
    reply,
    403,
    problemPage('Owners only', 'Only an owner of this workspace disconnects its profiles.', {
      signedIn: account(who),
    }),
  )

/** Disconnecting (owners only): a page that asks first, and its POST that deletes the tokens. */
function registerDisconnect(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  // Disconnecting deletes the tokens: a page asks first.
  routes.get<{ Querystring: { connectionId?: string } }>(
    '/channels/disconnect',
    async (request, reply, who) => {
      if (who.workspace.role !== 'owner') return ownersOnly(reply, who)
      const row = (await listConnections(app.store.db, who.workspace.id)).find(
        (c) => c.id === firstValue(request.query.connectionId),
      )
      if (!row)
        return sendHtml(
          reply,
          404,
          problemPage('No such profile', 'That profile is not connected in this workspace.'),
        )
      const network = isNetwork(row.platform) ? networkLabels[row.platform] : row.platform
      return sendHtml(
        reply,
        200,
        page(
          'Disconnect',
          <>
            <div class="page-head">
              <h1>
                Disconnect @{row.username.replace(/^@+/, '')} on {network}?
              </h1>
            </div>
            <div class="card confirm">
              <div class="channel-who">
                <Avatar profile={row} size="large" />
                <p>
                  Herald deletes the stored tokens. Posts queued for this profile will fail until it is
                  connected again.
                </p>
              </div>
              <form method="post" action="/channels/disconnect" class="actions">
                <CsrfField token={who.session.csrfToken} />
                <input type="hidden" name="connectionId" value={row.id} />
                <button type="submit" class="danger">
                  Yes, disconnect
                </button>{' '}
                <a class="button" href="/channels">
                  Keep it
                </a>
              </form>
            </div>
          </>,
          { signedIn: account(who) },
        ),
      )
    },
  )

  routes.post('/channels/disconnect', async (request, reply, who) => {
    if (who.workspace.role !== 'owner') return ownersOnly(reply, who)
    const now = app.clock.now()
    // The tokens are overwritten, not kept: a removed connection cannot be used again, only reconnected.
    await app.store.db
      .updateTable('connections')
      .set({
        status: 'removed',
        credentials: app.vault.sealJson(connectionCredentials(field(request, 'connectionId')), {
          accessToken: '',
        }),
        token_expires_at: null,
        last_error: 'Disconnected from the dashboard',
        updated_at: now,
      })
      .where('id', '=', field(request, 'connectionId'))
      .where('workspace_id', '=', who.workspace.id)
      .execute()
    return reply.redirect('/channels?disconnected=1', 303)
  })
}
