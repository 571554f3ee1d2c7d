import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { AppError } from '../errors.js'
import { listWorkspacesForUser } from '../store/accounts.js'
import { csrfField, escapeHtml, page, sendHtml } from './html.js'
import {
  account,
  csrfMatches,
  field,
  redirectToLogin,
  refuseCsrf,
  type SignedIn,
  signedIn,
} from './request.js'

/**
 * AI Integration: the person's API keys (create, list, revoke; a new key is shown once) and ready-to-paste
 * setup for MCP clients, command-line agents and plain HTTP, with this Herald's address filled in.
 */

const PLACEHOLDER = 'hk_your_key_here'

const when = (ms: number | string | null) =>
  ms === null ? 'never' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ')

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
  return `<h3 id="${id}-title">${escapeHtml(label)}</h3>
<pre><code id="${id}">${escapeHtml(text)}</code></pre>
<button type="button" data-copy="${id}" aria-describedby="${id}-title">Copy</button>`
}

async function integrationPage(
  app: AppContext,
  who: SignedIn,
  shown: { key?: string; notice?: string; problem?: string } = {},
) {
  const [keys, workspaces] = await Promise.all([
    app.accounts.listKeys({ email: who.user.email }),
    listWorkspacesForUser(app.store.db, who.user.id),
  ])
  const csrf = who.session.csrfToken
  const names = new Map(workspaces.map((w) => [w.id, w.name]))
  const active = keys.filter((k) => !k.revoked)
  const rows = active
    .map(
      (k) => `<tr><td>${escapeHtml(k.name)}</td><td><code>${escapeHtml(k.prefix)}…</code></td>
<td>${escapeHtml(names.get(k.defaultWorkspaceId) ?? k.defaultWorkspaceId)}</td><td>${escapeHtml(when(k.createdAt))}</td><td>${escapeHtml(when(k.lastUsedAt))}</td>
<td><form method="post" action="/integration/keys/revoke" class="inline">${csrfField(csrf)}<input type="hidden" name="keyId" value="${escapeHtml(k.id)}">
<button type="submit" aria-label="Revoke the key ${escapeHtml(k.name)}">Revoke</button></form></td></tr>`,
    )
    .join('\n')
  const table = active.length
    ? `<div class="scroll"><table><caption class="muted">Your keys (each acts as you)</caption><thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Default workspace</th><th scope="col">Created (UTC)</th><th scope="col">Last used (UTC)</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>
${rows}</tbody></table></div>`
    : '<p class="muted">You have no API key yet.</p>'
  const created = shown.key
    ? `<div class="notice" role="status"><p><strong>Your new key. It is shown once: copy it now.</strong></p>
<label for="new-key">API key</label><input id="new-key" type="text" readonly value="${escapeHtml(shown.key)}" size="48">
<button type="button" data-copy="new-key">Copy</button></div>`
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
  return page(
    'AI Integration',
    `<h1>AI Integration</h1>
<p>An API key lets an agent or a script use Herald's 17 tools as you, over MCP (<code>${escapeHtml(app.config.publicBaseUrl)}/mcp</code>) or REST.</p>
${problem}${notice}${created}
<h2>Create a key</h2>
<form method="post" action="/integration/keys">${csrfField(csrf)}
<label>Name <input type="text" name="name" required maxlength="80" placeholder="For example: Claude on my laptop"></label>
<label>Default workspace <select name="workspaceId">${options}</select></label>
<button type="submit">Create key</button></form>
<h2>Your keys</h2>
${table}
<h2>Set up a client</h2>
<p>${shown.key ? 'Your new key is filled in below.' : `Put your key where <code>${PLACEHOLDER}</code> stands.`}</p>
${snippet('setup-desktop', 'Desktop MCP clients (JSON configuration)', snippets.desktop)}
${snippet('setup-cli', 'Command-line agents (one line)', snippets.cli)}
${snippet('setup-curl', 'Any HTTP client (curl)', snippets.curl)}
<p>Reference: <a href="/docs">every tool, its fields and errors</a> · <a href="/openapi.json">OpenAPI document</a></p>
<script src="/dashboard/copy.js"></script>`,
    { signedIn: account(who) },
  )
}

/** Copies the text of the element a `data-copy` button names; the page works without it. */
const COPY_SCRIPT = `for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy)
    if (!target) return
    await navigator.clipboard.writeText('value' in target ? target.value : target.textContent)
    button.textContent = 'Copied'
  })
}
`

export function registerIntegrationRoutes(scope: FastifyInstance, app: AppContext) {
  scope.get('/dashboard/copy.js', async (_request, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(COPY_SCRIPT),
  )

  scope.get('/integration', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/integration')
    return sendHtml(reply, 200, await integrationPage(app, who))
  })

  scope.post('/integration/keys', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/integration')
    if (!csrfMatches(request, who.session.csrfToken)) return refuseCsrf(reply)
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

  scope.post('/integration/keys/revoke', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/integration')
    if (!csrfMatches(request, who.session.csrfToken)) return refuseCsrf(reply)
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
