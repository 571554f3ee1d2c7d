import { MediaError } from '../../core/media-port.js'
import {
  eventTypes,
  isEventType,
  MAX_ENDPOINT_DESCRIPTION_LENGTH,
  MAX_ENDPOINT_URL_LENGTH,
  SECRET_OVERLAP_MS,
} from '../../core/webhook-events.js'
import type { Clock } from '../../platform/clock.js'
import { type Vault, VaultError, webhookSecretAt } from '../../platform/crypto/vault.js'
import type { Store } from '../../platform/db/db.js'
import {
  creditsLowThreshold,
  deleteEndpointRow,
  findEndpointRow,
  insertEndpoint,
  listAttemptRows,
  listEndpointRows,
  recordTestEvent,
  redeliverEvent,
  rotateEndpointSecret,
  setCreditsLowThreshold,
  updateEndpointRow,
} from '../../platform/db/statements/webhook-endpoints.js'
import type { EndpointRow } from '../../platform/db/statements/webhooks.js'
import { type LookupFn, resolveCheckedAddress } from '../../platform/egress/safe-fetch.js'
import { AppError, invalid } from '../../platform/errors.js'
import { newId } from '../../platform/ids.js'
import type { AppContext } from '../app-context.js'
import { generateSecret } from './signing.js'

/**
 * Managing webhook endpoints, shared by the REST paths, the CLI and the dashboard: owners only; every URL
 * checked like a media URL before anything is stored; a secret shown once, when it is made.
 */

export interface WebhookDeps {
  store: Store
  vault: Vault
  clock: Clock
  /** https endpoints only when Herald itself is served over https. */
  publicBaseUrl: string
  /** HERALD_ALLOW_PRIVATE_WEBHOOKS (or sandbox mode): loopback and private receivers allowed. */
  allowPrivate: boolean
  lookup?: LookupFn
}

export interface WebhookActor {
  workspaceId: string
  role: 'owner' | 'editor'
}

export interface EndpointView {
  id: string
  url: string
  description: string
  /** [] means every event type. */
  eventTypes: string[]
  enabled: boolean
  /** Why Herald disabled it (410 Gone, or 3 days of failures); absent otherwise. */
  disabledReason?: string
  disabledAt?: string
  /** Until when the secret before the last rotation also signs. */
  previousSecretValidUntil?: string
  createdAt: string
}

export interface EndpointInput {
  url?: string | undefined
  description?: string | undefined
  eventTypes?: string[] | undefined
  enabled?: boolean | undefined
}

const iso = (ms: number | null) => (ms === null ? undefined : new Date(Number(ms)).toISOString())

export function presentEndpoint(row: EndpointRow, now: number): EndpointView {
  const overlap = row.previous_secret_until !== null && Number(row.previous_secret_until) > now
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: JSON.parse(row.event_types) as string[],
    enabled: row.enabled === 1,
    ...(row.disabled_reason ? { disabledReason: row.disabled_reason } : {}),
    ...(row.disabled_at !== null ? { disabledAt: iso(row.disabled_at) } : {}),
    ...(overlap ? { previousSecretValidUntil: iso(row.previous_secret_until) } : {}),
    createdAt: iso(row.created_at) as string,
  }
}

function ownersOnly(actor: WebhookActor) {
  if (actor.role !== 'owner')
    throw new AppError(
      'forbidden',
      'Only an owner of this workspace can manage webhooks; you are an editor here',
    )
}

/**
 * Why a receiver's host is refused, in one message whatever its lookup answered: a name that does not
 * resolve and one that resolves inside the network read the same, so the refusal never tells whoever asks
 * which internal names exist. It says what is allowed, and the setting for local receivers.
 */
const refusedHost = (url: URL) =>
  `Refusing to deliver to ${url.host}: Herald delivers only to a host name that resolves, every address of it public (not loopback, private, link-local or cloud metadata), or to a public IP address. To allow loopback and private receivers when running Herald locally, set HERALD_ALLOW_PRIVATE_WEBHOOKS=1 (cloud metadata stays refused).`

