import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isInstanceAdministrator } from '../../modules/accounts/administrator.js'
import type { AppContext } from '../../modules/app-context.js'
import { requiresApproval } from '../../modules/publishing/approval-store.js'
import { changeApprovalSetting } from '../../modules/publishing/approvals.js'
import { listMembers, removeEditor } from '../../platform/db/statements/accounts.js'
import { currentBalance } from '../../platform/db/statements/credits.js'
import { invite, invitedTo } from '../../platform/db/statements/invitations.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import { actorOf } from './caller.js'
import { signedInOf } from './form-guard.js'
import { csrfField, escapeHtml, page, sendHtml } from './html.js'
import { account, field, redirectToLogin, type SignedIn, signedIn } from './request.js'

/**
 * The workspace: its people (an owner invites a person by e-mail as an editor, who joins by accepting, and
 * removes editors) and the credit balance (every member), with the ledger for owners (DESIGN.md "Security": owners manage
 * members and credits; editors see who they work with and what the workspace can spend).
 */

const LEDGER_ROWS = 50
/** The most one top-up grants: a typo of extra digits is refused, not granted. */
const MAX_TOP_UP = 1_000_000

/** The administrator's top-up: on a self-hosted Herald, credits come from whoever runs it. */
const addCreditsForm = (csrf: string) => `
<form method="post" action="/workspace/credits">${csrfField(csrf)}
<label>Credits to add <input type="number" name="amount" min="1" max="${MAX_TOP_UP}" step="1" required inputmode="numeric"></label>
<p class="muted">As the administrator of this Herald you give its workspaces their credits: each post to a profile costs them (5 on X, 1 elsewhere).</p>
<button type="submit">Add credits</button></form>`

async function workspacePage(
  app: AppContext,
  who: SignedIn,
  message: { notice?: string; problem?: string } = {},
) {
  const db = app.store.db
  const owner = who.workspace.role === 'owner'
  const csrf = who.session.csrfToken
  const members = await listMembers(db, who.workspace.id)
  const rows = members
    .map((m) => {
      const remove =
        owner && m.role === 'editor'
          ? `<form method="post" action="/workspace/members/remove" class="inline">${csrfField(csrf)}<input type="hidden" name="userId" value="${escapeHtml(m.id)}"><button type="submit" aria-label="Remove ${escapeHtml(m.email)}">Remove</button></form>`
          : ''
      return `<tr><td>${escapeHtml(m.name)}</td><td>${escapeHtml(m.email)}</td><td>${escapeHtml(m.role)}</td><td>${remove}</td></tr>`
    })
    .join('\n')
  // One rule for pages and tools: every member sees the balance (get_user_info,
  // preflight_post and create_post tell any caller of the workspace); only owners see the ledger.
  const balance = await currentBalance(db, who.workspace.id)
  let credits = `<h2>Credits</h2>
<p>Balance: <strong>${escapeHtml(balance)}</strong> credits.</p>`
  if (owner) {
    const ledger = await db
      .selectFrom('credit_ledger')
      .select(['delta', 'reason', 'reference', 'balance_after', 'created_at'])
      .where('workspace_id', '=', who.workspace.id)
      .orderBy('id', 'desc')
      .limit(LEDGER_ROWS)
      .execute()
    const entries = ledger
      .map(
        (
          l,
        ) => `<tr><td>${escapeHtml(new Date(Number(l.created_at)).toISOString().slice(0, 16).replace('T', ' '))}</td>
<td>${Number(l.delta) > 0 ? '+' : ''}${escapeHtml(l.delta)}</td><td>${escapeHtml(l.reason)}</td><td>${l.reference ? `<a href="/posts/${escapeHtml(l.reference)}">${escapeHtml(l.reference)}</a>` : ''}</td><td>${escapeHtml(l.balance_after)}</td></tr>`,
      )
      .join('\n')
    credits += `
<div class="scroll" tabindex="0" role="region" aria-label="Credit movements"><table><caption class="muted">The last ${LEDGER_ROWS} movements, newest first</caption>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">Change</th><th scope="col">Reason</th><th scope="col">For</th><th scope="col">Balance after</th></tr></thead><tbody>
${entries}</tbody></table></div>`
  } else credits += '<p class="muted">Only an owner sees the ledger of credit movements.</p>'
  if (await isInstanceAdministrator(db, who.user.id)) credits += addCreditsForm(csrf)
  const requires = await requiresApproval(db, who.workspace.id)
  const approvals = owner
    ? `<h2>Approvals</h2>
<form method="post" action="/workspace/approvals">${csrfField(csrf)}
<label><input type="checkbox" name="requireApproval" value="on"${requires ? ' checked' : ''}> Posts by editors need an owner's approval</label>
<p class="muted">An editor's post then waits as a draft until an owner approves it (charged then) or sends it back with a note. An owner's own posts never wait.</p>
<button type="submit">Save</button></form>`
    : `<h2>Approvals</h2><p class="muted">${requires ? "Your posts wait for an owner's approval before they go out." : 'Your posts go out without approval.'} Only an owner changes this.</p>`
  const invited = owner ? await invitedTo(db, who.workspace.id) : []
  const waiting =
    invited.length > 0
      ? `<p class="muted">Invited, not yet accepted: ${invited.map((i) => escapeHtml(i.email)).join(', ')}.</p>`
      : ''
  const add = owner
    ? `<h2>Invite a person</h2>
<form method="post" action="/workspace/members">${csrfField(csrf)}
<label>E-mail of a Herald user <input type="email" name="email" required autocomplete="off"></label>
<p class="muted">They see the invitation on their dashboard and join as an editor only if they accept: then they can connect profiles and publish, not manage members or credits.</p>
<button type="submit">Invite as editor</button></form>${waiting}`
    : '<p class="muted">Only an owner of this workspace invites or removes people.</p>'
  return page(
    'Workspace',
    `<h1>${escapeHtml(who.workspace.name)}</h1>
${message.problem ? `<div class="problem" role="alert"><p>${escapeHtml(message.problem)}</p></div>` : ''}
${message.notice ? `<div class="notice" role="status"><p>${escapeHtml(message.notice)}</p></div>` : ''}
<h2>People</h2>
<div class="scroll" tabindex="0" role="region" aria-label="Members"><table><thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>
${rows}</tbody></table></div>
${add}
${approvals}
${owner ? `<h2>Webhooks</h2><p><a href="/webhooks">Webhook endpoints</a>: signed events sent to your systems when posts go out, fail or get stuck.</p>` : ''}
${credits}`,
    { signedIn: account(who) },
  )
}

export function registerWorkspaceRoutes(scope: FastifyInstance, app: AppContext) {
  const db = app.store.db
  const ownerOnly = (reply: Parameters<typeof sendHtml>[0], who: SignedIn) =>
    workspacePage(app, who, { problem: 'Only an owner of this workspace can manage its people.' }).then(
      (html) => sendHtml(reply, 403, html),
    )

  scope.get('/workspace', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/workspace')
    return sendHtml(reply, 200, await workspacePage(app, who))
  })

  scope.post('/workspace/members', async (request, reply) => {
    const who = signedInOf(request)
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

  scope.post('/workspace/credits', (request, reply) => addCreditsFromForm(app, request, reply))

  scope.post('/workspace/approvals', (request, reply) => changeApprovalsFromForm(app, request, reply))

  scope.post('/workspace/members/remove', async (request, reply) => {
    const who = signedInOf(request)
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
async function addCreditsFromForm(app: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const who = signedInOf(request)
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
async function changeApprovalsFromForm(app: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const who = signedInOf(request)
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
