import type { FastifyInstance } from 'fastify'
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
import { channelCard, networkTiles } from './channel-cards.js'
import { emptyState } from './first-run/empty-state.js'
import { simulatedNotice, simulatedProfilesForm } from './first-run/onboarding.js'
import { signedInOf } from './form-guard.js'
import { csrfField, escapeHtml, networkLabels, page, problemPage, sendHtml } from './html.js'
import { account, field, localPath, redirectToLogin, type SignedIn, signedIn } from './request.js'
import { profileAvatar } from './ui/avatar.js'
import { icon } from './ui/icons.js'

async function channelsPage(app: AppContext, runner: ToolRunner, who: SignedIn, notice: string) {
  const db = app.store.db
  const [rows, workspaces] = await Promise.all([
    listConnections(db, who.workspace.id),
    listWorkspacesForUser(db, who.user.id),
  ])
  const csrf = who.session.csrfToken
  const owner = who.workspace.role === 'owner'
  const report = await toolsAs(runner)(who, 'get_account_health', {})
  const health = new Map(report.connections.map((e) => [`${e.platform}:${e.profileId}`, e]))
  const selector =
    workspaces.length > 1
      ? `<form method="post" action="/channels/workspace" class="switch-workspace">${csrfField(csrf)}
<label>Workspace <select name="workspaceId">${workspaces
          .map(
            (w) =>
              `<option value="${escapeHtml(w.id)}"${w.id === who.workspace.id ? ' selected' : ''}>${escapeHtml(w.name)} (${escapeHtml(w.role)})</option>`,
          )
          .join('')}</select></label> <button type="submit">Switch</button></form>`
      : ''
  const pictures = await avatarPaths(app.store.db, who.workspace.id)
  const cards =
    rows.length === 0
      ? emptyState(
          'No channels yet. Every social profile you connect appears here, with whether Herald can still post to it.',
          app.config.sandbox
            ? { html: simulatedProfilesForm(csrf, '/channels') }
            : { href: '#connect', label: 'Connect a profile' },
        )
      : `<ul class="cards channels" aria-label="Connected profiles">
${rows
  .map((row) => {
    const key = `${row.platform}:${row.profile_id}`
    return channelCard(row, health.get(key), owner, pictures.get(key))
  })
  .join('\n')}</ul>`
  // Read again: another process may have set an app up since this one last looked.
  await app.networkApps.refresh()
  const tiles = networkTiles((network) => app.networkApps.canConnect(network), who.administrator)
  // An empty sandbox workspace already says it in the empty state, beside its button.
  const sandbox =
    app.config.sandbox && rows.length > 0
      ? '<p class="muted">Sandbox mode: profiles connect to the network simulators in this Herald, not the real networks.</p>'
      : ''
  return page(
    'Channels',
    `<div class="page-head"><h1>Channels of ${escapeHtml(who.workspace.name)}</h1>${rows.length > 0 ? '<a class="button primary" href="#connect">Add channel</a>' : ''}</div>
${notice}${selector}${sandbox}
${cards}
<h2 id="connect">Add channel</h2>
<p class="muted">Pick a network: Herald asks it for permission to post, then the profile appears above.</p>
${tiles}`,
    { signedIn: account(who) },
  )
}

/** `GET /channels` (the workspace's connections, connect links, workspace selector), disconnect and switch. */
export function registerChannelRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  scope.get('/channels', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/channels')
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
    if (!row) return ''
    const label = isNetwork(row.platform) ? networkLabels[row.platform] : row.platform
    return `<div class="notice"><p>Connected @${escapeHtml(row.username)} on ${escapeHtml(label)}.</p></div>`
  }
  if (query.disconnected)
    return '<div class="notice"><p>The profile was disconnected and its tokens deleted.</p></div>'
  const simulated = simulatedNotice(query)
  return simulated ? `<div class="notice" role="status"><p>${escapeHtml(simulated)}</p></div>` : ''
}

/** Switching the session's workspace, and the switcher page every page links to. */
function registerWorkspaceSwitch(scope: FastifyInstance, app: AppContext) {
  scope.post('/channels/workspace', async (request, reply) => {
    const who = signedInOf(request)
    const workspaceId = field(request, 'workspaceId')
    // A workspace the person is not a member of is ignored, as if it did not exist.
    if (await findMembership(app.store.db, workspaceId, who.user.id))
      await setSessionWorkspace(app.store.db, who.session.id, workspaceId)
    return reply.redirect(localPath(field(request, 'next'), '/channels'), 303)
  })

  // The workspace switcher every page links to: the person's workspaces, the current one marked.
  scope.get('/workspaces', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/workspaces')
    const workspaces = await listWorkspacesForUser(app.store.db, who.user.id)
    const items = workspaces
      .map((w) => {
        const role = `<span class="muted">${w.role === 'owner' ? 'Owner' : 'Editor'}</span>`
        const action =
          w.id === who.workspace.id
            ? `<span class="chip ok" aria-current="true">${icon('circle-check')}Current</span>`
            : `<form method="post" action="/channels/workspace" class="inline">${csrfField(who.session.csrfToken)}<input type="hidden" name="workspaceId" value="${escapeHtml(w.id)}"><input type="hidden" name="next" value="/posts"><button type="submit">Switch to ${escapeHtml(w.name)}</button></form>`
        return `<li class="card workspace-choice"><div><h2>${escapeHtml(w.name)}</h2>${role}</div>${action}</li>`
      })
      .join('\n')
    return sendHtml(
      reply,
      200,
      page(
        'Workspaces',
        `<div class="page-head"><h1>Your workspaces</h1></div><ul class="cards workspaces">${items}</ul>`,
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
  // Disconnecting deletes the tokens: a page asks first.
  scope.get<{ Querystring: { connectionId?: string } }>('/channels/disconnect', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/channels')
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
        `<div class="page-head"><h1>Disconnect @${escapeHtml(row.username.replace(/^@+/, ''))} on ${escapeHtml(network)}?</h1></div>
<div class="card confirm">
<div class="channel-who">${profileAvatar(row, 'large')}<p>Herald deletes the stored tokens. Posts queued for this profile will fail until it is connected again.</p></div>
<form method="post" action="/channels/disconnect" class="actions">${csrfField(who.session.csrfToken)}<input type="hidden" name="connectionId" value="${escapeHtml(row.id)}">
<button type="submit" class="danger">Yes, disconnect</button> <a class="button" href="/channels">Keep it</a></form></div>`,
        { signedIn: account(who) },
      ),
    )
  })

  scope.post('/channels/disconnect', async (request, reply) => {
    const who = signedInOf(request)
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
