import type { FastifyInstance } from 'fastify'
import { isNetwork, networkLabels } from '../../core/networks.js'
import { deleteWorkspace, type WorkspaceDeletion } from '../../modules/accounts/delete-workspace.js'
import { personalExport } from '../../modules/accounts/personal-export.js'
import type { ConnectionRevocation } from '../../modules/accounts/revoke-access.js'
import type { AppContext } from '../../modules/app-context.js'
import { fileStamp } from '../../platform/db/sqlite-copy.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import { page, problemPage, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { CsrfField, Messages } from './ui/parts.js'

/**
 * A person's data out of Herald, and an owner deleting a workspace with its data: the Workspace page's
 * "Your data" card links here. Deleting asks first, on a page of its own, for the workspace's name.
 */

export function DataCards({ who }: { who: SignedIn }) {
  const owner = who.workspace.role === 'owner'
  return (
    <section class="card" aria-labelledby="your-data">
      <h2 id="your-data">Your data</h2>
      <p>
        <a class="button" href="/account/export" download>
          Download everything Herald holds about you
        </a>
      </p>
      <p class="muted">
        One JSON file: your account, sessions, keys and authorised apps, and each of your workspaces with its
        people, profiles and posts (no token or secret).
      </p>
      {owner ? (
        <>
          <p>
            <a class="button danger" href="/workspace/delete">
              Delete this workspace…
            </a>
          </p>
          <p class="muted">
            Deletes its posts, profiles and their tokens, webhooks, media and credits, for everyone in it.
          </p>
        </>
      ) : null}
    </section>
  )
}

function confirmPage(who: SignedIn, problem?: string) {
  const name = who.workspace.name
  return page(
    'Delete workspace',
    <>
      <div class="page-head">
        <h1>Delete {name}?</h1>
      </div>
      <Messages problem={problem} />
      <div class="card confirm">
        <p>
          Herald deletes every post of {name}, its connected profiles and their tokens, its webhook endpoints,
          hosted media, posting queues and credits, for everyone in it. It cannot be undone; a backup taken
          before can bring it back.
        </p>
        <p>
          First Herald asks each profile's network to withdraw its access, where the network allows it; the
          next page says what each one answered. Where a network does not allow it or does not answer, remove
          Herald in that network's settings.
        </p>
        <form method="post" action="/workspace/delete" class="stack">
          <CsrfField token={who.session.csrfToken} />
          <label>
            Type the workspace's name, <strong>{name}</strong>, to confirm{' '}
            <input name="confirmName" required autocomplete="off" />
          </label>
          <div class="actions">
            <button type="submit" class="danger">
              Delete {name}
            </button>{' '}
            <a class="button" href="/workspace">
              Keep it
            </a>
          </div>
        </form>
      </div>
    </>,
    { signedIn: account(who) },
  )
}

/** What the deletion did, each profile with what its network answered about Herald's access. */
function deletedPage(name: string, done: WorkspaceDeletion) {
  const withdrawn = done.connections.filter((c) => c.outcome === 'revoked').length
  return page(
    'Workspace deleted',
    <>
      <div class="page-head">
        <h1>{name} is deleted</h1>
      </div>
      <div class="card">
        <p>
          Herald deleted {done.posts} {done.posts === 1 ? 'post' : 'posts'}, {done.connections.length}{' '}
          connected {done.connections.length === 1 ? 'profile' : 'profiles'} with their tokens and{' '}
          {done.mediaFiles} hosted {done.mediaFiles === 1 ? 'file' : 'files'}.
        </p>
        {done.connections.length ? (
          <>
            <h2>Access at the networks</h2>
            <p>
              Withdrawn at the network for {withdrawn} of {done.connections.length}.
            </p>
            <ul class="stack">
              {done.connections.map((c) => (
                <RevocationLine connection={c} />
              ))}
            </ul>
          </>
        ) : null}
        <p>
          <a class="button" href="/login">
            Sign in to another workspace
          </a>
        </p>
      </div>
    </>,
  )
}

function RevocationLine({ connection }: { connection: ConnectionRevocation }) {
  const network = isNetwork(connection.platform) ? networkLabels[connection.platform] : connection.platform
  const said =
    connection.outcome === 'revoked'
      ? `${network} confirmed Herald's access is withdrawn.`
      : connection.reason
  return (
    <li>
      <strong>
        {network} @{connection.username}
      </strong>
      : {said}
    </li>
  )
}

const ownersOnly = (who: SignedIn) =>
  problemPage('Owners only', 'Only an owner deletes a workspace.', { signedIn: account(who) })

export function registerWorkspaceDataRoutes(scope: FastifyInstance, app: AppContext) {
  const { get, post } = signedInRoutes(scope)
  get('/account/export', async (_request, reply, who) => {
    const now = app.clock.now()
    const data = await personalExport(app.store.db, who.user.id, now)
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="herald-my-data-${fileStamp(now)}.json"`)
      .header('cache-control', 'no-store')
      .send(JSON.stringify(data, null, 2))
  })

  get('/workspace/delete', async (_request, reply, who) => {
    if (who.workspace.role !== 'owner') return sendHtml(reply, 403, ownersOnly(who))
    return sendHtml(reply, 200, confirmPage(who))
  })

  post('/workspace/delete', async (request, reply, who) => {
    if (who.workspace.role !== 'owner') return sendHtml(reply, 403, ownersOnly(who))
    let done: WorkspaceDeletion
    try {
      done = await deleteWorkspace(
        {
          store: app.store,
          clock: app.clock,
          storage: app.media.storage,
          vault: app.vault,
          logger: app.logger,
          adapterFor: (network) => app.networkApps.adapterFor(network),
        },
        { workspaceId: who.workspace.id, confirmName: field(request, 'confirmName') },
      )
    } catch (error) {
      const appError = toAppError(error)
      if (appError.code === 'internal') throw error
      return sendHtml(reply, httpStatusFor(appError.code), confirmPage(who, appError.message))
    }
    // The session acted in that workspace and went with it: the page is shown signed out, and the person
    // signs in again to another workspace.
    return sendHtml(reply, 200, deletedPage(who.workspace.name, done))
  })
}
