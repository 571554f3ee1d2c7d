import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import type { ConnectedApp } from '../../modules/oauth-server/service.js'
import { listWorkspacesForUser } from '../../platform/db/statements/accounts.js'
import { AppError } from '../../platform/errors.js'
import { page, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { assetUrl } from './ui/assets.js'
import { CsrfField, Icon, Messages, TableCard } from './ui/parts.js'

/**
 * AI Integration: the person's API keys (create, list, revoke; a new key is shown once) and ready-to-paste
 * setup for MCP clients, command-line agents and plain HTTP, with this Herald's address filled in.
 */

const PLACEHOLDER = 'hk_your_key_here'

type ApiKeyRow = Awaited<ReturnType<AppContext['accounts']['listKeys']>>[number]

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

function Snippet({ id, label, text }: { id: string; label: string; text: string }) {
  return (
    <div class="snippet">
      <h4 id={`${id}-title`}>{label}</h4>
      <div class="snippet-body">
        {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the focusable block a keyboard scrolls is named by its heading. */}
        <pre tabindex={0} aria-labelledby={`${id}-title`}>
          <code id={id}>{text}</code>
        </pre>
        <button type="button" data-copy={id} aria-describedby={`${id}-title`}>
          <Icon name="copy" />
          Copy
        </button>
      </div>
    </div>
  )
}

/** A revoke button's form: the thing to revoke by its field and id. */
function RevokeForm(props: { action: string; field: string; id: string; label: string; csrf: string }) {
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfField token={props.csrf} />
      <input type="hidden" name={props.field} value={props.id} />
      <button type="submit" class="danger" aria-label={props.label}>
        Revoke
      </button>
    </form>
  )
}

