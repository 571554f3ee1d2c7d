import type { AppContext } from '../../../modules/app-context.js'
import { actingMember } from '../acting-member.js'
import { required, UsageError, type Values, wholeNumber } from '../arguments.js'
import { appCommand, type Command, type CommandResult } from '../command.js'

type Endpoints = typeof import('../../../modules/outbox/endpoints.js')
type Actor = Awaited<ReturnType<typeof actingMember>>['actor']
interface Member {
  workspace: string
  email?: string | undefined
}

/** A webhook command: the endpoints module, its dependencies and the acting member, loaded when it runs. */
function webhookCommand<Input extends Member>(spec: {
  name: string
  usage: string[]
  input(values: Values): Input
  run(
    endpoints: Endpoints,
    deps: ReturnType<Endpoints['webhookDepsOf']>,
    actor: Actor,
    input: Input,
  ): Promise<CommandResult>
}): Command {
  return appCommand<Input>({
    name: spec.name,
    usage: spec.usage,
    opens: 'app',
    input: spec.input,
    async run(app: AppContext, input) {
      const endpoints = await import('../../../modules/outbox/endpoints.js')
      const { actor } = await actingMember(app.store.db, input)
      return spec.run(endpoints, endpoints.webhookDepsOf(app), actor, input)
    },
  })
}

const member = (v: Values): Member => ({ workspace: required(v, 'workspace'), email: v.email })
const oneEndpoint = (v: Values) => ({ ...member(v), id: required(v, 'id') })

const ONE_ENDPOINT = [
  'webhooks remove|rotate|test --workspace ID --id ENDPOINT [--json]',
  'rotate: a new secret (shown once; the old one also signs for 24 hours). test: send webhook.test.',
]

export const webhookCommands: Command[] = [
  webhookCommand({
    name: 'webhooks list',
    usage: ['webhooks list --workspace ID [--json]'],
    input: member,
    async run(w, deps, actor) {
      const list = await w.listEndpoints(deps, actor)
      const lines = list.map(
        (e) =>
          `${e.id}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}  ${e.eventTypes.length > 0 ? e.eventTypes.join(',') : 'all events'}${e.disabledReason ? `  (${e.disabledReason})` : ''}`,
      )
      return { json: list, text: lines.length > 0 ? lines.join('\n') : 'No webhook endpoints.' }
    },
  }),
  webhookCommand({
    name: 'webhooks add',
    usage: [
      'webhooks add --workspace ID --url URL [--event TYPE ...] [--description TEXT] [--json]',
      'Add an endpoint; prints its whsec_ secret once (keep it: it is never shown again).',
    ],
    input: (v) => ({
      ...member(v),
      url: required(v, 'url'),
      description: v.description,
      eventTypes: v.event,
    }),
    async run(w, deps, actor, { url, description, eventTypes }) {
      const created = await w.createEndpoint(deps, actor, { url, description, eventTypes })
      return {
        json: created,
        text: `Added endpoint ${created.id} for ${created.url}.\nSecret (shown only now): ${created.secret}`,
      }
    },
  }),
  webhookCommand({
    name: 'webhooks update',
    usage: [
      'webhooks update --workspace ID --id ENDPOINT [--url URL] [--event TYPE ... | --all-events] [--description TEXT] [--enable|--disable] [--json]',
    ],
    input: (v) => {
      if (v.enable && v.disable) throw new UsageError('--enable and --disable cannot be used together')
      if (v['all-events'] && v.event) throw new UsageError('--event and --all-events cannot be used together')
      return {
        ...oneEndpoint(v),
        change: {
          url: v.url,
          description: v.description,
          eventTypes: v['all-events'] ? [] : v.event,
          enabled: v.enable ? true : v.disable ? false : undefined,
        },
      }
    },
    async run(w, deps, actor, input) {
      const updated = await w.updateEndpoint(deps, actor, input.id, input.change)
      return {
        json: updated,
        text: `Endpoint ${updated.id}: ${updated.enabled ? 'enabled' : 'disabled'}, ${updated.url}.`,
      }
    },
  }),
  webhookCommand({
    name: 'webhooks remove',
    usage: ONE_ENDPOINT,
    input: oneEndpoint,
    async run(w, deps, actor, input) {
      const removed = await w.deleteEndpoint(deps, actor, input.id)
      return { json: removed, text: `Removed endpoint ${removed.id}.` }
    },
  }),
  webhookCommand({
    name: 'webhooks rotate',
    usage: ONE_ENDPOINT,
    input: oneEndpoint,
    async run(w, deps, actor, input) {
      const rotated = await w.rotateSecret(deps, actor, input.id)
      return {
        json: rotated,
        text: `New secret (shown only now): ${rotated.secret}\nThe previous one also signs until ${rotated.previousSecretValidUntil}.`,
      }
    },
  }),
  webhookCommand({
    name: 'webhooks test',
    usage: ONE_ENDPOINT,
    input: oneEndpoint,
    async run(w, deps, actor, input) {
      const sent = await w.sendTestEvent(deps, actor, input.id)
      return { json: sent, text: `Queued test event ${sent.eventId}; a running worker delivers it.` }
    },
  }),
  webhookCommand({
    name: 'webhooks log',
    usage: [
      'webhooks log --workspace ID --id ENDPOINT [--limit N] [--json]',
      'The newest N attempts (1 to 500, default 50).',
    ],
    input: (v) => ({ ...oneEndpoint(v), limit: wholeNumber(v.limit, 'limit', { min: 1, max: 500 }) }),
    async run(w, deps, actor, input) {
      const attempts = await w.listAttempts(deps, actor, input.id, input.limit)
      const lines = attempts.map(
        (a) =>
          `${a.attemptedAt}  ${a.eventType}  ${a.eventId}  ${a.statusCode ?? '---'}  ${a.latencyMs} ms  ${a.outcome}`,
      )
      return { json: attempts, text: lines.length > 0 ? lines.join('\n') : 'No attempts yet.' }
    },
  }),
  webhookCommand({
    name: 'webhooks redeliver',
    usage: ['webhooks redeliver --workspace ID --id ENDPOINT --event-id EVENT [--json]'],
    input: (v) => ({ ...oneEndpoint(v), eventId: required(v, 'event-id') }),
    async run(w, deps, actor, input) {
      const queued = await w.redeliver(deps, actor, input.id, input.eventId)
      return { json: queued, text: `Queued event ${queued.eventId} again for endpoint ${queued.endpointId}.` }
    },
  }),
]
