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
import { NextLink, page, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { CsrfField, Icon, Messages, TableCard } from './ui/parts.js'

/**
 * Webhooks, owners only: the endpoints of the workspace, each with its settings, secret
 * rotation, a test event and its delivery log with redeliver. A secret is shown once, on the page that
 * answers its creation or rotation. Thin: src/webhooks decides.
 */

type AttemptView = Awaited<ReturnType<typeof listAttempts>>[number]

const subscribable = eventTypes.filter((t) => t !== 'webhook.test')
const when = (iso: string) => iso.slice(0, 19).replace('T', ' ')

interface Message {
  notice?: string
  problem?: string
  /** A secret to show this once. */
  secret?: string
}

function Notes({ m }: { m: Message }) {
  return (
    <>
      <Messages problem={m.problem} />
      <Messages notice={m.notice} />
      {m.secret ? (
        <div class="notice" role="status">
          <p>Signing secret (shown only now; keep it somewhere safe):</p>
          <pre>
            <code>{m.secret}</code>
          </pre>
        </div>
      ) : null}
    </>
  )
}

function TypeBoxes({ selected }: { selected: string[] }) {
  return (
    <fieldset class="choices">
      <legend>Events (none ticked: every event)</legend>
      {subscribable.flatMap((t, i) => [
        ...(i ? [' '] : []),
        <label>
          <input type="checkbox" name="eventTypes" value={t} checked={selected.includes(t)} /> {t}
        </label>,
      ])}
    </fieldset>
  )
}

const status = (e: EndpointView) =>
  e.enabled ? 'enabled' : e.disabledReason ? `disabled by Herald: ${e.disabledReason}` : 'disabled'

/** The endpoint's state as a chip: an icon and the words. */
const StateChip = ({ e }: { e: EndpointView }) =>
  e.enabled ? (
    <span class="chip ok">
      <Icon name="circle-check" />
      Enabled
    </span>
  ) : (
    <span class={`chip ${e.disabledReason ? 'bad' : ''}`}>
      <Icon name="ban" />
      {e.disabledReason ? 'Disabled by Herald' : 'Disabled'}
    </span>
  )

/** A change to one endpoint that is a button alone (test, rotate, delete). */
const ButtonForm = (props: { action: string; csrf: string; label: string; danger?: boolean }) => (
  <form method="post" action={props.action} class="inline">
    <CsrfField token={props.csrf} />
    <button type="submit" class={props.danger ? 'danger' : undefined}>
      {props.label}
    </button>
  </form>
)

function EndpointsTable({ endpoints }: { endpoints: EndpointView[] }) {
  return (
    <TableCard label="Webhook endpoints">
      <table>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Description</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.length ? (
            endpoints.map((e) => (
              <tr>
                <td class="url">
                  <a href={`/webhooks/${e.id}`}>{e.url}</a>
                </td>
                <td>{e.description}</td>
                <td>{e.eventTypes.length > 0 ? e.eventTypes.join(', ') : 'every event'}</td>
                <td>
                  <StateChip e={e} />
                </td>
              </tr>
            ))
          ) : (
            <tr>
              <td colspan={4} class="muted">
                No endpoints yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </TableCard>
  )
}

function LowCredits({ threshold, csrf }: { threshold: number | null; csrf: string }) {
  return (
    <section class="card" aria-labelledby="low-credits">
      <h2 id="low-credits">Low credits</h2>
      <p class="muted">
        {threshold === null ? (
          <>
            Off: no <code>credits.low</code> event is sent.
          </>
        ) : (
          <>
            A charge that takes the balance below {threshold} credits sends <code>credits.low</code> (once per
            crossing).
          </>
        )}
      </p>
      <form method="post" action="/webhooks/settings">
        <CsrfField token={csrf} />
        <label>
          Warn below this balance (credits){' '}
          <input
            type="number"
            name="creditsLowThreshold"
            min="1"
            max="1000000000"
            step="1"
            inputmode="numeric"
            value={threshold ?? ''}
          />
        </label>
        <p class="muted">Leave it empty to turn the event off.</p>
        <button type="submit">Save threshold</button>
      </form>
    </section>
  )
}

async function listPage(app: AppContext, who: SignedIn, m: Message = {}) {
  const csrf = who.session.csrfToken
  const endpoints = await listEndpoints(webhookDepsOf(app), actor(who))
  const { creditsLowThreshold } = await getWebhookSettings(webhookDepsOf(app), actor(who))
  return page(
    'Webhooks',
    <>
      <div class="page-head">
        <h1>Webhooks</h1>
        <a class="button primary" href="#add">
          Add endpoint
        </a>
      </div>
      <Notes m={m} />
      {endpoints
        .filter((e) => e.disabledReason)
        .map((e) => (
          <Messages
            problem={`${e.url} was disabled: ${e.disabledReason} Fix the receiver, then enable it again.`}
          />
        ))}
      <p class="muted">
        Herald POSTs each event, signed by the Standard Webhooks scheme, to the endpoints below. See
        docs/webhooks.md for the catalog and how to verify a delivery.
      </p>
      <EndpointsTable endpoints={endpoints} />
      <section class="card" aria-labelledby="add">
        <h2 id="add">Add an endpoint</h2>
        <form method="post" action="/webhooks">
          <CsrfField token={csrf} />
          <label>
            URL{' '}
            <input
              type="url"
              name="url"
              required
              maxlength={2000}
              placeholder="https://example.com/herald-hook"
            />
          </label>
          <label>
            Description <input type="text" name="description" maxlength={500} />
          </label>
          <TypeBoxes selected={[]} />
          <button type="submit" class="primary">
            Add endpoint
          </button>
        </form>
      </section>
      <LowCredits threshold={creditsLowThreshold} csrf={csrf} />
    </>,
    { signedIn: account(who) },
  )
}

function DeliveryLog({ attempts, path, csrf }: { attempts: AttemptView[]; path: string; csrf: string }) {
  return (
    <TableCard label="Delivery attempts">
      <table>
        <caption class="muted">The last 100 attempts, newest first (UTC)</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            <th scope="col">Outcome</th>
            <th scope="col">Response</th>
            <th scope="col">
              <span class="muted">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {attempts.length ? (
            attempts.map((a) => (
              <tr>
                <td>{when(a.attemptedAt)}</td>
                <td>{a.eventType}</td>
                <td>{a.statusCode ?? '—'}</td>
                <td>{a.latencyMs} ms</td>
                <td>{a.outcome}</td>
                <td>
                  <code>{a.responseExcerpt.slice(0, 200)}</code>
                </td>
                <td>
                  <form method="post" action={`${path}/redeliver`} class="inline">
                    <CsrfField token={csrf} />
                    <input type="hidden" name="eventId" value={a.eventId} />
                    <button type="submit">Redeliver</button>
                  </form>
                </td>
              </tr>
            ))
          ) : (
            <tr>
              <td colspan={7} class="muted">
                No attempts yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </TableCard>
  )
}

async function endpointPage(app: AppContext, who: SignedIn, id: string, m: Message = {}) {
  const deps = webhookDepsOf(app)
  const csrf = who.session.csrfToken
  const e = await getEndpoint(deps, actor(who), id)
  const attempts = await listAttempts(deps, actor(who), id, 100)
  const path = `/webhooks/${e.id}`
  return page(
    'Webhook endpoint',
    <>
      <div class="page-head">
        <h1 class="url">{e.url}</h1>
        <StateChip e={e} />
      </div>
      <Notes m={m} />
      <p>
        Status: <strong>{status(e)}</strong>
        {e.previousSecretValidUntil
          ? ` · the previous secret also signs until ${when(e.previousSecretValidUntil)} UTC`
          : ''}
      </p>
      <section class="card" aria-labelledby="settings">
        <h2 id="settings">Settings</h2>
        <form method="post" action={path}>
          <CsrfField token={csrf} />
          <label>
            URL <input type="url" name="url" required maxlength={2000} value={e.url} />
          </label>
          <label>
            Description <input type="text" name="description" maxlength={500} value={e.description} />
          </label>
          <TypeBoxes selected={e.eventTypes} />
          <label>
            <input type="checkbox" name="enabled" value="on" checked={e.enabled} /> Enabled
          </label>
          <button type="submit" class="primary">
            Save
          </button>
        </form>
        <div class="actions">
          <ButtonForm action={`${path}/test`} csrf={csrf} label="Send test event" />
          <ButtonForm action={`${path}/rotate`} csrf={csrf} label="Rotate secret" />
          <ButtonForm action={`${path}/delete`} csrf={csrf} label="Delete endpoint" danger />
        </div>
      </section>
      <h2>Delivery log</h2>
      <DeliveryLog attempts={attempts} path={path} csrf={csrf} />
      <NextLink href="/webhooks" label="All endpoints" />
    </>,
    { signedIn: account(who) },
  )
}

/** What a person who may not see webhooks (or asked for one that is not there) sees instead. */
const RefusedPage = ({ problem }: { problem: string }) => (
  <>
    <h1>Webhooks</h1>
    <Notes m={{ problem }} />
  </>
)

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
        ? page('Webhooks', <RefusedPage problem={appError.message} />, { signedIn: account(who) })
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
      page('Webhooks', <RefusedPage problem={appError.message} />, { signedIn: account(who) }),
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
