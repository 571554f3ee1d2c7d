import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isInstanceAdministrator } from '../../modules/accounts/administrator.js'
import type { AppContext } from '../../modules/app-context.js'
import { requiresApproval } from '../../modules/publishing/approval-store.js'
import { changeApprovalSetting } from '../../modules/publishing/approvals.js'
import type { Db } from '../../platform/db/db.js'
import { listMembers, removeEditor } from '../../platform/db/statements/accounts.js'
import { currentBalance } from '../../platform/db/statements/credits.js'
import { invite, invitedTo } from '../../platform/db/statements/invitations.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import { actorOf } from './caller.js'
import { ledgerLine, postsOfLedger } from './credit-ledger.js'
import { page, sendHtml } from './html.js'
import { lastBackupOf, OperationsCard } from './operations.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { initials } from './ui/avatar.js'
import { CsrfField, Icon, Messages, TableCard } from './ui/parts.js'
import { DataCards, registerWorkspaceDataRoutes } from './workspace-data.js'

/**
 * The workspace: its people (an owner invites a person by e-mail as an editor, who joins by accepting, and
 * removes editors) and the credit balance (every member), with the ledger for owners (DESIGN.md "Security": owners manage
 * members and credits; editors see who they work with and what the workspace can spend).
 */

const LEDGER_ROWS = 50
/** The most one top-up grants: a typo of extra digits is refused, not granted. */
const MAX_TOP_UP = 1_000_000

/** The administrator's top-up: on a self-hosted Herald, credits come from whoever runs it. */
const AddCreditsForm = ({ csrf }: { csrf: string }) => (
  <form method="post" action="/workspace/credits" class="stack">
    <CsrfField token={csrf} />
    <label>
      Credits to add{' '}
      <input type="number" name="amount" min="1" max={MAX_TOP_UP} step="1" required inputmode="numeric" />
    </label>
    <p class="muted">
      As the administrator of this Herald you give its workspaces their credits: each post to a profile costs
      them (5 on X, 1 elsewhere).
    </p>
    <button type="submit" class="primary">
      Add credits
    </button>
  </form>
)

const RoleChip = ({ role }: { role: string }) =>
  role === 'owner' ? (
    <span class="chip info">
      <Icon name="badge-check" />
      Owner
    </span>
  ) : (
    <span class="chip">
      <Icon name="users" />
      Editor
    </span>
  )

/** The people: members with their role (an owner removes editors), and who is invited but has not joined. */
async function peopleCard(db: Db, who: SignedIn, owner: boolean) {
  const csrf = who.session.csrfToken
  const members = await listMembers(db, who.workspace.id)
  const invited = owner ? await invitedTo(db, who.workspace.id) : []
  return (
    <section class="card" aria-labelledby="people">
      <h2 id="people">People</h2>
      <TableCard label="Members">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">
                <span class="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr>
                <td>
                  <span class="profile-line">
                    <span class="avatar small" aria-hidden="true">
                      {initials(m.name, m.email)}
                    </span>
                    {m.name}
                  </span>
                </td>
                <td class="url">{m.email}</td>
                <td>
                  <RoleChip role={m.role} />
                </td>
                <td>
                  {owner && m.role === 'editor' ? (
                    <form method="post" action="/workspace/members/remove" class="inline">
                      <CsrfField token={csrf} />
                      <input type="hidden" name="userId" value={m.id} />
                      <button type="submit" class="danger" aria-label={`Remove ${m.email}`}>
                        Remove
                      </button>
                    </form>
                  ) : null}
                </td>
              </tr>
            ))}
            {invited.map((i) => (
              <tr>
                <td>
                  <span class="muted">Not joined yet</span>
                </td>
                <td class="url">{i.email}</td>
                <td>
                  <span class="chip warn">
                    <Icon name="hourglass" />
                    Invited
                  </span>
                </td>
                <td />
              </tr>
            ))}
          </tbody>
        </table>
      </TableCard>
      {owner ? (
        <>
          <h3>Invite a person</h3>
          <form method="post" action="/workspace/members" class="stack">
            <CsrfField token={csrf} />
            <label>
              E-mail of a Herald user <input type="email" name="email" required autocomplete="off" />
            </label>
            <p class="muted">
              They see the invitation on their dashboard and join as an editor only if they accept: then they
              can connect profiles and publish, not manage members or credits.
            </p>
            <button type="submit" class="primary">
              Invite as editor
            </button>
          </form>
        </>
      ) : (
        <p class="muted">Only an owner of this workspace invites or removes people.</p>
      )}
    </section>
  )
}

