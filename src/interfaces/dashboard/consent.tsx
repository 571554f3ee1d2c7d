import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import { hashArtifactId } from '../../modules/oauth-server/adapter.js'
import { CLIENT_NAME_MAX, consentPath } from '../../modules/oauth-server/provider.js'
import { parseScopes, type Scope, scopeWords } from '../../modules/oauth-server/scopes.js'
import type { OAuthServer } from '../../modules/oauth-server/service.js'
import { findMembership, listWorkspacesForUser } from '../../platform/db/statements/accounts.js'
import { insertGrant, keepArtifact } from '../../platform/db/statements/oauth.js'
import { page, problemPage, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { CsrfField, Messages } from './ui/parts.js'

/**
 * The consent page of Herald's OAuth server. The library sends the browser here with an interaction (its
 * cookie is scoped to this path); the person signs in with the dashboard's own sign-in if needed, sees which
 * app asks (its name, the host it will be sent back to, "unverified" when the app registered itself), picks
 * the workspace the app will act in, reads the scopes in words, and allows or denies. Deny sends the app
 * `access_denied`; allow records the grant (person, workspace, scopes) and lets the library issue the code.
 */

interface PendingRequest {
  uid: string
  clientId: string
  clientName: string
  /** True when the client was registered dynamically (its name is only its own claim). */
  registered: boolean
  redirectUri: string
  redirectHost: string
  resource: string
  /** True when the request names more than one resource: a grant is for one, so it is refused. */
  manyResources: boolean
  scopes: Scope[]
}

/** What the interaction asks for, or a sentence saying why it cannot be shown. */
async function pendingRequest(
  oauth: OAuthServer,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<PendingRequest | string> {
  let details: Awaited<ReturnType<OAuthServer['provider']['interactionDetails']>>
  try {
    details = await oauth.provider.interactionDetails(request.raw, reply.raw)
  } catch {
    return 'This authorization request has expired or was already answered. Start again from the app.'
  }
  const params = details.params as Record<string, string | undefined>
  const clientId = params.client_id ?? ''
  const client = await oauth.provider.Client.find(clientId)
  if (!client) return 'The app behind this request is no longer known. Start again from the app.'
  const redirectUri = params.redirect_uri ?? ''
  let redirectHost = redirectUri
  try {
    const url = new URL(redirectUri)
    redirectHost = url.host || `${url.protocol}…`
  } catch {}
  const metadata = client.metadata() as { client_name?: string }
  const asked = parseScopes(params.scope)
  return {
    uid: details.uid,
    clientId,
    clientName: metadata.client_name?.trim() || clientId,
    registered: !(client as unknown as { clientIdMetadataDocument?: boolean }).clientIdMetadataDocument,
    redirectUri,
    redirectHost,
    resource: Array.isArray(params.resource) ? String(params.resource[0]) : (params.resource ?? ''),
    manyResources: Array.isArray(params.resource) && new Set(params.resource).size > 1,
    // An app that names no scope Herald knows asks for read access only.
    scopes: asked.length ? asked : ['posts:read'],
  }
}

/** The redirect URI's origin, for the page's form-action (the consent answer ends there). */
function formActionFor(redirectUri: string): string[] {
  try {
    const url = new URL(redirectUri)
    return url.protocol === 'http:' || url.protocol === 'https:' ? [url.origin] : [url.protocol]
  } catch {
    return []
  }
}

async function consentPage(app: AppContext, who: SignedIn, pending: PendingRequest, problem?: string) {
  const workspaces = await listWorkspacesForUser(app.store.db, who.user.id)
  return page(
    'Allow access',
    <>
      <div class="page-head">
        <h1>Allow {pending.clientName} to use Herald?</h1>
      </div>
      <Messages problem={problem} />
      <div class="card consent">
        {pending.registered ? (
          <p class="problem">
            <strong>Unverified app.</strong> It registered itself with Herald, so the name above is only its
            own claim. Allow it only if you started this from an app you trust.
          </p>
        ) : (
          <p class="muted">
            Identified by its address <code>{pending.clientId}</code>.
          </p>
        )}
        <p>
          After you answer, you go back to <strong>{pending.redirectHost}</strong>.
        </p>
        <form method="post" action={consentPath(pending.uid)}>
          <CsrfField token={who.session.csrfToken} />
          <label>
            Workspace it acts in{' '}
            <select name="workspaceId">
              {workspaces.map((w) => (
                <option value={w.id} selected={w.id === who.workspace.id}>
                  {w.name} ({w.role})
                </option>
              ))}
            </select>
          </label>
          <p>It will be able to act as you ({who.user.email}) in that workspace only, to:</p>
          <ul class="scopes">
            {pending.scopes.map((scope) => (
              <li>
                <strong>{scope}</strong>: {scopeWords[scope]}
              </li>
            ))}
          </ul>
          <p class="muted">You can see and revoke this app at any time on the AI Integration page.</p>
          <div class="actions">
            <button type="submit" name="decision" value="allow" class="primary">
              Allow
            </button>
            <button type="submit" name="decision" value="deny">
              Deny
            </button>
          </div>
        </form>
      </div>
    </>,
    { signedIn: account(who) },
  )
}

export function registerConsentRoutes(scope: FastifyInstance, app: AppContext, oauth: OAuthServer) {
  const routes = signedInRoutes(scope)
  routes.get<{ Params: { uid: string } }>('/oauth/consent/:uid', async (request, reply, who) => {
    const pending = await pendingRequest(oauth, request, reply)
    if (typeof pending === 'string') return sendHtml(reply, 400, problemPage('Request expired', pending))
    // A grant (and its tokens) is for one resource. Consenting to the first of several would leave the library
    // asking again for the others, over and over; the app is told instead (RFC 8707 `invalid_target`).
    if (pending.manyResources) {
      reply.hijack()
      await oauth.provider.interactionFinished(
        request.raw,
        reply.raw,
        { error: 'invalid_target', error_description: 'Ask for one resource per authorization' },
        { mergeWithLastSubmission: false },
      )
      return
    }
    return sendHtml(reply, 200, await consentPage(app, who, pending), {
      formActions: formActionFor(pending.redirectUri),
    })
  })

  routes.post<{ Params: { uid: string } }>('/oauth/consent/:uid', async (request, reply, who) => {
    const pending = await pendingRequest(oauth, request, reply)
    if (typeof pending === 'string') return sendHtml(reply, 400, problemPage('Request expired', pending))
    const provider = oauth.provider
    if (field(request, 'decision') !== 'allow' || pending.manyResources) {
      reply.hijack()
      await provider.interactionFinished(
        request.raw,
        reply.raw,
        { error: 'access_denied', error_description: 'The person declined the request' },
        { mergeWithLastSubmission: false },
      )
      return
    }
    const workspaceId = field(request, 'workspaceId')
    if (!(await findMembership(app.store.db, workspaceId, who.user.id)))
      return sendHtml(reply, 400, await consentPage(app, who, pending, 'Choose one of your workspaces.'), {
        formActions: formActionFor(pending.redirectUri),
      })
    const grant = new provider.Grant({ accountId: who.user.id, clientId: pending.clientId })
    // The scopes are listed in the server's scopes too (so its metadata advertises them), which makes the
    // library look for them among the grant's own scopes as well as the resource's.
    grant.addOIDCScope(pending.scopes.join(' '))
    grant.addResourceScope(pending.resource, pending.scopes.join(' '))
    const grantId = await grant.save()
    await insertGrant(app.store.db, {
      id: grantId,
      user_id: who.user.id,
      workspace_id: workspaceId,
      client_id: pending.clientId,
      client_name: pending.clientName.slice(0, CLIENT_NAME_MAX),
      redirect_host: pending.redirectHost.slice(0, 200),
      registered: pending.registered ? 1 : 0,
      scopes: pending.scopes.join(' '),
      created_at: app.clock.now(),
    })
    // A registration someone authorized is kept; the unused ones expire (src/modules/oauth-server/adapter.ts).
    if (pending.registered) await keepArtifact(app.store.db, 'Client', hashArtifactId(pending.clientId))
    reply.hijack()
    await provider.interactionFinished(
      request.raw,
      reply.raw,
      { login: { accountId: who.user.id }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    )
  })
}
