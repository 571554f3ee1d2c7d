import type { FastifyInstance } from 'fastify'
import { setSessionWorkspace } from '../../modules/accounts/sessions.js'
import type { AppContext } from '../../modules/app-context.js'
import { answerInvitation, invitationsFor } from '../../platform/db/statements/invitations.js'
import { page, sendHtml } from './html.js'
import { account, type SignedIn, signedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { CsrfField, EmptyState, Messages } from './ui/parts.js'

/**
 * `/invitations`: the workspaces that invited the signed-in person, each with Accept and Decline (POST,
 * CSRF). Joining a workspace is the person's own act; admins still add members
 * directly with the CLI.
 */

async function invitationsPage(app: AppContext, who: SignedIn, message: { notice?: string } = {}) {
  const invitations = await invitationsFor(app.store.db, who.user.email)
  const csrf = who.session.csrfToken
  return page(
    'Invitations',
    <>
      <div class="page-head">
        <h1>Invitations</h1>
      </div>
      <Messages notice={message.notice} />
      {invitations.length ? (
        <>
          <p>
            Members of a workspace can publish to the profiles connected there, and profiles you connect while
            working in it post for it.
          </p>
          <ul class="cards invitations">
            {invitations.map((i) => (
              <li class="card invitation">
                <p>
                  <strong>{i.workspaceName}</strong> invites you as {i.role}
                  {i.invitedByEmail ? ` (from ${i.invitedByEmail})` : ''}.
                </p>
                <div class="actions">
                  <form method="post" action={`/invitations/${i.id}/accept`} class="inline">
                    <CsrfField token={csrf} />
                    <button type="submit" class="primary">
                      Accept and join {i.workspaceName}
                    </button>
                  </form>
                  <form method="post" action={`/invitations/${i.id}/decline`} class="inline">
                    <CsrfField token={csrf} />
                    <button type="submit">Decline</button>
                  </form>
                </div>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <EmptyState
          text="No invitations wait for you. When an owner invites you to a workspace, it appears here to accept or decline."
          action={{ href: '/posts', label: 'Back to your posts' }}
        />
      )}
    </>,
    { signedIn: account(who) },
  )
}

export function registerInvitationRoutes(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  routes.get('/invitations', async (_request, reply, who) => {
    return sendHtml(reply, 200, await invitationsPage(app, who))
  })

  routes.post<{ Params: { id: string; answer: string } }>(
    '/invitations/:id/:answer',
    async (request, reply, who) => {
      const { id, answer } = request.params
      if (answer !== 'accept' && answer !== 'decline')
        return sendHtml(reply, 404, await invitationsPage(app, who))
      const accept = answer === 'accept'
      const workspaceId = await answerInvitation(
        app.store.db,
        { id, user: { id: who.user.id, email: who.user.email }, accept },
        app.clock.now(),
      )
      if (!workspaceId)
        return sendHtml(
          reply,
          404,
          await invitationsPage(app, who, { notice: 'That invitation is no longer open.' }),
        )
      if (!accept) {
        const after = await signedIn(app, request)
        return sendHtml(reply, 200, await invitationsPage(app, after ?? who, { notice: 'Declined.' }))
      }
      await setSessionWorkspace(app.store.db, who.session.id, workspaceId)
      return reply.redirect('/workspace', 303)
    },
  )
}
