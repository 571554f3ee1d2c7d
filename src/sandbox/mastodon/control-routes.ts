import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  type ControlFault,
  type FaultAction,
  type InstanceSettings,
  isInstanceName,
  type MastodonSandboxState,
  type SimInstance,
} from './state.js'

/**
 * The simulator's control surface under `${prefix}/_sandbox` (no secret or token is ever shown):
 * - `GET /_sandbox/state`: every instance with its settings, apps (names and client ids), accounts,
 *   attachments (without bytes), statuses and remembered idempotency keys, plus the calls that did not
 *   match mastodon.openapi.json (`violations`) and the faults still queued;
 * - `POST /_sandbox/instances` `{host, …settings}`: makes the instance (or changes it): `maxCharacters`,
 *   `maxMedia`, `version`, `legacy` (a server before 4.3), `idempotencyMs`, `statusLimit`, `processingPolls`…;
 * - `POST /_sandbox/forget-apps` `{host}`: the instance forgets Herald's app and every token it issued;
 * - `POST /_sandbox/engagement` `{host, statusId, favourites?, reblogs?}`;
 * - `POST /_sandbox/followers` `{host, username, followers?, following?}`;
 * - `POST /_sandbox/faults` `{operation, action: error|error_after|drop_before|drop_after, status?}`: fails
 *   the next call of that operation (`statuses`, `media`, `media.get`, `accounts.statuses`, `token`, …).
 */

const ACTIONS: readonly FaultAction[] = ['error', 'error_after', 'drop_before', 'drop_after']
const NUMERIC: readonly (keyof InstanceSettings)[] = [
  'maxCharacters',
  'maxMedia',
  'urlWeight',
  'imageSizeLimit',
  'videoSizeLimit',
  'descriptionLimit',
  'idempotencyMs',
  'statusLimit',
  'statusWindowMs',
  'requestLimit',
  'processingPolls',
]

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0
const refuse = (reply: FastifyReply, message: string) => reply.code(400).send({ error: message })

function stateOf(instance: SimInstance) {
  return {
    host: instance.host,
    settings: instance.settings,
    apps: [...instance.apps.values()].map(({ clientSecret: _secret, ...app }) => app),
    accounts: [...instance.accounts.values()],
    media: [...instance.media.values()],
    statuses: [...instance.statuses.values()],
    keys: [...instance.keys.entries()].map(([key, entry]) => ({ key, ...entry })),
  }
}

function known(state: MastodonSandboxState, host: unknown): SimInstance | undefined {
  return typeof host === 'string' ? state.instances.get(host.toLowerCase()) : undefined
}

export function registerControlRoutes(app: FastifyInstance, state: MastodonSandboxState): void {
  app.get('/_sandbox/state', async () => ({
    instances: [...state.instances.values()].map(stateOf),
    violations: state.violations,
    faults: state.faults,
  }))

  app.post('/_sandbox/instances', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const host = typeof body.host === 'string' ? body.host.toLowerCase() : ''
    if (!isInstanceName(host))
      return refuse(reply, 'host names an instance: a host name such as social.example')
    const bad = NUMERIC.filter((name) => name in body && !isCount(body[name]))
    if (bad.length > 0 || ('legacy' in body && typeof body.legacy !== 'boolean'))
      return refuse(reply, `counts are whole numbers (${bad.join(', ') || 'legacy is true or false'})`)
    const instance = state.instance(host)
    for (const name of NUMERIC)
      if (isCount(body[name])) (instance.settings[name] as number) = body[name] as number
    if (typeof body.legacy === 'boolean') instance.settings.legacy = body.legacy
    if (typeof body.version === 'string' && body.version.trim())
      instance.settings.version = body.version.trim()
    if (typeof body.title === 'string' && body.title.trim()) instance.settings.title = body.title.trim()
    return { host, settings: instance.settings }
  })

  app.post('/_sandbox/forget-apps', async (request, reply) => {
    const instance = known(state, (request.body as { host?: unknown } | undefined)?.host)
    if (!instance) return refuse(reply, 'host names an instance the simulator holds')
    return { host: instance.host, forgotten: state.forgetApps(instance) }
  })

  app.post('/_sandbox/engagement', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const status = known(state, body.host)?.statuses.get(String(body.statusId))
    const given = [body.favourites, body.reblogs].filter((v) => v !== undefined)
    if (!status || !given.every(isCount))
      return refuse(reply, 'host and statusId name a status; favourites and reblogs are counts')
    if (isCount(body.favourites)) status.favourites = body.favourites
    if (isCount(body.reblogs)) status.reblogs = body.reblogs
    return { id: status.id, favourites: status.favourites, reblogs: status.reblogs }
  })

  app.post('/_sandbox/followers', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const instance = known(state, body.host)
    const account = [...(instance?.accounts.values() ?? [])].find((a) => a.username === body.username)
    const given = [body.followers, body.following].filter((v) => v !== undefined)
    if (!account || !given.every(isCount))
      return refuse(reply, 'host and username name an account; followers and following are counts')
    if (isCount(body.followers)) account.followers = body.followers
    if (isCount(body.following)) account.following = body.following
    return { id: account.id, followers: account.followers, following: account.following }
  })

  app.post('/_sandbox/faults', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const status = body.status
    if (
      typeof body.operation !== 'string' ||
      !ACTIONS.includes(body.action as FaultAction) ||
      (status !== undefined &&
        !(Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599))
    )
      return refuse(
        reply,
        `operation names a call; action is ${ACTIONS.join(', ')}; status, when given, is 400-599`,
      )
    const fault: ControlFault = {
      operation: body.operation,
      action: body.action as FaultAction,
      ...(typeof status === 'number' ? { status } : {}),
    }
    state.faults.push(fault)
    return { queued: state.faults.length }
  })
}