function ConnectedApps({ apps, csrf }: { apps: ConnectedApp[]; csrf: string }) {
  if (apps.length === 0)
    return (
      <p class="muted">
        No app is connected. Add Herald to an assistant with the address above; it asks you here before it
        gets access.
      </p>
    )
  return (
    <TableCard label="Connected apps">
      <table>
        <caption class="muted">Apps you authorized (each acts as you, in one workspace)</caption>
        <thead>
          <tr>
            <th scope="col">App</th>
            <th scope="col">Workspace</th>
            <th scope="col">Scopes</th>
            <th scope="col">Authorized (UTC)</th>
            <th scope="col">First used</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span class="muted">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {apps.map((a) => (
            <tr>
              <td>
                {a.name}
                {a.registered ? (
                  <>
                    {' '}
                    <span class="muted">(unverified)</span>
                  </>
                ) : null}
                <br />
                <span class="muted">{a.redirectHost}</span>
              </td>
              <td>{a.workspaceName}</td>
              <td>{a.scopes.flatMap((scope, i) => [...(i ? [' '] : []), <code>{scope}</code>])}</td>
              <td>{when(a.createdAt)}</td>
              <td>{when(a.firstUsedAt)}</td>
              <td>{when(a.lastUsedAt)}</td>
              <td>
                <RevokeForm
                  action="/integration/apps/revoke"
                  field="grantId"
                  id={a.grantId}
                  label={`Revoke ${a.name}`}
                  csrf={csrf}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableCard>
  )
}

function KeysTable({ keys, names, csrf }: { keys: ApiKeyRow[]; names: Map<string, string>; csrf: string }) {
  if (keys.length === 0) return <p class="muted">You have no API key yet.</p>
  return (
    <TableCard label="API keys">
      <table>
        <caption class="muted">Your keys (each acts as you)</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Default workspace</th>
            <th scope="col">Created (UTC)</th>
            <th scope="col">Last used (UTC)</th>
            <th scope="col">
              <span class="muted">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>{names.get(k.defaultWorkspaceId) ?? k.defaultWorkspaceId}</td>
              <td>{when(k.createdAt)}</td>
              <td>{when(k.lastUsedAt)}</td>
              <td>
                <RevokeForm
                  action="/integration/keys/revoke"
                  field="keyId"
                  id={k.id}
                  label={`Revoke the key ${k.name}`}
                  csrf={csrf}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableCard>
  )
}

/** A key just made, shown once with a copy button. */
const NewKey = ({ value }: { value: string }) => (
  <div class="notice" role="status">
    <p>
      <strong>Your new key. It is shown once: copy it now.</strong>
    </p>
    <label for="new-key">API key</label>
    <div class="copy-line">
      <input id="new-key" type="text" readonly value={value} size={48} />
      <button type="button" data-copy="new-key">
        Copy
      </button>
    </div>
  </div>
)

function SetupCard({
  baseUrl,
  mcpUrl,
  shownKey,
}: {
  baseUrl: string
  mcpUrl: string
  shownKey?: string | undefined
}) {
  const snippets = setupSnippets(baseUrl, shownKey ?? PLACEHOLDER)
  const lines = oauthSetupLines(baseUrl)
  return (
    <section class="card" aria-labelledby="setup-title">
      <h2 id="setup-title">Set up a client</h2>
      <h3>Assistants that sign in</h3>
      <Snippet
        id="setup-claude"
        label="Claude (claude.ai or Claude Desktop): Settings → Connectors → Add custom connector, with this URL"
        text={lines.claude}
      />
      <Snippet
        id="setup-chatgpt"
        label="ChatGPT: Settings → Apps & Connectors → Create (developer mode), MCP server URL, authentication OAuth"
        text={lines.chatgpt}
      />
      <Snippet
        id="setup-claude-code"
        label="Claude Code (one line; then /mcp to sign in)"
        text={lines.claudeCode}
      />
      <Snippet
        id="setup-vscode"
        label="VS Code (one line; it asks you to sign in on first use)"
        text={lines.vscode}
      />
      <h3>With an API key</h3>
      <p>
        {shownKey ? (
          'Your new key is filled in below.'
        ) : (
          <>
            Put your key where <code>{PLACEHOLDER}</code> stands.
          </>
        )}{' '}
        Herald answers over MCP at <code>{mcpUrl}</code> and over REST at <code>{baseUrl}/api/tools</code>,
        with Herald's 17 tools.
      </p>
      <Snippet id="setup-desktop" label="Desktop MCP clients (JSON configuration)" text={snippets.desktop} />
      <Snippet id="setup-cli" label="Command-line agents (one line)" text={snippets.cli} />
      <Snippet id="setup-curl" label="Any HTTP client (curl)" text={snippets.curl} />
      <p>
        Reference: <a href="/docs">every tool, its fields and errors</a> ·{' '}
        <a href="/openapi.json">OpenAPI document</a>
      </p>
    </section>
  )
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
  const mcpUrl = `${app.config.publicBaseUrl}/mcp`
  return page(
    'AI Integration',
    <>
      <div class="page-head">
        <h1>AI Integration</h1>
      </div>
      <p class="lead">
        Let an assistant such as Claude, ChatGPT, Claude Code or VS Code schedule and read your posts. It
        signs in to Herald and asks you on a Herald page first; then it acts as you, in the workspace you
        choose. An API key does the same for an agent or a script of your own.
      </p>
      <Messages problem={shown.problem} />
      <Messages notice={shown.notice} />
      {shown.key ? <NewKey value={shown.key} /> : null}
      <section class="card" aria-labelledby="mcp-title">
        <h2 id="mcp-title">
          <Icon name="plug" />
          This Herald's address for assistants
        </h2>
        <p class="muted">
          Paste it where the assistant asks for a connector or server address; it asks you to allow it the
          first time.
        </p>
        <div class="copy-line">
          <input id="mcp-url" type="text" readonly value={mcpUrl} aria-labelledby="mcp-title" />
          <button type="button" data-copy="mcp-url" aria-describedby="mcp-title">
            <Icon name="copy" />
            Copy
          </button>
        </div>
      </section>
      <section class="card" aria-labelledby="apps-title">
        <h2 id="apps-title">
          <Icon name="bot" />
          Connected apps
        </h2>
        <ConnectedApps apps={apps} csrf={csrf} />
      </section>
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">
          <Icon name="key-round" />
          API keys
        </h2>
        <KeysTable keys={keys.filter((k) => !k.revoked)} names={names} csrf={csrf} />
        <h3>Create a key</h3>
        <form method="post" action="/integration/keys" class="key-form">
          <CsrfField token={csrf} />
          <label>
            Name{' '}
            <input
              type="text"
              name="name"
              required
              maxlength={80}
              placeholder="For example: Claude on my laptop"
            />
          </label>
          <label>
            Default workspace{' '}
            <select name="workspaceId">
              {workspaces.map((w) => (
                <option value={w.id} selected={w.id === who.workspace.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="primary">
            Create key
          </button>
        </form>
      </section>
      <SetupCard baseUrl={app.config.publicBaseUrl} mcpUrl={mcpUrl} shownKey={shown.key} />
      <script type="module" src={assetUrl('copy.js')} />
    </>,
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