/** Refuses a URL Herald will never deliver to (400 naming the rule); returns it normalised. */
export async function checkEndpointUrl(
  deps: Pick<WebhookDeps, 'publicBaseUrl' | 'allowPrivate' | 'lookup'>,
  raw: string,
): Promise<string> {
  if (raw.length > MAX_ENDPOINT_URL_LENGTH)
    throw invalid(`The endpoint URL is longer than ${MAX_ENDPOINT_URL_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalid('The endpoint URL is not a valid URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalid('The endpoint URL must start with https:// (or http://)')
  if (url.protocol === 'http:' && deps.publicBaseUrl.startsWith('https:'))
    throw invalid('The endpoint URL must use https, since Herald is served over https')
  if (url.username || url.password) throw invalid('The endpoint URL must not carry a user name or password')
  if (url.port === '0') throw invalid('The endpoint URL names port 0, which nothing listens on')
  // What is stored is the normalised form, which can be longer than what was sent (é becomes %C3%A9).
  if (url.href.length > MAX_ENDPOINT_URL_LENGTH)
    throw invalid(`The endpoint URL is longer than ${MAX_ENDPOINT_URL_LENGTH} characters once encoded`)
  try {
    await resolveCheckedAddress(url, { allowPrivate: deps.allowPrivate }, deps.lookup)
  } catch (error) {
    if (error instanceof MediaError) throw invalid(refusedHost(url))
    throw error
  }
  return url.href
}

/** The dashboard's form reaches here without the REST schema: the same limit holds for both. */
function checkDescription(description: string | undefined): string | undefined {
  if (description !== undefined && description.length > MAX_ENDPOINT_DESCRIPTION_LENGTH)
    throw invalid(`The description is longer than ${MAX_ENDPOINT_DESCRIPTION_LENGTH} characters`)
  return description
}

function checkEventTypes(types: string[]): string[] {
  const unknown = types.filter((t) => !isEventType(t) || t === 'webhook.test')
  if (unknown.length > 0)
    throw invalid(
      `Unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Known: ${eventTypes.filter((t) => t !== 'webhook.test').join(', ')}`,
    )
  return [...new Set(types)]
}

export async function listEndpoints(deps: WebhookDeps, actor: WebhookActor) {
  ownersOnly(actor)
  const now = deps.clock.now()
  return (await listEndpointRows(deps.store.db, actor.workspaceId)).map((row) => presentEndpoint(row, now))
}

export async function getEndpoint(deps: WebhookDeps, actor: WebhookActor, id: string) {
  ownersOnly(actor)
  return presentEndpoint(await findEndpointRow(deps.store.db, actor.workspaceId, id), deps.clock.now())
}

/** Creates an endpoint; the answer holds its secret, which is never shown again. */
export async function createEndpoint(deps: WebhookDeps, actor: WebhookActor, input: EndpointInput) {
  ownersOnly(actor)
  if (!input.url) throw invalid('url is required')
  const url = await checkEndpointUrl(deps, input.url)
  const description = checkDescription(input.description)
  const types = checkEventTypes(input.eventTypes ?? [])
  const now = deps.clock.now()
  const secret = generateSecret()
  const id = newId(now)
  await insertEndpoint(deps.store.db, {
    id,
    workspace_id: actor.workspaceId,
    url,
    description: description ?? '',
    event_types: JSON.stringify(types),
    enabled: input.enabled === false ? 0 : 1,
    secret: deps.vault.seal(webhookSecretAt(id, 'secret'), secret),
    created_at: now,
    updated_at: now,
  })
  return { ...(await getEndpoint(deps, actor, id)), secret }
}

export async function updateEndpoint(
  deps: WebhookDeps,
  actor: WebhookActor,
  id: string,
  input: EndpointInput,
) {
  ownersOnly(actor)
  const row = await findEndpointRow(deps.store.db, actor.workspaceId, id)
  // A form sends the URL back unchanged with every save: it is checked again only when it changes, so an
  // owner can still disable or describe an endpoint whose host stopped resolving.
  const url = input.url !== undefined && input.url !== row.url ? input.url : undefined
  const changes = {
    ...(url !== undefined ? { url: await checkEndpointUrl(deps, url) } : {}),
    ...(input.description !== undefined ? { description: checkDescription(input.description) } : {}),
    ...(input.eventTypes !== undefined
      ? { event_types: JSON.stringify(checkEventTypes(input.eventTypes)) }
      : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled ? 1 : 0 } : {}),
  }
  await updateEndpointRow(deps.store.db, actor.workspaceId, id, changes, deps.clock.now())
  return getEndpoint(deps, actor, id)
}

export async function deleteEndpoint(deps: WebhookDeps, actor: WebhookActor, id: string) {
  ownersOnly(actor)
  await deleteEndpointRow(deps.store.db, actor.workspaceId, id)
  return { id, deleted: true }
}

/** The current secret re-sealed for `previous_secret`; null when it does not open here (it could not
 * sign anything anyway). */
function resealPrevious(vault: Vault, id: string, current: string): string | null {
  try {
    return vault.seal(
      webhookSecretAt(id, 'previous_secret'),
      vault.open(webhookSecretAt(id, 'secret'), current),
    )
  } catch (error) {
    if (error instanceof VaultError) return null
    throw error
  }
}

/** A new secret (shown once); the old one keeps signing alongside it for 24 hours. */
export async function rotateSecret(deps: WebhookDeps, actor: WebhookActor, id: string) {
  ownersOnly(actor)
  const now = deps.clock.now()
  const secret = generateSecret()
  await rotateEndpointSecret(
    deps.store,
    actor.workspaceId,
    id,
    // The current secret moves to `previous_secret`: re-sealed there, since each value opens only in its
    // own column.
    (current) => ({
      secret: deps.vault.seal(webhookSecretAt(id, 'secret'), secret),
      previous: resealPrevious(deps.vault, id, current),
    }),
    now + SECRET_OVERLAP_MS,
    now,
  )
  return { ...(await getEndpoint(deps, actor, id)), secret }
}

export async function sendTestEvent(deps: WebhookDeps, actor: WebhookActor, id: string) {
  ownersOnly(actor)
  const eventId = await recordTestEvent(deps.store, actor.workspaceId, id, deps.clock.now())
  return { eventId, endpointId: id, status: 'pending' as const }
}

export async function listAttempts(deps: WebhookDeps, actor: WebhookActor, id: string, limit = 50) {
  ownersOnly(actor)
  await findEndpointRow(deps.store.db, actor.workspaceId, id)
  const rows = await listAttemptRows(deps.store.db, id, Math.min(Math.max(1, limit), 500))
  return rows.map((row) => ({
    eventId: row.event_id,
    eventType: row.event_type,
    attemptedAt: iso(row.attempted_at) as string,
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    outcome: row.outcome,
    responseExcerpt: row.response_excerpt,
  }))
}

export async function redeliver(deps: WebhookDeps, actor: WebhookActor, endpointId: string, eventId: string) {
  ownersOnly(actor)
  return redeliverEvent(deps.store, actor.workspaceId, endpointId, eventId, deps.clock.now())
}

/** The management dependencies from the app context. */
export function webhookDepsOf(app: AppContext): WebhookDeps {
  return {
    store: app.store,
    vault: app.vault,
    clock: app.clock,
    publicBaseUrl: app.config.publicBaseUrl,
    allowPrivate: app.config.webhooks.allowPrivate,
  }
}

/** The credits.low setting: a charge that takes the balance below `threshold` sends the event once. */
export async function getWebhookSettings(deps: WebhookDeps, actor: WebhookActor) {
  ownersOnly(actor)
  return { creditsLowThreshold: await creditsLowThreshold(deps.store.db, actor.workspaceId) }
}

export async function changeWebhookSettings(
  deps: WebhookDeps,
  actor: WebhookActor,
  input: { creditsLowThreshold: number | null },
) {
  ownersOnly(actor)
  const value = input.creditsLowThreshold
  if (value !== null && (!Number.isInteger(value) || value < 1 || value > 1_000_000_000))
    throw invalid('creditsLowThreshold must be a whole number from 1 to 1000000000, or null to turn it off')
  await setCreditsLowThreshold(deps.store.db, actor.workspaceId, value)
  return getWebhookSettings(deps, actor)
}