/** The last movements of the workspace's credits, in words and linked to their posts. */
async function Ledger({ db, who }: { db: Db; who: SignedIn }) {
  const ledger = await db
    .selectFrom('credit_ledger')
    .select(['delta', 'reason', 'reference', 'balance_after', 'created_at'])
    .where('workspace_id', '=', who.workspace.id)
    .orderBy('id', 'desc')
    .limit(LEDGER_ROWS)
    .execute()
  const posts = await postsOfLedger(db, who.workspace.id, ledger)
  return (
    <TableCard label="Credit movements">
      <table class="ledger">
        <caption class="muted">The last {LEDGER_ROWS} movements, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When (UTC)</th>
            <th scope="col">What</th>
            <th scope="col">Credits</th>
            <th scope="col">Balance after</th>
          </tr>
        </thead>
        <tbody>
          {ledger.map((l) => {
            const line = ledgerLine(l, posts)
            const delta = Number(l.delta)
            return (
              <tr>
                <td class="when">
                  {new Date(Number(l.created_at)).toISOString().slice(0, 16).replace('T', ' ')}
                </td>
                <td>
                  {line.words}
                  {line.links ? (
                    <>
                      <br />
                      {line.links}
                    </>
                  ) : null}
                </td>
                <td class={`figure ${delta > 0 ? 'gain' : 'spend'}`}>
                  {delta > 0 ? '+' : '−'}
                  {Math.abs(delta)}
                </td>
                <td class="figure">{l.balance_after}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </TableCard>
  )
}

/** The balance for every member; the ledger, in words and linked to its posts, for owners. */
async function creditsCard(db: Db, who: SignedIn, owner: boolean, administrator: boolean) {
  // One rule for pages and tools: every member sees the balance; only owners see the ledger.
  const balance = await currentBalance(db, who.workspace.id)
  return (
    <section class="card" aria-labelledby="credits">
      <h2 id="credits">Credits</h2>
      <p class="balance">
        Balance: <strong>{balance}</strong> credits.
      </p>
      {owner ? (
        await Ledger({ db, who })
      ) : (
        <p class="muted">Only an owner sees the ledger of credit movements.</p>
      )}
      {administrator ? <AddCreditsForm csrf={who.session.csrfToken} /> : null}
    </section>
  )
}

function ApprovalsCard({ owner, requires, csrf }: { owner: boolean; requires: boolean; csrf: string }) {
  if (!owner)
    return (
      <section class="card" aria-labelledby="approvals">
        <h2 id="approvals">Approvals</h2>
        <p class="muted">
          {requires
            ? "Your posts wait for an owner's approval before they go out."
            : 'Your posts go out without approval.'}{' '}
          Only an owner changes this.
        </p>
      </section>
    )
  return (
    <section class="card" aria-labelledby="approvals">
      <h2 id="approvals">Approvals</h2>
      <form method="post" action="/workspace/approvals" class="stack">
        <CsrfField token={csrf} />
        <label class="check">
          <input type="checkbox" name="requireApproval" value="on" checked={requires} /> Posts by editors need
          an owner's approval
        </label>
        <p class="muted">
          An editor's post then waits as a draft until an owner approves it (charged then) or sends it back
          with a note. An owner's own posts never wait.
        </p>
        <button type="submit">Save</button>
      </form>
    </section>
  )
}

async function workspacePage(
  app: AppContext,
  who: SignedIn,
  message: { notice?: string; problem?: string } = {},
) {
  const db = app.store.db
  const owner = who.workspace.role === 'owner'
  const requires = await requiresApproval(db, who.workspace.id)
  const administrator = await isInstanceAdministrator(db, who.user.id)
  const [people, credits, lastBackup] = await Promise.all([
    peopleCard(db, who, owner),
    creditsCard(db, who, owner, administrator),
    administrator ? lastBackupOf(app) : undefined,
  ])
  return page(
    'Workspace',
    <>
      <div class="page-head">
        <h1>{who.workspace.name}</h1>
      </div>
      <Messages problem={message.problem} />
      <Messages notice={message.notice} />
      {people}
      {credits}
      <ApprovalsCard owner={owner} requires={requires} csrf={who.session.csrfToken} />
      {administrator ? <OperationsCard app={app} last={lastBackup} /> : null}
      <DataCards who={who} />
      {owner ? (
        <section class="card" aria-labelledby="webhooks">
          <h2 id="webhooks">Webhooks</h2>
          <p>
            <a href="/webhooks">Webhook endpoints</a>: signed events sent to your systems when posts go out,
            fail or get stuck.
          </p>
        </section>
      ) : null}
    </>,
    { signedIn: account(who) },
  )
}

export function registerWorkspaceRoutes(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  const db = app.store.db
  const ownerOnly = (reply: Parameters<typeof sendHtml>[0], who: SignedIn) =>
    workspacePage(app, who, { problem: 'Only an owner of this workspace can manage its people.' }).then(
      (html) => sendHtml(reply, 403, html),
    )

  routes.get('/workspace', async (_request, reply, who) => {
    return sendHtml(reply, 200, await workspacePage(app, who))
  })

  registerWorkspaceDataRoutes(scope, app)

  routes.post('/workspace/members', async (request, reply, who) => {
    if (who.workspace.role !== 'owner') return ownerOnly(reply, who)
    const email = field(request, 'email').trim().toLowerCase()
    if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320)
      return sendHtml(
        reply,
        400,
        await workspacePage(app, who, { problem: 'Type the e-mail address of the person to invite.' }),
      )
    // The same answer whether or not a Herald user has this e-mail, so owners cannot probe for accounts,
    // and no one joins without accepting.
    await invite(
      db,
      { workspaceId: who.workspace.id, email, role: 'editor', invitedBy: who.user.id },
      app.clock.now(),
    )
    return sendHtml(
      reply,
      200,
      await workspacePage(app, who, {
        notice: `Invited ${email}. If they have a Herald account, they see the invitation when they sign in, and join as an editor once they accept.`,
      }),
    )
  })

  routes.post('/workspace/credits', (request, reply, who) => addCreditsFromForm(app, request, reply, who))

  routes.post('/workspace/approvals', (request, reply, who) =>
    changeApprovalsFromForm(app, request, reply, who),
  )

  routes.post('/workspace/members/remove', async (request, reply, who) => {
    if (who.workspace.role !== 'owner') return ownerOnly(reply, who)
    const removed = await removeEditor(db, who.workspace.id, field(request, 'userId'))
    return sendHtml(
      reply,
      removed ? 200 : 404,
      await workspacePage(
        app,
        who,
        removed ? { notice: 'Removed.' } : { problem: 'No editor with that id here.' },
      ),
    )
  })
}

/** The administrator tops up this workspace's credits. */
async function addCreditsFromForm(
  app: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  who: SignedIn,
) {
  if (!(await isInstanceAdministrator(app.store.db, who.user.id)))
    return sendHtml(
      reply,
      403,
      await workspacePage(app, who, { problem: 'Only the administrator of this Herald adds credits.' }),
    )
  const text = field(request, 'amount').trim()
  const amount = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN
  if (!(amount >= 1 && amount <= MAX_TOP_UP))
    return sendHtml(
      reply,
      400,
      await workspacePage(app, who, {
        problem: `Type a whole number of credits from 1 to ${MAX_TOP_UP.toLocaleString('en-US')}.`,
      }),
    )
  const { balance } = await app.accounts.addCredits({ workspaceId: who.workspace.id, amount })
  return sendHtml(
    reply,
    200,
    await workspacePage(app, who, { notice: `Added ${amount} credits: the balance is now ${balance}.` }),
  )
}

/** An owner turns approvals for editors' posts on or off. */
async function changeApprovalsFromForm(
  app: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  who: SignedIn,
) {
  const on = field(request, 'requireApproval') === 'on'
  try {
    await changeApprovalSetting(app, actorOf(who), on)
  } catch (error) {
    const appError = toAppError(error)
    if (appError.code === 'internal') throw error
    return sendHtml(
      reply,
      httpStatusFor(appError.code),
      await workspacePage(app, who, { problem: appError.message }),
    )
  }
  return sendHtml(
    reply,
    200,
    await workspacePage(app, who, {
      notice: on
        ? "Posts by editors now wait for an owner's approval."
        : 'Posts by editors no longer wait for approval.',
    }),
  )
}
