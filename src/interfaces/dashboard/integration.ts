import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import type { ConnectedApp } from '../../modules/oauth-server/service.js'
import { listWorkspacesForUser } from '../../platform/db/statements/accounts.js'
import { AppError } from '../../platform/errors.js'
import { csrfField, escapeHtml, page, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { assetUrl } from './ui/assets.js'
import { icon } from './ui/icons.js'

/**
 * AI Integration: the person's API keys (create, list, revoke; a new key is shown once) and ready-to-paste
 * setup for MCP clients, command-line agents and plain HTTP, with this Herald's address filled in.
 */

const PLACEHOLDER = 'hk_your_key_here'

const when = (ms: number | string | null): string =>
  ms === null ? 'never' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ')

/**
 * The one-line way to add Herald to each assistant that signs in with OAuth (no key to paste: the assistant
 * discovers Herald's authorization server from `/mcp` and the person consents in this dashboard).
 */
export function oauthSetupLines(baseUrl: string) {
  const mcpUrl = `${baseUrl}/mcp`
  return {
    claude: mcpUrl,
    chatgpt: mcpUrl,
    claudeCode: `claude mcp add --transport http herald ${mcpUrl}`,
    vscode: `code --add-mcp '${JSON.stringify({ name: 'herald', type: 'http', url: mcpUrl })}'`,
  }
}

/** The setup snippets, with `key` filled in (the new key once, the placeholder otherwise). */
export function setupSnippets(baseUrl: string, key: string) {
  const mcpUrl = `${baseUrl}/mcp`
  const desktop = JSON.stringify(
    { mcpServers: { herald: { type: 'http', url: mcpUrl, headers: { 'x-api-key': key } } } },
    null,
    2,
  )
  const cli = `claude mcp add --transport http herald ${mcpUrl} --header "x-api-key: ${key}"`
  const curl = `curl -s -X POST ${baseUrl}/api/tools/get_user_info -H "x-api-key: ${key}" -H "content-type: application/json" -d '{}'`
  return { desktop, cli, curl }
}

function snippet(id: string, label: string, text: string) {
  return `<div class="snippet"><h4 id="${id}-title">${escapeHtml(label)}</h4>
<div class="snippet-body"><pre tabindex="0" aria-labelledby="${id}-title"><code id="${id}">${escapeHtml(text)}</code></pre>
<button type="button" data-copy="${id}" aria-describedby="${id}-title">${icon('copy')}Copy</button></div></div>`
}

function connectedAppsSection(apps: ConnectedApp[], csrf: string) {
  if (apps.length === 0)
    return '<p class="muted">No app is connected. Add Herald to an assistant with the address above; it asks you here before it gets access.</p>'
  const rows = apps
    .map(
      (
        a,
      ) => `<tr><td>${escapeHtml(a.name)}${a.registered ? ' <span class="muted">(unverified)</span>' : ''}<br><span class="muted">${escapeHtml(a.redirectHost)}</span></td>
<td>${escapeHtml(a.workspaceName)}</td><td>${a.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')}</td>
<td>${escapeHtml(when(a.createdAt))}</td><td>${escapeHtml(when(a.firstUsedAt))}</td><td>${escapeHtml(when(a.lastUsedAt))}</td>
<td><form method="post" action="/integration/apps/revoke" class="inline">${csrfField(csrf)}<input type="hidden" name="grantId" value="${escapeHtml(a.grantId)}">
<button type="submit" class="danger" aria-label="Revoke ${escapeHtml(a.name)}">Revoke</button></form></td></tr>`,
    )
    .join('\n')
  return `<div class="table-card" tabindex="0" role="region" aria-label="Connected apps"><table><caption class="muted">Apps you authorized (each acts as you, in one workspace)</caption><thead><tr><th scope="col">App</th><th scope="col">Workspace</th><th scope="col">Scopes</th><th scope="col">Authorized (UTC)</th><th scope="col">First used</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>
${rows}</tbody></table></div>`
}

async function integrationPage(
  app: AppContext,
  who: SignedIn,
  shown: { key?: string; notice?: string; problem?: string } = {},
) {
  const [keys, workspaces, apps] = await Promise.all([
    app.accounts.listKeys({ email: who.user.email }),
    listWorkspacesForUser(app.store.db, who.user.id),
    app.oauth ? app.oauth.connectedApps(who.user.id) : Promise.resolve([]),
  ])
  const csrf = who.session.csrfToken
  const names = new Map(workspaces.map((w) => [w.id, w.name]))
  const active = keys.filter((k) => !k.revoked)
  const rows = active
    .map(
      (k) => `<tr><td>${escapeHtml(k.name)}</td><td><code>${escapeHtml(k.prefix)}…</code></td>
<td>${escapeHtml(names.get(k.defaultWorkspaceId) ?? k.defaultWorkspaceId)}</td><td>${escapeHtml(when(k.createdAt))}</td><td>${escapeHtml(when(k.lastUsedAt))}</td>
<td><form method="post" action="/integration/keys/revoke" class="inline">${csrfField(csrf)}<input type="hidden" name="keyId" value="${escapeHtml(k.id)}">
<button type="submit" class="danger" aria-label="Revoke the key ${escapeHtml(k.name)}">Revoke</button></form></td></tr>`,
    )
    .join('\n')
  const table = active.length
    ? `<div class="table-card" tabindex="0" role="region" aria-label="API keys"><table><caption class="muted">Your keys (each acts as you)</caption><thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Default workspace</th><th scope="col">Created (UTC)</th><th scope="col">Last used (UTC)</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>
${rows}</tbody></table></div>`
    : '<p class="muted">You have no API key yet.</p>'
  const created = shown.key
    ? `<div class="notice" role="status"><p><strong>Your new key. It is shown once: copy it now.</strong></p>
<label for="new-key">API key</label><div class="copy-line"><input id="new-key" type="text" readonly value="${escapeHtml(shown.key)}" size="48">
<button type="button" data-copy="new-key">Copy</button></div></div>`
    : ''
  const notice = shown.notice
    ? `<div class="notice" role="status"><p>${escapeHtml(shown.notice)}</p></div>`
    : ''
  const problem = shown.problem
    ? `<div class="problem" role="alert"><p>${escapeHtml(shown.problem)}</p></div>`
    : ''
  const options = workspaces
    .map(
      (w) =>
        `<option value="${escapeHtml(w.id)}"${w.id === who.workspace.id ? ' selected' : ''}>${escapeHtml(w.name)}</option>`,
    )
    .join('')
  const snippets = setupSnippets(app.config.publicBaseUrl, shown.key ?? PLACEHOLDER)
  const lines = oauthSetupLines(app.config.publicBaseUrl)
  const mcpUrl = `${app.config.publicBaseUrl}/mcp`
  return page(
    'AI Integration',
    `<div class="page-head"><h1>AI Integration</h1></div>
<p class="lead">Let an assistant such as Claude, ChatGPT, Claude Code or VS Code schedule and read your posts. It signs in to Herald and asks you on a Herald page first; then it acts as you, in the workspace you choose. An API key does the same for an agent or a script of your own.</p>
${problem}${notice}${created}
<section class="card" aria-labelledby="mcp-title"><h2 id="mcp-title">${icon('plug')}This Herald's address for assistants</h2>
<p class="muted">Paste it where the assistant asks for a connector or server address; it asks you to allow it the first time.</p>
<div class="copy-line"><input id="mcp-url" type="text" readonly value="${escapeHtml(mcpUrl)}" aria-labelledby="mcp-title"><button type="button" data-copy="mcp-url" aria-describedby="mcp-title">${icon('copy')}Copy</button></div>
</section>
<section class="card" aria-labelledby="apps-title"><h2 id="apps-title">${icon('bot')}Connected apps</h2>
${connectedAppsSection(apps, csrf)}</section>
<section class="card" aria-labelledby="keys-title"><h2 id="keys-title">${icon('key-round')}API keys</h2>
${table}
<h3>Create a key</h3>
<form method="post" action="/integration/keys" class="key-form">${csrfField(csrf)}
<label>Name <input type="text" name="name" required maxlength="80" placeholder="For example: Claude on my laptop"></label>
<label>Default workspace <select name="workspaceId">${options}</select></label>
<button type="submit" class="primary">Create key</button></form></section>
<section class="card" aria-labelledby="setup-title"><h2 id="setup-title">Set up a client</h2>
<h3>Assistants that sign in</h3>
${snippet('setup-claude', 'Claude (claude.ai or Claude Desktop): Settings → Connectors → Add custom connector, with this URL', lines.claude)}
${snippet('setup-chatgpt', 'ChatGPT: Settings → Apps & Connectors → Create (developer mode), MCP server URL, authentication OAuth', lines.chatgpt)}
${snippet('setup-claude-code', 'Claude Code (one line; then /mcp to sign in)', lines.claudeCode)}
${snippet('setup-vscode', 'VS Code (one line; it asks you to sign in on first use)', lines.vscode)}
<h3>With an API key</h3>
<p>${shown.key ? 'Your new key is filled in below.' : `Put your key where <code>${PLACEHOLDER}</code> stands.`} Herald answers over MCP at <code>${escapeHtml(mcpUrl)}</code> and over REST at <code>${escapeHtml(app.config.publicBaseUrl)}/api/tools</code>, with Herald's 17 tools.</p>
${snippet('setup-desktop', 'Desktop MCP clients (JSON configuration)', snippets.desktop)}
${snippet('setup-cli', 'Command-line agents (one line)', snippets.cli)}
${snippet('setup-curl', 'Any HTTP client (curl)', snippets.curl)}
<p>Reference: <a href="/docs">every tool, its fields and errors</a> · <a href="/openapi.json">OpenAPI document</a></p>
</section>
<script type="module" src="${assetUrl('copy.js')}"></script>`,
    { signedIn: account(who) },
  )
}

export function registerIntegrationRoutes(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  routes.get('/integration', async (_request, reply, who) => {
    return sendHtml(reply, 200, await integrationPage(app, who))
  })

  routes.post('/integration/keys', async (request, reply, who) => {
    const name = field(request, 'name').trim()
    if (name.length === 0 || name.length > 80)
      return sendHtml(
        reply,
        400,
        await integrationPage(app, who, { problem: 'Give the key a name of 1 to 80 characters.' }),
      )
    try {
      const created = await app.accounts.createKey({
        email: who.user.email,
        workspaceId: field(request, 'workspaceId') || who.workspace.id,
        name,
      })
      return sendHtml(reply, 200, await integrationPage(app, who, { key: created.apiKey }))
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      return sendHtml(
        reply,
        400,
        await integrationPage(app, who, { problem: 'Choose one of your workspaces.' }),
      )
    }
  })

  routes.post('/integration/apps/revoke', async (request, reply, who) => {
    const grantId = field(request, 'grantId')
    const app_ = (await app.oauth?.connectedApps(who.user.id))?.find((a) => a.grantId === grantId)
    // A person revokes only their own apps; another person's grant does not exist for them.
    if (!app_ || !(await app.oauth?.revokeGrant(grantId, who.user.id)))
      return sendHtml(
        reply,
        404,
        await integrationPage(app, who, { problem: 'You have no connected app with that id.' }),
      )
    return sendHtml(
      reply,
      200,
      await integrationPage(app, who, {
        notice: `Revoked ${app_.name}; its tokens are refused from now on.`,
      }),
    )
  })

  routes.post('/integration/keys/revoke', async (request, reply, who) => {
    const id = field(request, 'keyId')
    // A person revokes only their own keys; another person's key id does not exist for them.
    const own = (await app.accounts.listKeys({ email: who.user.email })).find(
      (k) => k.id === id && !k.revoked,
    )
    if (!own)
      return sendHtml(
        reply,
        404,
        await integrationPage(app, who, { problem: 'You have no active key with that id.' }),
      )
    await app.accounts.revokeKey({ id })
    return sendHtml(
      reply,
      200,
      await integrationPage(app, who, {
        notice: `Revoked the key "${own.name}"; calls with it are refused from now on.`,
      }),
    )
  })
}
