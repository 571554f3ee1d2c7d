import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { eventTypes } from '../../core/webhook-events.js'
import type { AppContext } from '../../modules/app-context.js'
import {
  changeWebhookSettings,
  createEndpoint,
  deleteEndpoint,
  type EndpointView,
  getEndpoint,
  getWebhookSettings,
  listAttempts,
  listEndpoints,
  redeliver,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  webhookDepsOf,
} from '../../modules/outbox/endpoints.js'
import { httpStatusFor, invalid, toAppError } from '../../platform/errors.js'
import type { FormBody } from '../../platform/form.js'
import { csrfField, escapeHtml, page, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { icon } from './ui/icons.js'

/**
 * Webhooks, owners only: the endpoints of the workspace, each with its settings, secret
 * rotation, a test event and its delivery log with redeliver. A secret is shown once, on the page that
 * answers its creation or rotation. Thin: src/webhooks decides.
 */

const subscribable = eventTypes.filter((t) => t !== 'webhook.test')
const when = (iso: string) => escapeHtml(iso.slice(0, 19).replace('T', ' '))

interface Message {
  notice?: string
  problem?: string
  /** A secret to show this once. */
  secret?: string
}

function messages(m: Message) {
  return `${m.problem ? `<div class="problem" role="alert"><p>${escapeHtml(m.problem)}</p></div>` : ''}
${m.notice ? `<div class="notice" role="status"><p>${escapeHtml(m.notice)}</p></div>` : ''}
${m.secret ? `<div class="notice" role="status"><p>Signing secret (shown only now; keep it somewhere safe):</p><pre><code>${escapeHtml(m.secret)}</code></pre></div>` : ''}`
}

function typeBoxes(selected: string[]) {
  return `<fieldset class="choices"><legend>Events (none ticked: every event)</legend>${subscribable
    .map(
      (t) =>
        `<label><input type="checkbox" name="eventTypes" value="${t}"${selected.includes(t) ? ' checked' : ''}> ${t}</label>`,
    )
    .join(' ')}</fieldset>`
}

const status = (e: EndpointView) =>
  e.enabled ? 'enabled' : e.disabledReason ? `disabled by Herald: ${e.disabledReason}` : 'disabled'

/** The endpoint's state as a chip: an icon and the words. */
const statusChip = (e: EndpointView) =>
  e.enabled
    ? `<span class="chip ok">${icon('circle-check')}Enabled</span>`
    : `<span class="chip ${e.disabledReason ? 'bad' : ''}">${icon('ban')}${escapeHtml(e.disabledReason ? 'Disabled by Herald' : 'Disabled')}</span>`

async function listPage(app: AppContext, who: SignedIn, m: Message = {}) {
  const csrf = who.session.csrfToken
  const endpoints = await listEndpoints(webhookDepsOf(app), actor(who))
  const { creditsLowThreshold } = await getWebhookSettings(webhookDepsOf(app), actor(who))
  const disabled = endpoints.filter((e) => e.disabledReason)
  const rows = endpoints
    .map(
      (e) =>
        `<tr><td class="url"><a href="/webhooks/${escapeHtml(e.id)}">${escapeHtml(e.url)}</a></td><td>${escapeHtml(e.description)}</td><td>${escapeHtml(e.eventTypes.length > 0 ? e.eventTypes.join(', ') : 'every event')}</td><td>${statusChip(e)}</td></tr>`,
    )
    .join('\n')
  return page(
    'Webhooks',
    `<div class="page-head"><h1>Webhooks</h1><a class="button primary" href="#add">Add endpoint</a></div>
${messages(m)}
${disabled.map((e) => `<div class="problem" role="alert"><p>${escapeHtml(e.url)} was disabled: ${escapeHtml(e.disabledReason)} Fix the receiver, then enable it again.</p></div>`).join('\n')}
<p class="muted">Herald POSTs each event, signed by the Standard Webhooks scheme, to the endpoints below. See docs/webhooks.md for the catalog and how to verify a delivery.</p>
<div class="table-card" tabindex="0" role="region" aria-label="Webhook endpoints"><table><thead><tr><th scope="col">URL</th><th scope="col">Description</th><th scope="col">Events</th><th scope="col">Status</th></tr></thead><tbody>
${rows || '<tr><td colspan="4" class="muted">No endpoints yet.</td></tr>'}</tbody></table></div>
<section class="card" aria-labelledby="add"><h2 id="add">Add an endpoint</h2>
<form method="post" action="/webhooks">${csrfField(csrf)}
<label>URL <input type="url" name="url" required maxlength="2000" placeholder="https://example.com/herald-hook"></label>
<label>Description <input type="text" name="description" maxlength="500"></label>
${typeBoxes([])}
<button type="submit" class="primary">Add endpoint</button></form></section>
<section class="card" aria-labelledby="low-credits"><h2 id="low-credits">Low credits</h2>
<p class="muted">${creditsLowThreshold === null ? 'Off: no <code>credits.low</code> event is sent.' : `A charge that takes the balance below ${creditsLowThreshold} credits sends <code>credits.low</code> (once per crossing).`}</p>
<form method="post" action="/webhooks/settings">${csrfField(csrf)}
<label>Warn below this balance (credits) <input type="number" name="creditsLowThreshold" min="1" max="1000000000" step="1" inputmode="numeric" value="${creditsLowThreshold ?? ''}"></label>
<p class="muted">Leave it empty to turn the event off.</p>
<button type="submit">Save threshold</button></form></section>`,
    { signedIn: account(who) },
  )
}

async function endpointPage(app: AppContext, who: SignedIn, id: string, m: Message = {}) {
  const deps = webhookDepsOf(app)
  const csrf = who.session.csrfToken
  const e = await getEndpoint(deps, actor(who), id)
  const attempts = await listAttempts(deps, actor(who), id, 100)
  const path = `/webhooks/${escapeHtml(e.id)}`
  const log = attempts
    .map(
      (a) =>
        `<tr><td>${when(a.attemptedAt)}</td><td>${escapeHtml(a.eventType)}</td><td>${a.statusCode ?? '—'}</td><td>${a.latencyMs} ms</td><td>${escapeHtml(a.outcome)}</td><td><code>${escapeHtml(a.responseExcerpt.slice(0, 200))}</code></td>
<td><form method="post" action="${path}/redeliver" class="inline">${csrfField(csrf)}<input type="hidden" name="eventId" value="${escapeHtml(a.eventId)}"><button type="submit">Redeliver</button></form></td></tr>`,
    )
    .join('\n')
  return page(
    'Webhook endpoint',
    `<div class="page-head"><h1 class="url">${escapeHtml(e.url)}</h1>${statusChip(e)}</div>
${messages(m)}
<p>Status: <strong>${escapeHtml(status(e))}</strong>${e.previousSecretValidUntil ? ` · the previous secret also signs until ${when(e.previousSecretValidUntil)} UTC` : ''}</p>
<section class="card" aria-labelledby="settings"><h2 id="settings">Settings</h2>
<form method="post" action="${path}">${csrfField(csrf)}
<label>URL <input type="url" name="url" required maxlength="2000" value="${escapeHtml(e.url)}"></label>
<label>Description <input type="text" name="description" maxlength="500" value="${escapeHtml(e.description)}"></label>
${typeBoxes(e.eventTypes)}
<label><input type="checkbox" name="enabled" value="on"${e.enabled ? ' checked' : ''}> Enabled</label>
<button type="submit" class="primary">Save</button></form>
<div class="actions">
<form method="post" action="${path}/test" class="inline">${csrfField(csrf)}<button type="submit">Send test event</button></form>
<form method="post" action="${path}/rotate" class="inline">${csrfField(csrf)}<button type="submit">Rotate secret</button></form>
<form method="post" action="${path}/delete" class="inline">${csrfField(csrf)}<button type="submit" class="danger">Delete endpoint</button></form>
</div></section>
<h2>Delivery log</h2>
<div class="table-card" tabindex="0" role="region" aria-label="Delivery attempts"><table><caption class="muted">The last 100 attempts, newest first (UTC)</caption>
<thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Outcome</th><th scope="col">Response</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>
${log || '<tr><td colspan="7" class="muted">No attempts yet.</td></tr>'}</tbody></table></div>
<p><a href="/webhooks">All endpoints</a></p>`,
    { signedIn: account(who) },
  )
}

const actor = (who: SignedIn) => ({ workspaceId: who.workspace.id, role: who.workspace.role })

function checked(request: FastifyRequest, name: string): string[] {
  const value = (request.body as FormBody | undefined)?.[name]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

/** Runs a change as the signed-in owner; a refusal is shown on the page it came from, with its status. */
const change = async (
  app: AppContext,
  request: FastifyRequest<{ Params: { id?: string } }>,
  reply: FastifyReply,
  who: SignedIn,
  run: (who: SignedIn) => Promise<{ html: (who: SignedIn) => Promise<string> }>,
) => {
  try {
    const { html } = await run(who)
    return sendHtml(reply, 200, await html(who))
  } catch (error) {
    const appError = toAppError(error)
    if (appError.code === 'internal') throw error
    const code = httpStatusFor(appError.code)
    const id = request.params.id
    const back =
      who.workspace.role !== 'owner'
        ? page('Webhooks', `<h1>Webhooks</h1>${messages({ problem: appError.message })}`, {
            signedIn: account(who),
          })
        : id && appError.code !== 'not_found'
          ? await endpointPage(app, who, id, { problem: appError.message })
          : await listPage(app, who, { problem: appError.message })
    return sendHtml(reply, code, back)
  }
}

/** Shows a page to the signed-in person; a refusal (not a member, no such endpoint) is shown with its status. */
const view = async (reply: FastifyReply, who: SignedIn, render: (who: SignedIn) => Promise<string>) => {
  try {
    return sendHtml(reply, 200, await render(who))
  } catch (error) {
    const appError = toAppError(error)
    if (appError.code === 'internal') throw error
    return sendHtml(
      reply,
      httpStatusFor(appError.code),
      page('Webhooks', `<h1>Webhooks</h1>${messages({ problem: appError.message })}`, {
        signedIn: account(who),
      }),
    )
  }
}

export function registerWebhookPages(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  const deps = webhookDepsOf(app)

  routes.get<{ Params: { id?: string } }>('/webhooks', (_request, reply, who) =>
    view(reply, who, (who) => listPage(app, who)),
  )
  routes.get<{ Params: { id: string } }>('/webhooks/:id', (request, reply, who) =>
    view(reply, who, (who) => endpointPage(app, who, request.params.id)),
  )
  routes.post<{ Params: { id?: string } }>('/webhooks', (request, reply, who) =>
    change(app, request, reply, who, async (who) => {
      const created = await createEndpoint(deps, actor(who), {
        url: field(request, 'url').trim(),
        description: field(request, 'description'),
        eventTypes: checked(request, 'eventTypes'),
      })
      return {
        html: (w) => endpointPage(app, w, created.id, { notice: 'Endpoint added.', secret: created.secret }),
      }
    }),
  )
  routes.post<{ Params: { id?: string } }>('/webhooks/settings', (request, reply, who) =>
    change(app, request, reply, who, async (who) => {
      const given = field(request, 'creditsLowThreshold').trim()
      // Empty turns it off. The form's own words for a bad number: the tool's message names its field.
      const threshold = given === '' ? null : /^\d{1,10}$/.test(given) ? Number(given) : Number.NaN
      if (threshold !== null && !(threshold >= 1 && threshold <= 1_000_000_000))
        throw invalid(
          'Type a whole number of credits from 1 to 1,000,000,000, or leave the box empty to turn the warning off.',
        )
      const saved = await changeWebhookSettings(deps, actor(who), { creditsLowThreshold: threshold })
      const notice =
        saved.creditsLowThreshold === null
          ? 'The low-credits warning is off.'
          : `The low-credits warning is sent when a charge takes the balance below ${saved.creditsLowThreshold}.`
      return { html: (w) => listPage(app, w, { notice }) }
    }),
  )
  routes.post<{ Params: { id: string } }>('/webhooks/:id', (request, reply, who) =>
    change(app, request, reply, who, async (who) => {
      await updateEndpoint(deps, actor(who), request.params.id, {
        url: field(request, 'url').trim(),
        description: field(request, 'description'),
        eventTypes: checked(request, 'eventTypes'),
        enabled: field(request, 'enabled') === 'on',
      })
      return { html: (w) => endpointPage(app, w, request.params.id, { notice: 'Saved.' }) }
    }),
  )
  routes.post<{ Params: { id: string } }>('/webhooks/:id/rotate', (request, reply, who) =>
    change(app, request, reply, who, async (who) => {
      const rotated = await rotateSecret(deps, actor(who), request.params.id)
      return {
        html: (w) =>
          endpointPage(app, w, request.params.id, {
            notice: 'New secret made; the previous one also signs for 24 hours.',
            secret: rotated.secret,
          }),
      }
    }),
  )
  routes.post<{ Params: { id: string } }>('/webhooks/:id/test', (request, reply, who) =>
    change(app, request, reply, who, async (who) => {
      const sent = await sendTestEvent(deps, actor(who), request.params.id)
      return {
        html: (w) =>
          endpointPage(app, w, request.params.id, { notice: `Test event ${sent.eventId} queued.` }),
      }
    }),
  )
  routes.post<{ Params: { id: string } }>('/webhooks/:id/redeliver', (request, reply, who) =>
    change(app, request, reply, who, async (who) => {
      await redeliver(deps, actor(who), request.params.id, field(request, 'eventId'))
      return {
        html: (w) => endpointPage(app, w, request.params.id, { notice: 'Queued to be delivered again.' }),
      }
    }),
  )
  routes.post<{ Params: { id: string } }>('/webhooks/:id/delete', (request, reply, who) =>
    change(app, request, reply, who, async (who) => {
      await deleteEndpoint(deps, actor(who), request.params.id)
      return { html: (w) => listPage(app, w, { notice: 'Endpoint deleted.' }) }
    }),
  )
}
